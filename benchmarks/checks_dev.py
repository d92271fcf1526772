"""Measure the deterministic checks on the human-labelled development claims.

Each claim is checked against all of its evidence passages joined with blank lines. A check
"flags" a claim when it returns FAILED or NEEDS_REVIEW. Reported per check, for all claims and
for the claims the data marks as numeric:

    fired      claims the check had something to look at (not None)
    flagged    claims it flagged
    false-flag flagged supported claims / supported claims
    precision  flagged not-supported claims / flagged claims
    recall     flagged not-supported claims / not-supported claims

The row ``any`` is the pipeline's view: a claim is flagged when any check flags it. Then, per
check and per dataset, its false flags (flagged supported claims) and its catches (flagged
not-supported claims), the checks' cost on each source of data.

    python benchmarks/checks_dev.py [--data PATH] [--show CHECK] [--show-label supported]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from judge.pipeline.checks import default_checks
from judge.protocols import Check
from judge.schemas import CheckOutcome, CheckStatus

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT / ".." / "shared" / "data" / "dev" / "dev_claims.jsonl"


@dataclass(frozen=True)
class Record:
    id: str
    dataset: str
    claim: str
    evidence: str
    supported: bool
    numeric: bool


@dataclass
class Tally:
    fired: int = 0
    flagged: int = 0
    flagged_supported: int = 0
    flagged_unsupported: int = 0
    supported: int = 0
    unsupported: int = 0
    examples: list[tuple[Record, CheckOutcome]] = field(default_factory=list)

    def add(self, record: Record, outcome: CheckOutcome | None) -> None:
        self.supported += record.supported
        self.unsupported += not record.supported
        if outcome is None:
            return
        self.fired += 1
        if outcome.status is CheckStatus.PASSED:
            return
        self.flagged += 1
        self.flagged_supported += record.supported
        self.flagged_unsupported += not record.supported
        self.examples.append((record, outcome))

    def row(self, name: str) -> str:
        false_flag = _ratio(self.flagged_supported, self.supported)
        precision = _ratio(self.flagged_unsupported, self.flagged)
        recall = _ratio(self.flagged_unsupported, self.unsupported)
        return (
            f"{name:<12}{self.fired:>7}{self.flagged:>9}"
            f"{false_flag:>12}{precision:>11}{recall:>9}"
            f"   ({self.flagged_supported}/{self.supported} supported,"
            f" {self.flagged_unsupported}/{self.unsupported} not supported)"
        )


def _ratio(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def load(path: Path) -> list[Record]:
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
                    evidence="\n\n".join(p["text"] for p in raw["evidence"]),
                    supported=raw["label"] == "supported",
                    numeric=bool(raw.get("meta", {}).get("numeric")),
                )
            )
    return records


class _Any:
    """The pipeline's view: the first outcome that does not pass, else the first that passed."""

    name = "any"

    def __init__(self, checks: Sequence[Check]) -> None:
        self.checks = checks

    def __call__(self, outcomes: Iterable[CheckOutcome | None]) -> CheckOutcome | None:
        present = [o for o in outcomes if o is not None]
        failing = [o for o in present if o.status is not CheckStatus.PASSED]
        chosen = failing or present
        return chosen[0] if chosen else None


def measure(records: Sequence[Record]) -> tuple[dict[str, dict[str, Tally]], dict[str, float]]:
    checks = default_checks()
    combined = _Any(checks)
    names = [c.name for c in checks] + [combined.name]
    subsets = ["all", "numeric", *sorted({f"dataset:{r.dataset}" for r in records})]
    tallies = {subset: {n: Tally() for n in names} for subset in subsets}
    seconds = {n: 0.0 for n in names}
    for record in records:
        outcomes = []
        for check in checks:
            started = time.perf_counter()
            outcome = check(record.claim, record.evidence)
            seconds[check.name] += time.perf_counter() - started
            outcomes.append(outcome)
        outcomes.append(combined(outcomes))
        for name, outcome in zip(names, outcomes, strict=True):
            tallies["all"][name].add(record, outcome)
            if record.numeric:
                tallies["numeric"][name].add(record, outcome)
            tallies[f"dataset:{record.dataset}"][name].add(record, outcome)
    return tallies, seconds


def print_by_dataset(tallies: dict[str, dict[str, Tally]]) -> None:
    """Per check, per dataset: false flags on supported claims, catches on the others."""
    datasets = [s for s in tallies if s.startswith("dataset:")]
    print("\n== per dataset: false flags / supported, catches / not supported")
    print(f"{'check':<12}" + "".join(f"{s.removeprefix('dataset:')[:17]:>19}" for s in datasets))
    for name in tallies["all"]:
        cells = []
        for subset in datasets:
            t = tallies[subset][name]
            cells.append(
                f"{t.flagged_supported}/{t.supported} {t.flagged_unsupported}/{t.unsupported}"
            )
        print(f"{name:<12}" + "".join(f"{c:>19}" for c in cells))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--show", help="list the claims this check flagged")
    parser.add_argument("--show-label", choices=["supported", "not_supported"])
    args = parser.parse_args(argv)
    if not args.data.exists():
        print(f"no development data at {args.data}", file=sys.stderr)
        return 2
    records = load(args.data)
    tallies, seconds = measure(records)
    header = (
        f"{'check':<12}{'fired':>7}{'flagged':>9}{'false-flag':>12}{'precision':>11}{'recall':>9}"
    )
    for subset in ("all", "numeric"):
        by_check = tallies[subset]
        count = sum(1 for r in records if subset == "all" or r.numeric)
        print(f"\n== {subset} claims ({count})")
        print(header)
        for name, tally in by_check.items():
            print(tally.row(name))
    print_by_dataset(tallies)
    print("\nseconds: " + ", ".join(f"{n} {s:.2f}" for n, s in seconds.items() if n != "any"))
    if args.show:
        for record, outcome in tallies["all"][args.show].examples:
            label = "supported" if record.supported else "not_supported"
            if args.show_label and label != args.show_label:
                continue
            print(f"\n[{label}] {record.id} ({record.dataset})\n  claim: {record.claim[:300]}")
            print(f"  {outcome.status.value}: {outcome.detail}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
