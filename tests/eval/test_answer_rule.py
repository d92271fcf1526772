"""`judge calibrate` on answer records: a weakest-claim answer threshold apart from t_entail,
stricter or laxer, kept only when it beats the claim rule alone held out, and applied by the
policy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judge.cli.app import main
from judge.config import Settings
from judge.errors import InputError
from judge.eval.calibrate import (
    Objective,
    answer_score,
    calibrate_answer_rule,
    calibrate_predictions,
)
from judge.pipeline.entail.thresholds import active_thresholds
from judge.pipeline.policy import PolicyInput, decide
from judge.schemas import (
    Action,
    CheckOutcome,
    CheckStatus,
    Claim,
    ClaimVerdict,
    JudgeTrace,
    Label,
)


def _answer(
    i: int,
    gold: str,
    score: float | None,
    *,
    passed: bool = True,
    dataset: str = "d",
    by_checks: bool = False,
) -> dict[str, Any]:
    """An answer prediction with one claim: supported when it passed, else unsupported by the
    judge's score (or failed by a number check, ``by_checks``)."""
    label = Label.SUPPORTED if passed else Label.UNSUPPORTED
    verdict = _judged(f"c{i}", label, score, CheckStatus.PASSED)
    if by_checks:
        verdict = ClaimVerdict(
            claim=verdict.claim,
            label=Label.NUMBER_MISMATCH,
            checks=[CheckOutcome(check="numbers", status=CheckStatus.FAILED)],
        )
    return {
        "id": f"a{i}",
        "dataset": dataset,
        "gold": gold,
        "predicted": "faithful" if passed else "hallucinated",
        "action": "pass" if passed else ("block" if by_checks else "repair"),
        "score": score,
        "error": None,
        "verdicts": [verdict.model_dump(mode="json")],
        "coverage_gaps": 0,
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


def test_no_answer_threshold_when_the_checks_already_decide() -> None:
    # The hallucinated answers were failed by a check: no threshold can move them.
    answers = [_answer(i, "faithful", 0.5 + 0.05 * i, dataset="xy"[i % 2]) for i in range(8)]
    answers += [
        _answer(10 + i, "hallucinated", None, passed=False, by_checks=True, dataset="xy"[i % 2])
        for i in range(8)
    ]
    t_answer, record = calibrate_answer_rule(
        answers, Objective("balanced_accuracy"), t_entail=0.4, folds=3
    )
    assert t_answer is None
    assert record["kept"] is None


def test_a_laxer_answer_threshold_is_kept_when_borderline_claims_cost_faithful_answers() -> None:
    # Faithful answers failed by one claim the judge scored 0.25-0.35 (t_entail 0.4); the
    # hallucinated ones' weakest claims sit at 0.05-0.15: an answer threshold near 0.2 wins.
    answers = []
    for d, name in enumerate("xy"):
        for j in range(6):
            answers.append(
                _answer(100 * d + j, "faithful", 0.25 + 0.02 * j, passed=False, dataset=name)
            )
            answers.append(
                _answer(
                    100 * d + 50 + j, "hallucinated", 0.05 + 0.02 * j, passed=False, dataset=name
                )
            )
    t_answer, record = calibrate_answer_rule(
        answers, Objective("balanced_accuracy"), t_entail=0.4, folds=3
    )
    assert t_answer is not None and 0.15 < t_answer < 0.25
    assert record["leave_one_dataset_out"]["fitted"] == 1.0  # type: ignore[index]


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


def _judged(claim_id: str, label: Label, score: float | None, check: CheckStatus) -> ClaimVerdict:
    trace = JudgeTrace(model="m", template="entail_yes_no.j2", template_hash="h")
    return ClaimVerdict(
        claim=Claim(id=claim_id, text="Refunds take five days."),
        label=label,
        score=score,
        checks=[CheckOutcome(check="numbers", status=check)],
        judge=trace if score is not None else None,
    )


def test_policy_tolerates_only_judge_scored_claims_above_a_lax_t_answer() -> None:
    borderline = _judged("c2", Label.UNSUPPORTED, 0.3, CheckStatus.PASSED)
    verdicts = [_supported("c1", 0.9), borderline]
    lax = decide(PolicyInput(verdicts=verdicts, answer=None, t_answer=0.2))
    assert lax.action is Action.PASS and "tolerated by the answer rule" in lax.reasons[0]
    assert decide(PolicyInput(verdicts=verdicts, answer=None)).action is not Action.PASS
    assert (
        decide(PolicyInput(verdicts=verdicts, answer=None, t_answer=0.35)).action is not Action.PASS
    )
    checked = _judged("c3", Label.NUMBER_MISMATCH, None, CheckStatus.FAILED)
    blocked = decide(PolicyInput(verdicts=[*verdicts, checked], answer=None, t_answer=0.0))
    assert blocked.action is Action.BLOCK


def test_policy_regenerates_an_answer_whose_weakest_claim_is_below_t_answer() -> None:
    verdicts = [_supported("c1", 0.9), _supported("c2", 0.55)]
    strict = decide(PolicyInput(verdicts=verdicts, answer=None, t_answer=0.7))
    assert strict.action is Action.REGENERATE
    assert strict.failing_claims == ["c2"] and "t_answer 0.70" in strict.reasons[0]
    assert decide(PolicyInput(verdicts=verdicts, answer=None)).action is Action.PASS
    assert decide(PolicyInput(verdicts=verdicts, answer=None, t_answer=0.5)).action is Action.PASS


def test_a_prediction_whose_verdicts_are_not_verdicts_is_refused_by_name() -> None:
    broken = _answer(7, "faithful", 0.6, passed=False)
    broken["verdicts"] = [{"label": "unsupported", "score": 0.6}]  # no claim
    with pytest.raises(InputError, match="a7") as info:
        answer_score(broken)
    assert info.value.field == "verdicts"


def test_the_answer_score_weighs_only_claims_the_judge_scored_alone() -> None:
    # The policy's own predicate: an unsupported claim with a failed check was not decided by
    # the judge's score, so no answer threshold can rescue its answer.
    judged = _answer(1, "faithful", 0.38, passed=False)
    assert answer_score(judged) == pytest.approx(0.38)
    checked = dict(judged, verdicts=[_judged("c1", Label.UNSUPPORTED, 0.38, CheckStatus.FAILED)])
    checked["verdicts"] = [v.model_dump(mode="json") for v in checked["verdicts"]]
    assert answer_score(checked) == float("-inf")
