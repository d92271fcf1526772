"""`judge redteam`: run the built-in adversarial suite through the full pipeline and report,
per attack family, what the verifier caught and missed.

Exit codes: 0 no must-block case passed and nothing crashed or hung (with ``--strict``: nothing
missed either); 1 otherwise; 2 usage error; 3 input error (a bad ``--dev`` file, say).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from judge.cli.app import EXIT_NOT_PASSED, EXIT_PASS, EXIT_USAGE
from judge.cli.common import add_judge_options, settings_from_args
from judge.reports.console import data, make_console

JUDGES = ("fake", "fake-permissive", "embedded")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "redteam", help="run the adversarial suite and report catch rates per attack family"
    )
    parser.add_argument(
        "--judge",
        choices=JUDGES,
        help="fake: rule-based, no model (the default); fake-permissive: supports every claim, "
        "to see what the exact checks catch alone; embedded: the real judge (or --base-url)",
    )
    parser.add_argument("--family", action="append", default=[], help="only this family")
    parser.add_argument(
        "--case", action="append", default=[], metavar="GLOB", help="only cases whose id matches"
    )
    parser.add_argument("--sample", type=int, metavar="N", help="N cases, spread over the families")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="random seed of --sample")
    parser.add_argument(
        "--dev", type=Path, metavar="PATH", help="also seed from a dev claims file (JSON Lines)"
    )
    parser.add_argument(
        "--dev-limit", type=int, default=12, metavar="N", help="records taken from --dev"
    )
    parser.add_argument(
        "--examples", type=Path, metavar="DIR", help="folder of example requests to seed from"
    )
    parser.add_argument("--no-examples", action="store_true", help="built-in seeds only")
    parser.add_argument(
        "--json", type=Path, dest="json_out", metavar="FILE", help="also write the report here"
    )
    parser.add_argument("--list", action="store_true", help="list the cases and stop")
    parser.add_argument("--strict", action="store_true", help="fail on any counted miss")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_judge_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from judge.redteam import audit_faults, runner, suite
    from judge.redteam.report import build_report, render, write_json
    from judge.redteam.seeds import EXAMPLES_DIR

    problem = _usage_problem(args)
    if problem:
        print(f"judge redteam: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    if audit_faults.FAMILY in args.family:
        if args.list:
            for fault in audit_faults.FAULTS:
                print(f"{audit_faults.FAMILY}/{fault.name}  {fault.about}")
            faults_failed = False
        else:
            faults_failed = _run_audit_faults(args)
        args.family = [f for f in args.family if f != audit_faults.FAMILY]
        if not args.family and not args.case:
            return EXIT_NOT_PASSED if faults_failed else EXIT_PASS
    else:
        faults_failed = False
    examples = None if args.no_examples else (args.examples or EXAMPLES_DIR)
    seeds = suite.default_seeds(examples, args.dev, args.dev_limit)
    cases = suite.select(suite.build_suite(seeds), args.family, args.case)
    if args.sample is not None:
        cases = suite.sample(cases, args.sample, args.seed)
    console = make_console(sys.stdout)
    if args.list:
        for case in cases:
            dependent = ", judge-dependent" if case.judge_dependent else ""
            line = f"{case.id}  [{case.expect.describe()}{dependent}]  {case.note}"
            console.print(data(line), soft_wrap=True)
        return EXIT_PASS
    settings = settings_from_args(args)
    kind: str = args.judge or ("embedded" if args.base_url else "fake")
    if kind == "embedded":
        choice = runner.embedded_judge(settings)
    else:
        choice = runner.JudgeChoice("fake-permissive" if kind == "fake-permissive" else "fake")
    with _progress(not args.no_progress) as progress:
        result = runner.run_suite(cases, settings, choice, progress=progress)
    report = build_report(result)
    render(report, console)
    if args.json_out is not None:
        write_json(report, args.json_out)
        print(args.json_out, file=sys.stderr)
    failed = report.failed or (args.strict and bool(report.missed)) or faults_failed
    return EXIT_NOT_PASSED if failed else EXIT_PASS


def _run_audit_faults(args: argparse.Namespace) -> bool:
    """The audit-faults family (service level, always with the fake judge); True if any
    fault was mishandled."""
    from judge.redteam import audit_faults

    console = Console(width=160 if not sys.stdout.isatty() else None, highlight=False)
    runs = audit_faults.run_all(settings_from_args(args))
    audit_faults.render(runs, console)
    return not all(run.passed for run in runs)


def _usage_problem(args: argparse.Namespace) -> str | None:
    from judge.redteam.audit_faults import FAMILY as AUDIT_FAULTS
    from judge.redteam.suite import FAMILIES

    if args.no_judge:
        return "--no-judge makes every claim unverified; use --judge fake-permissive instead"
    if args.base_url and args.judge in ("fake", "fake-permissive"):
        return "--base-url names a real judge; it cannot go with --judge fake"
    known = (*FAMILIES, AUDIT_FAULTS)
    unknown = [f for f in args.family if f not in known]
    if unknown:
        return f"unknown family {', '.join(unknown)}; the families are {', '.join(known)}"
    if args.sample is not None and args.sample < 1:
        return "--sample must be at least 1"
    if args.dev_limit < 1:
        return "--dev-limit must be at least 1"
    if args.no_examples and args.examples is not None:
        return "give --examples DIR or --no-examples, not both"
    return None


@contextmanager
def _progress(enabled: bool) -> Iterator[Callable[[int, int, str], None] | None]:
    if not enabled:
        yield None
        return
    bar = Progress(
        TextColumn("redteam"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
        console=Console(stderr=True),
        transient=True,
    )
    task = bar.add_task("", total=None)

    def advance(done: int, total: int, case_id: str) -> None:
        bar.update(task, completed=done, total=total, description=case_id)

    with bar:
        yield advance
