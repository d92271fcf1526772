"""The red-team report: per attack family, what was caught and missed, as a table or JSON."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from judge.redteam.runner import SuiteRun
from judge.redteam.scoring import CaseResult, Status, score_suite
from judge.redteam.suite import FAMILIES, SUITE_VERSION
from judge.reports.console import Cell, data, fitted_tables


@dataclass(frozen=True)
class FamilyRow:
    """One family's counts. ``caught``/``missed``/``not_applicable`` count the cases that count
    against this judge; judge-dependent cases run against a fake judge are tallied apart."""

    family: str
    cases: int
    caught: int
    missed: int
    not_applicable: int
    judge_dependent: int
    judge_dependent_caught: int
    flips: int
    to_pass: int
    max_seconds: float

    @property
    def rate(self) -> float | None:
        decided = self.caught + self.missed
        return self.caught / decided if decided else None


@dataclass(frozen=True)
class Report:
    suite_version: str
    judge: str
    fake_judge: bool
    seeds: list[str]
    rows: list[FamilyRow]
    results: list[CaseResult]
    seconds: float

    @property
    def missed(self) -> list[CaseResult]:
        return [r for r in self.results if r.counted and r.status is Status.MISSED]

    @property
    def judge_dependent_missed(self) -> list[CaseResult]:
        return [r for r in self.results if not r.counted and r.status is Status.MISSED]

    @property
    def must_block_passed(self) -> list[CaseResult]:
        return [r for r in self.results if r.counted and r.must_block_passed]

    @property
    def faults(self) -> list[CaseResult]:
        return [r for r in self.results if r.fault]

    @property
    def failed(self) -> bool:
        """A must-block case passed, or a case crashed or hung: the run fails."""
        return bool(self.must_block_passed or self.faults)


def build_report(suite: SuiteRun, results: Sequence[CaseResult] | None = None) -> Report:
    scored = list(results) if results is not None else score_suite(suite)
    families = [f for f in FAMILIES if any(r.family == f for r in scored)]
    families += sorted({r.family for r in scored} - set(families))
    return Report(
        suite_version=SUITE_VERSION,
        judge=suite.judge.describe(),
        fake_judge=suite.judge.is_fake,
        seeds=sorted({r.seed_id for r in scored}),
        rows=[_row(family, [r for r in scored if r.family == family]) for family in families],
        results=scored,
        seconds=suite.seconds,
    )


def _row(family: str, results: list[CaseResult]) -> FamilyRow:
    counted = [r for r in results if r.counted]
    dependent = [r for r in results if r.judge_dependent]
    return FamilyRow(
        family=family,
        cases=len(results),
        caught=sum(r.status is Status.CAUGHT for r in counted),
        missed=sum(r.status is Status.MISSED for r in counted),
        not_applicable=sum(r.status is Status.NOT_APPLICABLE for r in counted),
        judge_dependent=len(dependent),
        judge_dependent_caught=sum(r.status is Status.CAUGHT for r in dependent),
        flips=sum(bool(r.flip) for r in results),
        to_pass=sum(r.to_pass for r in results),
        max_seconds=max((r.seconds for r in results), default=0.0),
    )


def totals(report: Report) -> FamilyRow:
    rows = report.rows
    return FamilyRow(
        family="all",
        cases=sum(r.cases for r in rows),
        caught=sum(r.caught for r in rows),
        missed=sum(r.missed for r in rows),
        not_applicable=sum(r.not_applicable for r in rows),
        judge_dependent=sum(r.judge_dependent for r in rows),
        judge_dependent_caught=sum(r.judge_dependent_caught for r in rows),
        flips=sum(r.flips for r in rows),
        to_pass=sum(r.to_pass for r in rows),
        max_seconds=max((r.max_seconds for r in rows), default=0.0),
    )


def render(report: Report, console: Console) -> None:
    console.print(
        f"red team suite v{report.suite_version}: {len(report.results)} cases from "
        f"{len(report.seeds)} seeds, judge {report.judge}, {report.seconds:.1f} s",
        markup=False,
    )
    for table in _family_tables(report, console):
        console.print(table)
    if report.fake_judge:
        console.print(
            "judge-dep.: cases only a model judge can catch; against a fake judge they are "
            "shown, not counted.",
            style="dim",
        )
    if report.missed:
        console.print(_case_table("missed", report.missed))
    if report.judge_dependent_missed:
        console.print(
            _case_table("judge-dependent, missed by this fake judge", report.judge_dependent_missed)
        )
    for result in report.must_block_passed:
        console.print(data(f"must-block case PASSED: {result.case_id}", style="bold red"))
    for result in report.faults:
        console.print(data(f"fault: {result.case_id}: {result.got}", style="bold red"))
    if not report.failed:
        console.print("no must-block case passed; no crash or hang", style="bold green")


def _family_tables(report: Report, console: Console) -> list[Table]:
    headers = [
        "family",
        "cases",
        "caught",
        "missed",
        "n/a",
        "catch rate",
        "judge-dep. caught",
        "flips",
        "to pass",
        "max s",
    ]
    rows: list[list[Cell]] = []
    for row in [*report.rows, totals(report)]:
        rate = "-" if row.rate is None else f"{row.rate:.0%}"
        dependent = (
            f"{row.judge_dependent_caught}/{row.judge_dependent}" if row.judge_dependent else "-"
        )
        rows.append(
            [
                data(row.family),
                str(row.cases),
                str(row.caught),
                Text(str(row.missed), style="red" if row.missed else ""),
                str(row.not_applicable),
                rate,
                dependent,
                str(row.flips),
                Text(str(row.to_pass), style="red" if row.to_pass else ""),
                f"{row.max_seconds:.2f}",
            ]
        )
    sections = {len(report.rows) - 1} if report.rows else set()
    return fitted_tables(console, "catch rates by attack family", headers, rows, sections=sections)


def _case_table(title: str, results: Sequence[CaseResult]) -> Table:
    table = Table(title=title, show_lines=False)
    table.add_column("case", overflow="fold")
    table.add_column("expected", overflow="fold")
    table.add_column("got", overflow="fold")
    table.add_column("why", overflow="fold")
    for result in results:
        cells = (result.case_id, result.expected, result.got, result.why)
        table.add_row(*(data(cell) for cell in cells))
    return table


def to_json(report: Report) -> dict[str, Any]:
    all_row = totals(report)
    return {
        "suite_version": report.suite_version,
        "judge": report.judge,
        "fake_judge": report.fake_judge,
        "seeds": report.seeds,
        "seconds": round(report.seconds, 3),
        "failed": report.failed,
        "must_block_passed": [r.case_id for r in report.must_block_passed],
        "faults": [r.case_id for r in report.faults],
        "families": [_row_json(row) for row in report.rows],
        "total": _row_json(all_row),
        "cases": [
            {**dataclasses.asdict(r), "status": r.status.value, "seconds": round(r.seconds, 4)}
            for r in report.results
        ],
    }


def _row_json(row: FamilyRow) -> dict[str, Any]:
    data = dataclasses.asdict(row)
    data["rate"] = None if row.rate is None else round(row.rate, 4)
    data["max_seconds"] = round(row.max_seconds, 3)
    return data


def write_json(report: Report, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(to_json(report), indent=2, ensure_ascii=False) + "\n", "utf-8")
