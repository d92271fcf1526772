"""`judge local up | status | down | models`: manage the embedded local judge server."""

from __future__ import annotations

import argparse

from judge.config import load_settings
from judge.local_models.commands import add_local_commands


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("local", help="manage the embedded local judge server")
    add_local_commands(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    code: int = args.func(load_settings(), args)
    return code
