"""`judge calibrate` on answer records: a weakest-claim answer threshold apart from t_entail,
kept only when it beats the claim rule alone held out, and applied by the policy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judge.cli.app import main
from judge.config import Settings
from judge.eval.calibrate import Objective, calibrate_answer_rule, calibrate_predictions
from judge.pipeline.entail.thresholds import active_thresholds
from judge.pipeline.policy import PolicyInput, decide
from judge.schemas import Action, Claim, ClaimVerdict, Label


def _answer(
    i: int, gold: str, score: float | None, *, passed: bool = True, dataset: str = "d"
) -> dict[str, Any]:
    return {
        "id": f"a{i}",
        "dataset": dataset,
        "gold": gold,
        "predicted": "faithful" if passed else "hallucinated",
        "action": "pass" if passed else "block",
        "score": score,
        "error": None,
    }


def _separable(datasets: tuple[str, ...] = ("x", "y")) -> list[dict[str, Any]]:
    # Every answer passed the claim rule (t_entail 0.4); the faithful ones' weakest claims sit
    # at 0.8-0.9, the hallucinated ones' at 0.45-0.6: an answer threshold near 0.7 separates them.
    out = []
    for d, name in enumerate(datasets):
        for j in range(6):
            out.append(_answer(100 * d + j, "faithful", 0.8 + 0.02 * j, dataset=name))
            out.append(_answer(100 * d + 50 + j, "hallucinated", 0.45 + 0.03 * j, dataset=name))
    return out


def test_a_stricter_answer_threshold_is_kept_when_it_wins_held_out() -> None:
    t_answer, record = calibrate_answer_rule(
        _separable(), Objective("balanced_accuracy"), t_entail=0.4, folds=3
    )
    assert t_answer is not None and 0.6 < t_answer < 0.8
    assert record["leave_one_dataset_out"]["fitted"] == 1.0  # type: ignore[index]
    assert record["leave_one_dataset_out"]["claim_rule_alone"] == 0.5  # type: ignore[index]


def test_no_answer_threshold_when_the_claim_rule_already_decides() -> None:
    # The hallucinated answers were already failed by their claims: nothing left to gain.
    answers = [_answer(i, "faithful", 0.5 + 0.05 * i, dataset="xy"[i % 2]) for i in range(8)]
    answers += [
        _answer(10 + i, "hallucinated", None, passed=False, dataset="xy"[i % 2]) for i in range(8)
    ]
    t_answer, record = calibrate_answer_rule(
        answers, Objective("balanced_accuracy"), t_entail=0.4, folds=3
    )
    assert t_answer is None
    assert record["kept"] is None


def test_the_answer_threshold_is_never_below_t_entail() -> None:
    answers = [_answer(i, "faithful", 0.9, dataset="xy"[i % 2]) for i in range(6)]
    answers += [_answer(10 + i, "hallucinated", 0.95, dataset="xy"[i % 2]) for i in range(6)]
    t_answer, _ = calibrate_answer_rule(
        answers, Objective("balanced_accuracy"), t_entail=0.4, folds=3
    )
    assert t_answer is None or t_answer >= 0.4


def test_answer_records_alone_keep_t_entail_and_fit_t_answer() -> None:
    result = calibrate_predictions(
        _separable(),
        Objective("balanced_accuracy"),
        t_entail_default=0.4,
        t_contra_default=0.5,
        folds=3,
    )
    assert result.t_entail == 0.4
    assert result.t_answer is not None


def test_judge_calibrate_writes_t_answer_and_verify_applies_it(tmp_path: Path) -> None:
    pred = tmp_path / "answers.jsonl"
    pred.write_text("".join(json.dumps(p) + "\n" for p in _separable()), encoding="utf-8")
    out = tmp_path / "state" / "calibration.json"
    code = main(
        ["calibrate", str(pred), "--target", "balanced_accuracy", "--out", str(out), "--folds", "3"]
    )
    assert code == 0
    thresholds = active_thresholds(Settings(calibration_file=out))
    assert thresholds.t_answer == pytest.approx(json.loads(out.read_text())["t_answer"])


def _supported(claim_id: str, score: float) -> ClaimVerdict:
    return ClaimVerdict(
        claim=Claim(id=claim_id, text="Refunds take five days."), label=Label.SUPPORTED, score=score
    )


def test_policy_regenerates_an_answer_whose_weakest_claim_is_below_t_answer() -> None:
    verdicts = [_supported("c1", 0.9), _supported("c2", 0.55)]
    strict = decide(PolicyInput(verdicts=verdicts, answer=None, t_answer=0.7))
    assert strict.action is Action.REGENERATE
    assert strict.failing_claims == ["c2"] and "t_answer 0.70" in strict.reasons[0]
    assert decide(PolicyInput(verdicts=verdicts, answer=None)).action is Action.PASS
    assert decide(PolicyInput(verdicts=verdicts, answer=None, t_answer=0.5)).action is Action.PASS
