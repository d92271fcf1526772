"""The value-swap gate (``benchmarks/gates/value_swaps.py``) on records written here: which swaps
and restatements it builds from them, that it records and compares its figures, and that a
regression or a changed set of cases fails it.

The tests do not import the benchmarks (``tests/support/test_boundaries.py``): the gate runs as
its own command, as CI runs it, on a claim file in the shared records' format.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
EARNINGS = (
    "Revenue was $35.1 billion in the third quarter of 2024, up from $30.2 billion a year "
    "earlier. Adjusted earnings per share were $1.45, against GAAP earnings per share of $1.20."
)
RECORDS = [
    ("revenue", "Revenue was $35.1 billion in the third quarter of 2024.", EARNINGS),
    ("basis", "Adjusted earnings per share were $1.45.", EARNINGS),
    (
        "quarters",
        "Sales were $4.2 million in the third quarter.",
        "Sales were $4.2 million in the third quarter. They were $3.9 million in the second.",
    ),
    (
        "plans",
        "The basic plan costs $10 per month.",
        "The basic plan costs $10 per month, and the premium plan costs $25 per month.",
    ),
    (
        "dates",
        "The deal closed on May 1, 2019.",
        "The deal closed on May 1, 2019, and the review ended on June 3, 2020.",
    ),
    ("range", "Sales should grow 3-5% next year.", "Sales should grow 3-5% next year."),
    (
        "ages",
        "It is for children under 12 years old.",
        "It is for children under 12 years old, the agency said.",
    ),
    ("hours", "The flight took 2 hours.", "The flight took 2 hours, as planned."),
    (
        "margin",
        "The operating margin rose from 16.1% to 18.5%.",
        "The operating margin rose from 16.1% to 18.5%.",
    ),
    (
        "growth",
        "Revenue grew from $10 million to $12 million.",
        "Revenue grew from $10 million to $12 million.",
    ),
]
UNSUPPORTED = ("wrong", "Revenue was $35.1 billion in 2023.", EARNINGS)


def record(name: str, claim: str, evidence: str, label: str = "supported") -> dict[str, Any]:
    return {
        "id": name,
        "dataset": "written-here",
        "evidence": [{"id": "e0", "text": evidence}],
        "claim": claim,
        "label": label,
        "meta": {},
    }


def gate(*args: str | Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "benchmarks.gates.value_swaps", *map(str, args)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One run over the records: its exit, its cases and the figures it wrote."""
    folder = tmp_path_factory.mktemp("value_swaps")
    data = folder / "claims.jsonl"
    rows = [record(*r) for r in RECORDS] + [record(*UNSUPPORTED, label="unsupported")]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    cases, expected = folder / "cases.jsonl", folder / "expected.json"
    done = gate("--data", data, "--cases", cases, "--write-expected", expected, "--show", "0")
    lines = cases.read_text(encoding="utf-8").splitlines()
    return {
        "done": done,
        "data": data,
        "folder": folder,
        "cases": [json.loads(line) for line in lines],
        "expected": expected,
    }


def made(built: dict[str, Any], source: str = "claim") -> set[tuple[str, str, str, str]]:
    """(record, family, kind, edited text) of each case from ``source``."""
    return {
        (c["record"], c["family"], c["kind"], c["text"])
        for c in built["cases"]
        if c["source"] == source
    }


def test_the_gate_runs_and_records_its_figures(built: dict[str, Any]) -> None:
    assert built["done"].returncode == 0, built["done"].stderr
    figures = json.loads(built["expected"].read_text(encoding="utf-8"))["full"]
    for family in ("swap", "restatement"):
        count = sum(c["family"] == family for c in built["cases"])
        assert figures[family]["all"]["cases"] == count > 0
    assert set(figures["swap"]["kind"]) <= {"basis", "period", "entity", "metric"}
    assert "evidence" not in built["cases"][0]  # the cases leave the shared text out


def test_a_value_is_swapped_for_one_the_evidence_states_of_another_fact(
    built: dict[str, Any],
) -> None:
    swaps = {(r, kind, text) for r, family, kind, text in made(built) if family == "swap"}
    assert ("revenue", "period", "Revenue was $30.2 billion in the third quarter of 2024.") in swaps
    assert ("basis", "basis", "Adjusted earnings per share were $1.20.") in swaps
    assert ("plans", "entity", "The basic plan costs $25 per month.") in swaps
    assert ("dates", "period", "The deal closed on June 3, 2020.") in swaps
    assert ("quarters", "period", "Sales were $3.9 million in the third quarter.") in swaps
    # Values of other units, scales or currencies are never swapped in: "$1.45" is not a
    # billion, and "2024" only replaces a year.
    texts = {text for _, _, text in swaps}
    assert "Revenue was $1.45 billion in the third quarter of 2024." not in texts
    # Only supported claims are edited; the evidence sentences are a source of their own.
    assert not any(r == "wrong" for r, *_ in made(built))
    # In an evidence sentence, a value is swapped for one another sentence states.
    in_sentences = {(r, text) for r, family, _, text in made(built, "evidence sentence")}
    assert ("quarters", "Sales were $3.9 million in the third quarter.") in in_sentences


def test_restatements_keep_the_value(built: dict[str, Any]) -> None:
    restated = {(r, kind, text) for r, family, kind, text in made(built) if family != "swap"}
    expected = {
        ("dates", "date_no_comma", "The deal closed on May 1 2019."),
        ("dates", "date_day_first", "The deal closed on 1 May 2019."),
        ("dates", "date_iso", "The deal closed on 2019-05-01."),
        ("dates", "date_dotted", "The deal closed on 2019.05.01."),
        ("revenue", "quarter_q", "Revenue was $35.1 billion in Q3 2024."),
        ("revenue", "quarter_shorthand", "Revenue was $35.1 billion in 3Q24."),
        ("range", "range_to", "Sales should grow 3% to 5% next year."),
        ("range", "range_between", "Sales should grow between 3 and 5 percent next year."),
        ("ages", "comparator_words", "It is for children younger than 12 years old."),
        ("hours", "hours_to_minutes", "The flight took 120 minutes."),
        ("margin", "pp_difference", "The operating margin rose by 2.4 percentage points."),
        ("growth", "percent_change", "Revenue grew by 20%."),
    }  # fmt: skip
    assert expected <= restated
    # A layout already written is not "restated" as itself.
    assert ("dates", "date_month_first", "The deal closed on May 1, 2019.") not in restated


def test_a_regression_or_other_cases_fail_the_gate(built: dict[str, Any]) -> None:
    figures = json.loads(built["expected"].read_text(encoding="utf-8"))
    swaps = figures["full"]["swap"]["all"]
    swaps["flagged_rate"] = 101.0  # more than any run can catch: every run is a fall
    figures["full"]["restatement"]["all"]["cases"] += 1  # and had another case
    tampered = built["folder"] / "tampered.json"
    tampered.write_text(json.dumps(figures), encoding="utf-8")
    again = built["folder"] / "again.jsonl"
    done = gate("--data", built["data"], "--expected", tampered, "--cases", again, "--show", "0")
    assert done.returncode == 1
    assert "REGRESSION value_swaps: swap all: caught" in done.stderr
    assert "restatement all:" in done.stderr and "the cases changed" in done.stderr
    # Seeded: the same records give the same cases.
    assert again.read_text(encoding="utf-8") == (built["folder"] / "cases.jsonl").read_text(
        encoding="utf-8"
    )


def test_missing_data_is_a_skip_with_the_reason(tmp_path: Path) -> None:
    done = gate("--data", tmp_path / "absent.jsonl")
    assert done.returncode == 0
    assert "SKIP" in done.stdout and "absent.jsonl" in done.stdout
