"""`judge batch IN... --out OUT`: verify JSON Lines of requests in bulk, resumably.

Exit codes: 0 every record decided (whatever the actions), 3 some records invalid or
malformed (and none undecided), 4 some records ended in a verifier error. A bad option or an
unreachable Ray cluster exits 3 before any record is read.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from judge.cli.app import EXIT_INPUT_ERROR, EXIT_PASS, EXIT_USAGE, EXIT_VERIFIER_ERROR
from judge.cli.common import add_judge_options, settings_from_args

DEFAULT_CONCURRENCY = 8


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "batch",
        help="verify JSON Lines of requests in bulk (resumable)",
        description=(
            'Verify JSON Lines of requests in the `judge verify` format, each with an "id", '
            "from files, folders of files or stdin (-). One response line per request is "
            "appended to OUT as it finishes; a rerun continues where the last one stopped."
        ),
    )
    parser.add_argument("inputs", nargs="+", metavar="IN", help="file, folder or - for stdin")
    parser.add_argument("--out", type=Path, required=True, help="output file (folder for parquet)")
    parser.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local: this process (default); ray: a Ray Data actor pool",
    )
    parser.add_argument(
        "--format",
        choices=("jsonl", "parquet"),
        default="jsonl",
        dest="fmt",
        help="JSON Lines file (default) or a folder of Parquet part files",
    )
    parser.add_argument(
        "--retry-errors",
        action="store_true",
        help="verify again the records whose line is an error",
    )
    parser.add_argument(
        "--ray-address", help="existing Ray cluster (host:port, ray://host:port or auto)"
    )
    parser.add_argument(
        "--workers", type=int, default=2, help="Ray actors, each with its own judge client"
    )
    parser.add_argument(
        "--batch-size",
        type=int,
        help="records per Ray batch, verified together (default: --concurrency)",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON on stdout")
    add_judge_options(parser)
    for action in parser._actions:
        if action.dest == "concurrency":
            action.help = f"records verified at once (per Ray actor); default {DEFAULT_CONCURRENCY}"
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from judge.batch.job import BatchOptions, run_batch

    concurrency = args.concurrency or DEFAULT_CONCURRENCY
    batch_size = args.batch_size or concurrency
    for name, value in (("--concurrency", concurrency), ("--workers", args.workers),
                        ("--batch-size", batch_size)):  # fmt: skip
        if value < 1:
            print(f"judge: error: {name} must be at least 1", file=sys.stderr)
            return EXIT_USAGE
    args.concurrency = None  # claims per record stay at the configured concurrency
    settings = settings_from_args(args)
    options = BatchOptions(
        inputs=list(args.inputs),
        out=args.out,
        engine=args.engine,
        fmt=args.fmt,
        concurrency=concurrency,
        retry_errors=args.retry_errors,
        use_judge=not args.no_judge,
        ray_address=args.ray_address or os.environ.get("RAY_ADDRESS") or None,
        workers=args.workers,
        batch_size=batch_size,
    )
    summary = run_batch(options, settings)
    print(summary.render(), file=sys.stderr)
    if args.json:
        print(json.dumps(summary.as_dict(), indent=2))
    return exit_code(summary.as_dict())


def exit_code(summary: dict[str, Any]) -> int:
    statuses = summary["statuses"]
    if statuses.get("verifier_error"):
        return EXIT_VERIFIER_ERROR
    if statuses.get("invalid") or statuses.get("malformed"):
        return EXIT_INPUT_ERROR
    return EXIT_PASS
