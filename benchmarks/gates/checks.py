"""The exact checks alone, at scale: false flags on supported claims and catches on the rest.

No judge is consulted. Every claim of the development set (``../shared/data/dev``) and of the
public set (``../shared/data/public``: thousands of labelled pairs from public research
datasets) is checked against all of its evidence passages joined as the pipeline joins cited
passages, by the default checks in pipeline order. A claim is *flagged* when a check returns
FAILED or NEEDS_REVIEW; the first such check is the one the pipeline reports.

Reported per data set, for all claims, for the claims the data marks as numeric, per source
dataset (and the public set without Climate-FEVER, whose SUPPORTS sentences often state none
of the claim's values), and per check:

    false flags   flagged supported claims / supported claims
    catches       flagged not-supported claims / not-supported claims
    contradicted  claims labelled contradicted that the checks report as ``contradicted``
    kinds         the pipeline's flags by finding: conflict (the evidence states another
                  value for the same slot), absent (the evidence does not state it), derived
                  (computed or converted from evidence values: review), review (any other
                  reason a person must look)

The figures are compared with the committed ones (``gates/expected/checks.json``, or
``--expected FILE``) and the command exits 1 when a false-flag rate rises by more than 0.25
points, or a catch rate falls by more than 0.5 points, for a data set as a whole, without
Climate-FEVER, or for any source dataset with at least 100 claims of the label;
``--write-expected FILE`` records the current figures instead. The checks are deterministic, so
any difference is a change of code: tolerances leave room for a deliberate trade, not noise. A
data set whose file is missing is skipped, and said so; with neither, the gate is a SKIP.

    python -m benchmarks.gates.checks                     # dev and public: about 90 s
    python -m benchmarks.gates.checks --quick             # dev only: a few seconds
    python -m benchmarks.gates.checks --show numbers --label supported --dataset MNLI --limit 20

Judge: none. Time on the 2-core development machine: 89 s for dev and public (2026-12-04).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.common import (
    DEV_CLAIMS,
    PUBLIC_CLAIMS,
    GateResult,
    expected_file,
    finding_kind,
    finish,
    first_flag,
    gate_parser,
    joined_evidence,
    judged,
    missing_data,
    percent,
    read_expected,
    skipped,
)
from judge.pipeline.checks import default_checks
from judge.protocols import Check
from judge.schemas import CheckOutcome, CheckStatus, Finding, Label

NAME = "checks"
DATA = {"dev": DEV_CLAIMS, "public": PUBLIC_CLAIMS}
QUICK_SETS = ("dev",)
# Climate-FEVER pairs a claim with one sentence labelled SUPPORTS that often states none of
# its values; its figures are reported apart.
NOISY = "Climate-FEVER"
# Points a false-flag rate may rise, and a catch rate fall, before the gate fails.
FALSE_FLAG_TOLERANCE = 0.25
CATCH_TOLERANCE = 0.5
# A source dataset is gated alone only with this many claims of the label.
MIN_GATED = 100
PIPELINE = "any"


@dataclass(frozen=True)
class Record:
    id: str
    dataset: str
    claim: str
    evidence: str
    supported: bool
    contradicted: bool
    numeric: bool


@dataclass
class Tally:
    """One check's (or the pipeline's) flags over one subset of claims."""

    supported: int = 0
    unsupported: int = 0
    contradicted: int = 0
    fired: int = 0
    false_flags: int = 0
    catches: int = 0
    contradicted_found: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    labels: Counter[str] = field(default_factory=Counter)

    def add(self, record: Record, outcome: CheckOutcome | None) -> None:
        self.supported += record.supported
        self.unsupported += not record.supported
        self.contradicted += record.contradicted
        if outcome is None:
            return
        self.fired += 1
        if outcome.status is CheckStatus.PASSED:
            return
        if record.supported:
            self.false_flags += 1
            self.labels[str(outcome.label)] += 1
        else:
            self.catches += 1
        self.kinds[finding_kind(outcome)] += 1
        self.contradicted_found += record.contradicted and (
            outcome.label is Label.CONTRADICTED or outcome.finding is Finding.CONFLICT
        )

    def figures(self) -> dict[str, Any]:
        return {
            "supported": self.supported,
            "not_supported": self.unsupported,
            "false_flags": self.false_flags,
            "false_flag_rate": rate(self.false_flags, self.supported),
            "catches": self.catches,
            "catch_rate": rate(self.catches, self.unsupported),
            "contradicted": self.contradicted,
            "contradicted_found": self.contradicted_found,
            "kinds": dict(sorted(self.kinds.items())),
            "false_flag_labels": dict(self.labels.most_common()),
        }


rate = percent


def load(name: str) -> list[Record]:
    path = DATA[name]
    records = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            raw = json.loads(line)
            records.append(
                Record(
                    id=raw["id"],
                    dataset=raw["dataset"],
                    claim=raw["claim"],
                    evidence=joined_evidence(raw),
                    supported=raw["label"] == "supported",
                    contradicted=raw["label"] == "contradicted",
                    numeric=bool(raw.get("meta", {}).get("numeric")),
                )
            )
    return records


@dataclass
class Run:
    """Tallies of one data set: subset -> check -> tally, and each record's pipeline flag."""

    tallies: dict[str, dict[str, Tally]]
    flags: list[tuple[Record, CheckOutcome, str]]
    seconds: dict[str, float]


def subsets(record: Record) -> Iterator[str]:
    yield "all"
    if record.numeric:
        yield "numeric"
    if record.dataset != NOISY:
        yield f"without {NOISY}"
    yield f"dataset:{record.dataset}"


def measure(records: Sequence[Record], checks: Sequence[Check]) -> Run:
    names = [check.name for check in checks] + [PIPELINE]
    tallies: dict[str, dict[str, Tally]] = {}
    flags: list[tuple[Record, CheckOutcome, str]] = []
    seconds = dict.fromkeys(names, 0.0)
    for record in records:
        outcomes: list[CheckOutcome | None] = []
        for check in checks:
            started = time.perf_counter()
            outcomes.append(check(record.claim, record.evidence))
            seconds[check.name] += time.perf_counter() - started
        combined = first_flag(outcomes)
        if combined is not None and combined.status is not CheckStatus.PASSED:
            flags.append((record, combined, combined.check))
        for subset in subsets(record):
            by_check = tallies.setdefault(subset, {name: Tally() for name in names})
            for name, outcome in zip(names, [*outcomes, combined], strict=True):
                by_check[name].add(record, outcome)
    return Run(tallies, flags, seconds)


def figures(run: Run) -> dict[str, Any]:
    return {
        subset: {name: tally.figures() for name, tally in by_check.items()}
        for subset, by_check in run.tallies.items()
    }


def run_report(name: str, run: Run) -> str:
    order = ["all", f"without {NOISY}", "numeric"]
    order += sorted(s for s in run.tallies if s.startswith("dataset:"))
    pipeline = run.tallies["all"][PIPELINE]
    lines = [f"\n== {name}: {pipeline.supported + pipeline.unsupported} claims"]
    lines.append(f"{'subset':<34}{'false flags':>22}{'catches':>22}{'contradicted':>16}")
    for subset in order:
        if subset not in run.tallies:
            continue
        t = run.tallies[subset][PIPELINE]
        lines.append(
            f"{subset.removeprefix('dataset:'):<34}"
            f"{f'{t.false_flags}/{t.supported} {rate(t.false_flags, t.supported):5.1f}%':>22}"
            f"{f'{t.catches}/{t.unsupported} {rate(t.catches, t.unsupported):5.1f}%':>22}"
            f"{f'{t.contradicted_found}/{t.contradicted}':>16}"
        )
    lines.append(
        f"\n{'check':<18}{'fired':>8}{'false flags':>14}{'catches':>11}   kinds of its flags"
    )
    for check, t in run.tallies["all"].items():
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(t.kinds.items()))
        lines.append(f"{check:<18}{t.fired:>8}{t.false_flags:>14}{t.catches:>11}   {kinds}")
    labels = ", ".join(f"{k} {n}" for k, n in pipeline.labels.most_common())
    lines.append(f"\nfalse flags by label: {labels}")
    timed = ", ".join(f"{c} {s:.1f}" for c, s in run.seconds.items() if c != PIPELINE)
    lines.append(f"seconds per check: {timed}")
    return "\n".join(lines)


def summary(runs: dict[str, Run], skipped_sets: dict[str, str]) -> str:
    """The headline figures: false flags and catches of each data set measured (without
    Climate-FEVER where it is one of the sources)."""
    parts = []
    for name, run in runs.items():
        noisy = f"dataset:{NOISY}" in run.tallies
        subset = f"without {NOISY}" if noisy else "all"
        label = f"{name} without {NOISY}" if noisy else name
        t = run.tallies[subset][PIPELINE]
        parts.append(
            f"{label}: false flags {t.false_flags}/{t.supported} "
            f"({rate(t.false_flags, t.supported):.2f} %), caught {t.catches}/{t.unsupported} "
            f"({rate(t.catches, t.unsupported):.2f} %)"
        )
    parts += [f"{name} skipped: {reason}" for name, reason in skipped_sets.items()]
    return "; ".join(parts)


def regressions(current: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    """Each gated figure that moved past its tolerance, as a sentence."""
    found = []
    for name, subsets_expected in expected.items():
        for subset, by_check in subsets_expected.items():
            was = by_check.get(PIPELINE)
            now = current.get(name, {}).get(subset, {}).get(PIPELINE)
            if was is None or now is None:
                continue
            whole = subset in {"all", f"without {NOISY}"}
            if whole or was["supported"] >= MIN_GATED:
                rise = now["false_flag_rate"] - was["false_flag_rate"]
                if rise > FALSE_FLAG_TOLERANCE:
                    found.append(
                        f"{name} {subset}: false flags {was['false_flag_rate']}% -> "
                        f"{now['false_flag_rate']}% (+{rise:.2f} points)"
                    )
            if whole or was["not_supported"] >= MIN_GATED:
                fall = was["catch_rate"] - now["catch_rate"]
                if fall > CATCH_TOLERANCE:
                    found.append(
                        f"{name} {subset}: catches {was['catch_rate']}% -> "
                        f"{now['catch_rate']}% (-{fall:.2f} points)"
                    )
    return found


def show(runs: dict[str, Run], args: argparse.Namespace) -> None:
    chosen = [
        (record, outcome)
        for run in runs.values()
        for record, outcome, check in run.flags
        if args.show in {check, "any"}
        and (args.label is None or (args.label == "supported") == record.supported)
        and (args.dataset is None or record.dataset == args.dataset)
    ]
    random.Random(args.seed).shuffle(chosen)
    for record, outcome in chosen[: args.limit]:
        gold = "supported" if record.supported else "not supported"
        print(f"\n[{gold}] {record.id} ({record.dataset})\n  claim: {record.claim[:400]}")
        print(f"  {outcome.check} {outcome.label}: {outcome.detail[:600]}")


def measure_sets(
    sets: Sequence[str],
) -> tuple[dict[str, Run], dict[str, str], float]:
    """Each data set of ``sets`` whose file exists, measured; the others with the reason."""
    checks = default_checks()
    runs: dict[str, Run] = {}
    skipped_sets: dict[str, str] = {}
    started = time.perf_counter()
    for name in sets:
        reason = missing_data(DATA[name])
        if reason is not None:
            skipped_sets[name] = reason
            continue
        runs[name] = measure(load(name), checks)
    return runs, skipped_sets, time.perf_counter() - started


def judge_runs(
    runs: dict[str, Run], skipped_sets: dict[str, str], seconds: float, expected: Path | None
) -> GateResult:
    if not runs:
        return skipped(NAME, "; ".join(f"{n}: {r}" for n, r in skipped_sets.items()))
    current = {name: figures(run) for name, run in runs.items()}
    problems: list[str] = []
    wanted = read_expected(expected)
    if wanted is not None:
        problems = regressions(current, {n: s for n, s in wanted.items() if n in current})
    report = "\n".join(run_report(name, run) for name, run in runs.items())
    return judged(NAME, summary(runs, skipped_sets), problems, seconds, report)


def gate(quick: bool = False, expected: Path | None = None) -> GateResult:
    """The check gate against the committed figures: dev and public, or dev only (quick)."""
    sets = QUICK_SETS if quick else tuple(sorted(DATA))
    runs, skipped_sets, seconds = measure_sets(sets)
    return judge_runs(runs, skipped_sets, seconds, expected or expected_file(NAME))


def main(argv: Sequence[str] | None = None) -> int:
    parser = gate_parser(__doc__, NAME, quick="the dev set only")
    parser.add_argument("--sets", nargs="+", choices=sorted(DATA), default=sorted(DATA))
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--show", help="list claims this check (or 'any') flagged")
    parser.add_argument("--label", choices=["supported", "not_supported"])
    parser.add_argument("--dataset")
    parser.add_argument("--limit", type=int, default=25)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)

    runs, skipped_sets, seconds = measure_sets(QUICK_SETS if args.quick else args.sets)
    current = {name: figures(run) for name, run in runs.items()}
    if args.show:
        show(runs, args)
    if args.json:
        args.json.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n")
    expected: Path | None = args.expected
    if args.write_expected:
        args.write_expected.parent.mkdir(parents=True, exist_ok=True)
        gated = {
            name: {subset: {PIPELINE: by_check[PIPELINE]} for subset, by_check in sets.items()}
            for name, sets in current.items()
        }
        args.write_expected.write_text(json.dumps(gated, indent=1, sort_keys=True) + "\n")
        expected = None
    return finish(judge_runs(runs, skipped_sets, seconds, expected))


if __name__ == "__main__":
    raise SystemExit(main())
