"""`judge eval DATA.jsonl --out PRED.jsonl`: verify labelled records and report accuracy.

`judge eval --report PRED.jsonl` reports an existing predictions file without running anything.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any

from judge.cli.app import EXIT_PASS, EXIT_USAGE, EXIT_VERIFIER_ERROR
from judge.cli.common import add_judge_options, say_report_written, settings_from_args
from judge.eval.records import EvalRecord, load_records, read_predictions

DEFAULT_MAX_ERROR_RATE = 0.05


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
    subset = parser.add_mutually_exclusive_group()
    subset.add_argument(
        "--sample",
        type=int,
        metavar="N",
        help="N records stratified by dataset and gold label (the same for the same --seed)",
    )
    subset.add_argument(
        "--limit",
        type=int,
        metavar="N",
        help="the first N records of DATA in file order (often one dataset and label: "
        "prefer --sample)",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed of --sample (default 0)")
    parser.add_argument(
        "--max-error-rate",
        type=float,
        default=DEFAULT_MAX_ERROR_RATE,
        metavar="R",
        help="exit 4 when more than this share of the records ended in an error "
        f"(default {DEFAULT_MAX_ERROR_RATE})",
    )
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
    if args.sample is not None and args.sample < 1:
        return _usage("--sample must be at least 1")
    if not 0.0 <= args.max_error_rate <= 1.0:
        return _usage("--max-error-rate must be between 0 and 1")
    if args.record_concurrency < 1:
        return _usage("--concurrency must be at least 1")

    from judge.eval.run import evaluate

    records = _chosen(load_records(args.data), args)
    settings = settings_from_args(args)
    if not args.no_judge:
        from judge.cli.preflight import resolve_reachable

        settings = asyncio.run(resolve_reachable(settings))
    outcome = asyncio.run(
        evaluate(
            records,
            args.out,
            settings,
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
        say_report_written(args.html)
    return _error_rate_code(predictions, args.max_error_rate)


def _chosen(records: list[EvalRecord], args: argparse.Namespace) -> list[EvalRecord]:
    if args.sample is not None:
        from judge.eval.sample import stratified_sample

        return stratified_sample(records, args.sample, args.seed)
    return records[: args.limit]


def _error_rate_code(predictions: list[dict[str, Any]], max_rate: float) -> int:
    """A run where the verifier erred on too many records says nothing about accuracy."""
    errors = sum(1 for p in predictions if p.get("error"))
    if not predictions or errors / len(predictions) <= max_rate:
        return EXIT_PASS
    print(
        f"judge eval: error: {errors} of {len(predictions)} records "
        f"({errors / len(predictions):.0%}) ended in an error, above --max-error-rate "
        f"{max_rate:g}; the accuracy above is not a measurement of the judge",
        file=sys.stderr,
    )
    return EXIT_VERIFIER_ERROR


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
