"""`judge` command line: a thin layer over the Python API.

Exit codes: 0 pass, 1 answer not passed (repair / regenerate / block), 2 usage error,
3 input or configuration error, 4 verifier error (the judge could not decide).
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import os
import sys
from collections.abc import Sequence

from judge.errors import ConfigError, InputError, JudgeError, VerifierFault
from judge.extras import missing_extra

EXIT_PASS = 0
EXIT_NOT_PASSED = 1
EXIT_USAGE = 2
EXIT_INPUT_ERROR = 3
EXIT_VERIFIER_ERROR = 4

# name -> (module, help). Only the chosen command's module is imported, so `judge --help` and
# light commands never load the HTTP stack (openai, instructor). Each module's register() adds
# the full sub-parser; the help here is what the top-level usage lists.
COMMANDS: dict[str, tuple[str, str]] = {
    "verify": ("judge.cli.verify", "verify an answer against its evidence"),
    "answer": ("judge.cli.answer", "answer a question from evidence with a verified, cited answer"),
    "serve": ("judge.cli.serve", "run the verification service over HTTP"),
    "eval": ("judge.cli.eval", "verify labelled records and report accuracy against the labels"),
    "calibrate": ("judge.cli.calibrate", "choose decision thresholds from labelled predictions"),
    "local": ("judge.cli.local", "manage the embedded local judge server"),
    "config": ("judge.cli.config", "show the effective settings and where each comes from"),
    "schema": ("judge.cli.schema", "write the request and response JSON Schemas"),
    "audit": ("judge.cli.audit", "read the audit log"),
    "stats": ("judge.cli.stats", "summarise the audit log"),
    "replay": ("judge.cli.replay", "re-run a logged request and show changed verdicts"),
    "batch": ("judge.cli.batch", "verify logged requests in bulk, resumably (local or Ray)"),
    "redteam": (
        "judge.cli.redteam",
        "run the adversarial suite and report catch rates per attack family",
    ),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser with every command listed and ``command`` (if any) fully registered."""
    parser = argparse.ArgumentParser(
        prog="judge", description="Verify that an answer's claims are grounded in its evidence."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        if name == command:
            importlib.import_module(module_name).register(sub)
        else:
            sub.add_parser(name, help=help_text)
    return parser


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("grounding-judge")
    except PackageNotFoundError:
        from judge import __version__

        return __version__


def chosen_command(argv: Sequence[str]) -> str | None:
    """The sub-command ``argv`` names: its first word that is not an option."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def unknown_command(name: str) -> int:
    close = difflib.get_close_matches(name, COMMANDS, n=1, cutoff=0.6)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    print(build_parser().format_usage().rstrip(), file=sys.stderr)
    print(
        f"judge: error: unknown command '{name}'{hint}; the commands are {', '.join(COMMANDS)}",
        file=sys.stderr,
    )
    return EXIT_USAGE


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    command = chosen_command(arguments)
    if command is not None and command not in COMMANDS:
        return unknown_command(command)
    try:
        output_key = None
        if command == "verify" and "-" not in arguments:  # an answer from stdin: never kept
            # An identical earlier run's output, before the pipeline is loaded; None: a miss.
            from judge.cli.output_cache import replay

            replayed, output_key = replay(arguments, sys.stdout)
            if replayed is not None:
                return replayed
        parser = build_parser(command)
        args = parser.parse_args(arguments)
        args.output_key = output_key
        code: int = args.run(args)
    except ModuleNotFoundError as exc:
        needed = missing_extra(exc, f"judge {command}")
        if needed is None:
            return _internal_error(exc)
        print(f"judge: error: {needed}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except (InputError, ConfigError) as exc:
        print(f"judge: error: {exc}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except VerifierFault as exc:
        print(f"judge: verifier error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_VERIFIER_ERROR
    except JudgeError as exc:
        print(f"judge: error: {exc}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except KeyboardInterrupt:
        print("judge: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        # Never let an unexpected fault read as "not passed" or "pass": it is a verifier error.
        return _internal_error(exc)
    return code


def _internal_error(exc: Exception) -> int:
    # JUDGE_DEBUG=1 shows the traceback.
    if os.environ.get("JUDGE_DEBUG"):
        raise exc
    print(f"judge: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
    return EXIT_VERIFIER_ERROR


if __name__ == "__main__":
    sys.exit(main())
