"""The `judge` command line: a lazy table of sub-commands, one module per command."""

from judge.cli.app import main

__all__ = ["main"]
