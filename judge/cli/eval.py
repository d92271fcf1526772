"""`judge eval DATA.jsonl --out PRED.jsonl`: verify labelled records and report accuracy.

`judge eval --report PRED.jsonl` reports an existing predictions file without running anything.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from judge.cli.app import EXIT_PASS, EXIT_USAGE
from judge.cli.common import add_judge_options, settings_from_args
from judge.eval.records import load_records, read_predictions


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    # `--concurrency` here counts records in flight; it replaces the judge option of that name
    # (claims judged at once within one record), which stays settable in the config file.
    parser = sub.add_parser(
        "eval",
        help="verify labelled records and report accuracy against the labels",
        conflict_handler="resolve",
    )
    parser.add_argument("data", type=Path, nargs="?", help="labelled records (JSON Lines)")
    parser.add_argument("--out", type=Path, help="predictions file, appended and resumable")
    parser.add_argument("--limit", type=int, help="only the first N records of DATA")
    parser.add_argument(
        "--report", type=Path, metavar="PRED", help="report an existing predictions file"
    )
    parser.add_argument("--report-dir", type=Path, help="write report.json and PNG plots here")
    parser.add_argument(
        "--retry-errors", action="store_true", help="run again the records that ended in an error"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--html", type=Path, help="also write a self-contained HTML report of the run's records"
    )
    add_judge_options(parser)
    parser.add_argument(
        "--concurrency",
        type=int,
        default=1,
        dest="record_concurrency",
        help="records verified at once (default 1)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.report is not None:
        if args.data is not None or args.out is not None:
            return _usage("give either --report PRED or DATA --out PRED, not both")
        _report(read_predictions(args.report), args.report_dir)
        return EXIT_PASS
    if args.data is None or args.out is None:
        return _usage("give DATA --out PRED (or --report PRED)")
    if args.limit is not None and args.limit < 1:
        return _usage("--limit must be at least 1")
    if args.record_concurrency < 1:
        return _usage("--concurrency must be at least 1")

    from judge.eval.run import evaluate

    records = load_records(args.data)[: args.limit]
    outcome = asyncio.run(
        evaluate(
            records,
            args.out,
            settings_from_args(args),
            use_judge=not args.no_judge,
            concurrency=args.record_concurrency,
            retry_errors=args.retry_errors,
            progress=not args.no_progress,
        )
    )
    print(
        f"{outcome.written} records verified, {outcome.skipped} already in {args.out}, "
        f"{outcome.errors} errors in this run"
        + (" (--retry-errors runs them again)" if outcome.errors else ""),
        file=sys.stderr,
    )
    wanted = {r.id for r in records}
    predictions = [p for p in read_predictions(args.out) if p["id"] in wanted]
    _report(predictions, args.report_dir)
    if args.html is not None:
        from judge.eval.html import write_run_report

        write_run_report(args.html, records, predictions)
        print(args.html, file=sys.stderr)
    return EXIT_PASS


def _report(predictions: list[dict[str, Any]], folder: Path | None) -> None:
    from judge.eval.report import build_report, render, write_json

    report = build_report(predictions)
    render(report, sys.stdout)
    if folder is not None:
        from judge.eval.plots import write_plots

        write_json(report, folder / "report.json")
        for path in [folder / "report.json", *write_plots(predictions, folder)]:
            print(path, file=sys.stderr)


def _usage(message: str) -> int:
    print(f"judge eval: error: {message}", file=sys.stderr)
    return EXIT_USAGE
