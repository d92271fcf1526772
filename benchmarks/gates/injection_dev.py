"""False flags of the injection detector on the human-labelled dev set.

None of the dev records carries an injection, so every record the detector flags is a false
flag. A record is what the injection screen reads for it: every evidence passage (the screen
reads the passages a claim cites, so every passage counts), and the claim (dev_claims.jsonl)
or the answer (dev_answers.jsonl). Prints the rate per file and dataset and every flagged span.

The command exits 1 when the share of records flagged reaches the 1 % limit, or rises by more
than 0.25 points over the committed figure (``gates/expected/injection_dev.json``, or
``--expected FILE``).

    python -m benchmarks.gates.injection_dev [--data ../shared/data/dev]

Judge: none. Time on the 2-core development machine: under a second (2026-12-04).
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.common import (
    DEV,
    GateResult,
    compared_with,
    expected_file,
    finish,
    gate_parser,
    judged,
    missing_data,
    percent,
    read_expected,
    skipped,
    write_expected,
)
from judge.reading.injection import find_injections

NAME = "injection_dev"
FILES = (("dev_claims.jsonl", "claim"), ("dev_answers.jsonl", "answer"))
LIMIT = 1.0  # the detector must flag under 1 % of clean records
# Points the share of records flagged may rise over the committed figure.
TOLERANCE = 0.25


def flagged_spans(record: dict[str, object], field: str) -> list[str]:
    evidence = record["evidence"]
    assert isinstance(evidence, list)
    spans = [
        f"passage {passage['id']}: {finding.kind.value} {finding.text!r}"
        for passage in evidence
        for finding in find_injections(str(passage["text"]) + "\n" + str(passage.get("source", "")))
    ]
    spans += [f"{field}: {f.kind.value} {f.text!r}" for f in find_injections(str(record[field]))]
    return spans


def measure(data: Path) -> tuple[dict[str, Any], list[str]]:
    """Per file: records, passages and records flagged; the flagged spans, for the report."""
    files: dict[str, dict[str, Any]] = {}
    details: list[str] = []
    by_dataset: Counter[str] = Counter()
    for name, field in FILES:
        lines = (data / name).read_text(encoding="utf-8").splitlines()
        records = [json.loads(line) for line in lines if line.strip()]
        hits = 0
        for record in records:
            spans = flagged_spans(record, field)
            if spans:
                hits += 1
                by_dataset[record["dataset"]] += 1
                details.append(f"- {record['id']}: " + "; ".join(spans))
        files[name] = {
            "records": len(records),
            "passages": sum(len(r["evidence"]) for r in records),
            "flagged": hits,
            "flagged_rate": percent(hits, len(records)),
        }
    total = sum(f["records"] for f in files.values())
    flagged = sum(f["flagged"] for f in files.values())
    details += [f"- {dataset}: {count} flagged" for dataset, count in sorted(by_dataset.items())]
    figures = {
        "files": files,
        "all": {"records": total, "flagged": flagged, "flagged_rate": percent(flagged, total)},
    }
    return figures, details


def regressions(current: dict[str, Any], expected: dict[str, Any] | None) -> list[str]:
    now = current["all"]
    found = []
    if now["flagged_rate"] >= LIMIT:
        found.append(f"{now['flagged']}/{now['records']} records flagged: not below {LIMIT} %")
    if expected is not None:
        was = expected["all"]
        rise = now["flagged_rate"] - was["flagged_rate"]
        if rise > TOLERANCE:
            found.append(
                f"records flagged {was['flagged']}/{was['records']} ({was['flagged_rate']}%) -> "
                f"{now['flagged']}/{now['records']} ({now['flagged_rate']}%, +{rise:.2f} points)"
            )
    return found


def report(figures: dict[str, Any], details: list[str]) -> str:
    lines = ["| file | records | passages | flagged | rate |", "|---|---|---|---|---|"]
    for name, row in figures["files"].items():
        lines.append(
            f"| {name} | {row['records']} | {row['passages']} | {row['flagged']} | "
            f"{row['flagged_rate']:.2f}% |"
        )
    every = figures["all"]
    lines.append(
        f"| all | {every['records']} | | {every['flagged']} | {every['flagged_rate']:.2f}% |"
    )
    return "\n".join([*lines, "", *details])


def run(data: Path, expected: Path | None) -> tuple[GateResult, dict[str, Any] | None]:
    reason = missing_data(*(data / name for name, _ in FILES))
    if reason is not None:
        return skipped(NAME, reason), None
    started = time.perf_counter()
    figures, details = measure(data)
    seconds = time.perf_counter() - started
    problems = regressions(figures, read_expected(expected))
    every = figures["all"]
    summary = (
        f"false flags {every['flagged']}/{every['records']} records "
        f"({every['flagged_rate']:.2f} %, limit {LIMIT:g} %)"
    )
    return judged(NAME, summary, problems, seconds, report(figures, details)), figures


def gate(quick: bool = False, expected: Path | None = None) -> GateResult:
    """The injection screen's false flags against the committed figures (quick)."""
    return run(DEV, expected or expected_file(NAME))[0]


def main(argv: Sequence[str] | None = None) -> int:
    parser = gate_parser(__doc__, NAME)
    parser.add_argument("--data", type=Path, default=DEV)
    args = parser.parse_args(argv)
    result, figures = run(args.data, compared_with(args))
    if args.write_expected and figures is not None:
        write_expected(args.write_expected, figures, result.seconds)
    return finish(result)


if __name__ == "__main__":
    sys.exit(main())
