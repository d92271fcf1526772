"""The exact checks on answers and evidence in other languages: a regression gate.

Reads every ``tests/data/languages/<lang>.jsonl`` and runs each case through the verifier with
every exact check and no judge (``use_judge=False``). A case states whether its answer gets one
value wrong against the evidence (``expect: flag``) or restates every value correctly in
another format of its locale (``expect: clean``). Per language file it reports:

    flagged   flag cases caught: some claim fails an exact check (any label except
              ``unverified``, ``supported``, ``not_factual`` and ``uncited``)
    on value  flagged cases where a failing check names the wrong value: one of the values
              it reports missing overlaps the case's ``wrong_value`` (compared without blank
              space). A case caught only on another value (a correct value misread) is
              flagged but not on value; the list after the table names them.
    uncited   flag cases whose only failing label is ``uncited``: flagged, but for the wrong
              reason (a sentence split where it should not be), so not counted as caught
    clean     clean cases whose every claim is ``unverified`` or ``not_factual``
    cross     the same two counts on the cases whose answer and evidence differ in language

and then every miss: the case, each claim's label and the verifier's reason.

    python -m benchmarks.gates.languages
    python -m benchmarks.gates.languages --json /tmp/languages.json
    python -m benchmarks.gates.languages --show fr

The figures are compared with the committed ones (``gates/expected/languages.json``, or
``--expected FILE``): the command exits 1 when any language's flagged, on-value or clean rate
falls below the committed figure at all (no tolerance: every case is written to be caught or
left clean), or when a language of the committed figures has no case file any more. The run
ignores the caller's ``JUDGE_*`` settings and config file and keeps its state in a temporary
folder, so it measures the default checks only.

Judge: none. Time on the 2-core development machine: about 4 s for 416 cases (2026-12-04).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.common import (
    ROOT,
    GateResult,
    default_settings,
    expected_file,
    finish,
    gate_parser,
    judged,
    measured,
    read_expected,
    skipped,
)
from judge.api import Verifier

NAME = "languages"
CASES_DIR = ROOT / "tests" / "data" / "languages"

PASSING_LABELS = frozenset({"unverified", "supported", "not_factual"})
CLEAN_LABELS = frozenset({"unverified", "not_factual"})
WRONG_REASON_LABEL = "uncited"
RATE_DIGITS = 4
RATE_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Case:
    id: str
    language: str
    evidence_language: str
    expect: str
    value_kind: str
    evidence: list[dict[str, str]]
    answer: str
    why: str
    wrong_value: str = ""

    @property
    def cross_language(self) -> bool:
        return self.language != self.evidence_language


@dataclass(frozen=True)
class ClaimResult:
    text: str
    label: str
    reason: str
    missing: tuple[str, ...] = ()


@dataclass(frozen=True)
class CaseResult:
    case: Case
    claims: list[ClaimResult]
    error: str = ""

    @property
    def failing_labels(self) -> set[str]:
        return {claim.label for claim in self.claims if claim.label not in PASSING_LABELS}

    @property
    def caught(self) -> bool:
        return not self.error and bool(self.failing_labels - {WRONG_REASON_LABEL})

    @property
    def caught_on_value(self) -> bool:
        """Caught, and a failing check reports the wrong value (or part of it) as missing."""
        if not self.caught:
            return False
        if not self.case.wrong_value:
            return True
        wrong = _squeezed(self.case.wrong_value)
        return any(
            _squeezed(item) in wrong or wrong in _squeezed(item)
            for claim in self.claims
            for item in claim.missing
            if _squeezed(item)
        )

    @property
    def uncited_only(self) -> bool:
        return not self.error and self.failing_labels == {WRONG_REASON_LABEL}

    @property
    def clean(self) -> bool:
        return not self.error and all(claim.label in CLEAN_LABELS for claim in self.claims)

    @property
    def as_expected(self) -> bool:
        return self.caught if self.case.expect == "flag" else self.clean


@dataclass
class Tally:
    flag_cases: int = 0
    flagged: int = 0
    on_value: int = 0
    uncited_only: int = 0
    clean_cases: int = 0
    clean: int = 0

    def add(self, result: CaseResult) -> None:
        if result.case.expect == "flag":
            self.flag_cases += 1
            self.flagged += result.caught
            self.on_value += result.caught_on_value
            self.uncited_only += result.uncited_only
        else:
            self.clean_cases += 1
            self.clean += result.clean

    @property
    def flagged_rate(self) -> float:
        return _rate(self.flagged, self.flag_cases)

    @property
    def on_value_rate(self) -> float:
        return _rate(self.on_value, self.flag_cases)

    @property
    def clean_rate(self) -> float:
        return _rate(self.clean, self.clean_cases)

    def rates(self) -> dict[str, float]:
        return {
            "flagged_rate": self.flagged_rate,
            "on_value_rate": self.on_value_rate,
            "clean_rate": self.clean_rate,
        }

    def figures(self) -> dict[str, Any]:
        return {
            "flag_cases": self.flag_cases,
            "flagged": self.flagged,
            "flagged_rate": round(self.flagged_rate, RATE_DIGITS),
            "on_value": self.on_value,
            "on_value_rate": round(self.on_value_rate, RATE_DIGITS),
            "uncited_only": self.uncited_only,
            "clean_cases": self.clean_cases,
            "clean": self.clean,
            "clean_rate": round(self.clean_rate, RATE_DIGITS),
        }


@dataclass
class LanguageReport:
    language: str
    results: list[CaseResult] = field(default_factory=list)

    def tally(self, cross_only: bool = False) -> Tally:
        tally = Tally()
        for result in self.results:
            if result.case.cross_language or not cross_only:
                tally.add(result)
        return tally

    def misses(self) -> list[CaseResult]:
        return [result for result in self.results if not result.as_expected]

    def caught_off_value(self) -> list[CaseResult]:
        return [r for r in self.results if r.caught and not r.caught_on_value]

    def figures(self) -> dict[str, Any]:
        return {**self.tally().figures(), "cross_language": self.tally(cross_only=True).figures()}


def _rate(part: int, whole: int) -> float:
    return part / whole if whole else 1.0


def _squeezed(text: str) -> str:
    return "".join(text.split()).casefold()


# --- reading the cases -------------------------------------------------------------------


def load_cases(directory: Path) -> dict[str, list[Case]]:
    """Every case file's cases, by the language of the file (its name)."""
    cases: dict[str, list[Case]] = {}
    for path in sorted(directory.glob("*.jsonl")):
        lines = path.read_text("utf-8").split("\n")
        cases[path.stem] = [_case(line) for line in lines if line.strip()]
    return cases


def _case(line: str) -> Case:
    data = json.loads(line)
    optional = {"wrong_value"}
    return Case(
        **{
            name: data[name]
            for name in Case.__dataclass_fields__
            if name in data or name not in optional
        }
    )


# --- running them ------------------------------------------------------------------------


def run_cases(cases: dict[str, list[Case]]) -> list[LanguageReport]:
    reports = []
    with Verifier(use_judge=False) as verifier:
        for language, language_cases in cases.items():
            report = LanguageReport(language)
            report.results.extend(run_case(verifier, case) for case in language_cases)
            reports.append(report)
    return reports


def run_case(verifier: Verifier, case: Case) -> CaseResult:
    try:
        response = verifier.verify_sync(answer=case.answer, evidence=case.evidence)
    except Exception as exc:  # an input error on a case is a miss to report, not a crash
        return CaseResult(case, [], error=f"{type(exc).__name__}: {exc}")
    claims = [
        ClaimResult(
            verdict.claim.text,
            str(verdict.label),
            verdict.reason or "",
            tuple(
                item
                for check in verdict.checks
                if check.status != "passed"
                for item in check.missing
            ),
        )
        for verdict in response.verdicts
    ]
    return CaseResult(case, claims)


# --- reporting ---------------------------------------------------------------------------


def table(reports: Sequence[LanguageReport]) -> str:
    header = (
        f"{'lang':<6}{'cases':>6}{'flagged':>10}{'rate':>6}{'on value':>10}{'uncited':>9}"
        f"{'clean':>9}{'rate':>6}{'cross flagged':>15}{'cross clean':>13}"
    )
    lines = [header, "-" * len(header)]
    for report in reports:
        lines.append(_row(report.language, report.tally(), report.tally(cross_only=True)))
    total, cross = Tally(), Tally()
    for report in reports:
        for result in report.results:
            total.add(result)
            if result.case.cross_language:
                cross.add(result)
    lines.append("-" * len(header))
    lines.append(_row("all", total, cross))
    return "\n".join(lines)


def _row(name: str, tally: Tally, cross: Tally) -> str:
    cases = tally.flag_cases + tally.clean_cases
    return (
        f"{name:<6}{cases:>6}{_count(tally.flagged, tally.flag_cases):>10}"
        f"{tally.flagged_rate:>6.2f}{_count(tally.on_value, tally.flag_cases):>10}"
        f"{tally.uncited_only:>9}"
        f"{_count(tally.clean, tally.clean_cases):>9}{tally.clean_rate:>6.2f}"
        f"{_count(cross.flagged, cross.flag_cases):>15}{_count(cross.clean, cross.clean_cases):>13}"
    )


def _count(part: int, whole: int) -> str:
    return f"{part}/{whole}"


def describe(result: CaseResult) -> str:
    case = result.case
    kind = f"{case.expect} {case.value_kind}"
    if case.cross_language:
        kind += f" ({case.language} answer, {case.evidence_language} evidence)"
    lines = [f"{case.id}  {kind}: {case.why}", f"    answer: {case.answer}"]
    if case.wrong_value:
        lines.append(f"    wrong value: {case.wrong_value}")
    if result.error:
        lines.append(f"    error: {result.error}")
    for claim in result.claims:
        lines.append(f"    [{claim.label}] {claim.text}")
        if claim.reason and claim.label not in PASSING_LABELS:
            lines.append(f"        {claim.reason}")
    return "\n".join(lines)


def misses_text(reports: Sequence[LanguageReport]) -> str:
    blocks = []
    for report in reports:
        misses = report.misses()
        if misses:
            blocks.append(f"## {report.language}: {len(misses)} misses")
            blocks.extend(describe(result) for result in misses)
    off_value = [result for report in reports for result in report.caught_off_value()]
    if off_value:
        blocks.append(f"## caught, but not on the wrong value: {len(off_value)}")
        blocks.extend(describe(result) for result in off_value)
    return "\n".join(blocks) if blocks else "no misses"


def show_text(reports: Sequence[LanguageReport], language: str) -> str:
    for report in reports:
        if report.language == language:
            return "\n".join(describe(result) for result in report.results)
    raise SystemExit(f"no case file for language {language!r}")


def figures(reports: Sequence[LanguageReport], seconds: float) -> dict[str, Any]:
    return {
        "measured": measured(seconds),
        "languages": {report.language: report.figures() for report in reports},
    }


# --- the gate ----------------------------------------------------------------------------


def regressions(reports: Sequence[LanguageReport], expected: dict[str, Any]) -> list[str]:
    """Each language whose flagged, on-value or clean rate fell below the expected one, or
    whose case file is gone."""
    current = {report.language: report.tally() for report in reports}
    problems = []
    for language, want in sorted(expected["languages"].items()):
        tally = current.get(language)
        if tally is None:
            problems.append(f"{language}: no case file, but expected figures exist")
            continue
        for name, rate in tally.rates().items():
            got = round(rate, RATE_DIGITS)  # as the expected figures were written
            if name in want and got < want[name] - RATE_TOLERANCE:
                problems.append(f"{language}: {name} {got:.4f} below expected {want[name]:.4f}")
    return problems


def summary(reports: Sequence[LanguageReport]) -> str:
    total = Tally()
    for report in reports:
        for result in report.results:
            total.add(result)
    cases = total.flag_cases + total.clean_cases
    return (
        f"{cases} cases in {len(reports)} languages: flagged {total.flagged}/{total.flag_cases}, "
        f"on value {total.on_value}/{total.flag_cases}, clean {total.clean}/{total.clean_cases}"
    )


def measure_cases(directory: Path) -> tuple[list[LanguageReport], int, float]:
    cases = load_cases(directory)
    started = time.perf_counter()
    with default_settings():
        reports = run_cases(cases)
    return reports, sum(len(c) for c in cases.values()), time.perf_counter() - started


def judge_reports(
    reports: Sequence[LanguageReport], seconds: float, expected: Path | None, details: str
) -> GateResult:
    wanted = read_expected(expected)
    problems = regressions(reports, wanted) if wanted is not None else []
    report = f"{table(reports)}\n\n{details}"
    return judged(NAME, summary(reports), problems, seconds, report)


def gate(quick: bool = False, expected: Path | None = None) -> GateResult:
    """The language gate against the committed figures (every case: it is quick)."""
    if not any(CASES_DIR.glob("*.jsonl")):
        return skipped(NAME, f"no case files in {CASES_DIR}")
    reports, _count, seconds = measure_cases(CASES_DIR)
    return judge_reports(reports, seconds, expected or expected_file(NAME), misses_text(reports))


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = gate_parser(__doc__, NAME)
    parser.add_argument("--cases", type=Path, default=CASES_DIR, help="folder of <lang>.jsonl")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write the figures here")
    parser.add_argument("--show", metavar="LANG", help="print every case of LANG, not the misses")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if not any(args.cases.glob("*.jsonl")):
        return finish(skipped(NAME, f"no case files in {args.cases}"))
    reports, count, seconds = measure_cases(args.cases)
    print(f"{count} cases in {seconds:.1f} s")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(figures(reports, seconds), indent=2, ensure_ascii=False)
        args.json.write_text(text + "\n", "utf-8")
    expected: Path | None = args.expected
    if args.write_expected:
        args.write_expected.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(figures(reports, seconds), indent=2, ensure_ascii=False)
        args.write_expected.write_text(text + "\n", "utf-8")
        expected = None
    details = show_text(reports, args.show) if args.show else misses_text(reports)
    return finish(judge_reports(reports, seconds, expected, details))


if __name__ == "__main__":
    sys.exit(main())
