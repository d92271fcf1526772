"""`judge` command line: a thin layer over the Python API.

Exit codes: 0 pass, 1 answer not passed (repair / regenerate / block), 2 usage error,
3 input or configuration error, 4 verifier error (the judge could not decide).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from judge.errors import ConfigError, InputError, JudgeError, VerifierFault

EXIT_PASS = 0
EXIT_NOT_PASSED = 1
EXIT_USAGE = 2
EXIT_INPUT_ERROR = 3
EXIT_VERIFIER_ERROR = 4

# Each module in judge/commands registers one sub-command.
COMMANDS = (
    "verify",
    "local",
    "schema",
    "eval",
    "calibrate",
    "serve",
    "audit",
    "stats",
    "replay",
    "redteam",
    "answer",
    "batch",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="judge", description="Verify that an answer's claims are grounded in its evidence."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"judge.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"judge.cli.{name}":
                continue
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.run(args)
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
        # JUDGE_DEBUG=1 shows the traceback.
        if os.environ.get("JUDGE_DEBUG"):
            raise
        print(f"judge: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_VERIFIER_ERROR
    return code


if __name__ == "__main__":
    sys.exit(main())
