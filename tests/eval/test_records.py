"""Evaluation files: records in (meta kept out), predictions appended and resumed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judge.errors import InputError
from judge.eval.records import (
    PredictionWriter,
    load_records,
    read_predictions,
    resume_predictions,
)
from judge.eval.report import build_report

CLAIM = {
    "id": "c1",
    "dataset": "d",
    "evidence": [{"id": "p1", "text": "The harbour freezes in January."}],
    "claim": "The harbour freezes in January.",
    "label": "supported",
    "meta": {"numeric": False, "original_summary": "never shown"},
}


def _write_lines(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_records_keep_only_numeric_from_meta(tmp_path: Path) -> None:
    [record] = load_records(_write_lines(tmp_path / "r.jsonl", [CLAIM]))
    assert (record.kind, record.text, record.gold, record.numeric) == (
        "claim",
        CLAIM["claim"],
        "supported",
        False,
    )
    assert "never shown" not in repr(record)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"label": "faithful"}, "is not one of"),
        ({"answer": "Also an answer."}, "exactly one of"),
        ({"evidence": []}, "non-empty list"),
        ({"evidence": ["text"]}, "each evidence passage"),
        ({"id": ""}, "'id' must be"),
    ],
)
def test_bad_records_name_the_line(tmp_path: Path, change: dict[str, Any], message: str) -> None:
    path = _write_lines(tmp_path / "r.jsonl", [{**CLAIM, "id": "c0"}, {**CLAIM, **change}])
    with pytest.raises(InputError, match=message) as caught:
        load_records(path)
    assert f"{path}:2" in str(caught.value)


def test_duplicate_ids_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="duplicate record id"):
        load_records(_write_lines(tmp_path / "r.jsonl", [CLAIM, CLAIM]))


def test_resume_cuts_a_torn_last_line(tmp_path: Path) -> None:
    path = tmp_path / "pred.jsonl"
    with PredictionWriter(path) as writer:
        writer.write({"id": "a", "error": None})
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"id": "b", "err')
    assert [p["id"] for p in read_predictions(path)] == ["a"]
    assert [p["id"] for p in resume_predictions(path)] == ["a"]
    with PredictionWriter(path) as writer:
        writer.write({"id": "b", "error": None})
    assert [p["id"] for p in read_predictions(path)] == ["a", "b"]


def test_resume_can_drop_errors(tmp_path: Path) -> None:
    path = _write_lines(
        tmp_path / "pred.jsonl", [{"id": "a", "error": None}, {"id": "b", "error": "boom"}]
    )
    assert [p["id"] for p in resume_predictions(path)] == ["a", "b"]
    assert [p["id"] for p in resume_predictions(path, drop_errors=True)] == ["a"]
    assert [p["id"] for p in read_predictions(path)] == ["a"]


def test_a_corrupt_line_inside_the_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "pred.jsonl"
    path.write_text('{"id": "a"}\nnot json\n{"id": "c"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=":2: malformed prediction"):
        read_predictions(path)


def _prediction(
    i: int, dataset: str, gold: str, predicted: str, score: float | None, **extra: Any
) -> dict[str, Any]:
    return {
        "id": f"r{i}",
        "dataset": dataset,
        "gold": gold,
        "predicted": predicted,
        "score": score,
        "numeric": extra.pop("numeric", False),
        "error": extra.pop("error", None),
        "judge_calls": extra.pop("judge_calls", 1),
        "prompt_tokens": 100,
        "completion_tokens": 20,
        "seconds": 2.0,
        "decided_by_checks": extra.pop("decided_by_checks", False),
        **extra,
    }


def test_report_numbers_and_breakdowns() -> None:
    predictions = [
        _prediction(1, "A", "supported", "supported", 0.9, numeric=True),
        _prediction(2, "A", "unsupported", "unsupported", 0.2),
        _prediction(3, "A", "supported", "unsupported", None, error="verifier_error: x"),
        _prediction(
            4,
            "B",
            "contradicted",
            "unsupported",
            None,
            judge_calls=0,
            decided_by_checks=True,
            numeric=True,
        ),
        _prediction(5, "B", "supported", "supported", 0.7, contradiction_score=0.1),
        _prediction(6, "B", "contradicted", "contradicted", 0.1, contradiction_score=0.8),
        _prediction(7, "A", "unsupported", "unsupported", 0.3, contradiction_score=0.95),
    ]
    report = build_report(predictions)
    claims = report["claims"]
    assert (report["n"], report["errors"], claims["errors"]) == (7, 1, 1)
    # Supported recall 2/3 (r3 missed), not-supported recall 4/4: (2/3 + 1) / 2.
    assert claims["balanced_accuracy"] == pytest.approx(5 / 6)
    assert claims["confusion"]["matrix"] == [[2, 1, 0], [0, 2, 0], [0, 1, 1]]
    assert claims["labels"]["contradicted"]["recall"] == 0.5
    # Scored: 0.9 S, 0.2 U, 0.7 S, 0.1 C, 0.3 U: every supported above every other -> 1.0.
    assert (claims["scored"], claims["roc_auc"]) == (5, 1.0)
    # Contradiction scores only from dataset B, which labels contradiction: r7 (A) is left out.
    assert claims["contradiction_roc_auc"] == 1.0
    assert claims["decided_by_checks_share"] == pytest.approx(1 / 7)
    assert claims["judge_calls_per_claim"] == pytest.approx(6 / 7)
    assert claims["seconds_per_claim"] == pytest.approx(2.0)
    assert claims["by_dataset"]["B"]["n"] == 3
    assert claims["by_numeric"]["numeric"]["n"] == 2
    assert "answers" not in report


def test_report_of_answers_uses_faithful_as_positive() -> None:
    predictions = [
        _prediction(1, "S", "faithful", "faithful", 0.8, claims=3, claims_by_checks=0),
        _prediction(2, "S", "hallucinated", "faithful", 0.6, claims=2, claims_by_checks=1),
        _prediction(3, "S", "hallucinated", "hallucinated", None, claims=1, claims_by_checks=1),
    ]
    answers = build_report(predictions)["answers"]
    assert answers["balanced_accuracy"] == pytest.approx(0.75)
    assert answers["claims"] == 6
    assert answers["decided_by_checks_share"] == pytest.approx(2 / 6)
    assert answers["judge_calls_per_claim"] == pytest.approx(3 / 6)
    assert "contradiction_roc_auc" not in answers
