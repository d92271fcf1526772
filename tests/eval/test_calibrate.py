"""Threshold choice: objectives on the flagged class, cross-validation, the calibration file."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from judge.cli.app import main
from judge.config import Settings
from judge.errors import CalibrationInfeasible, InputError
from judge.eval.calibrate import (
    Objective,
    calibrate_predictions,
    candidate_thresholds,
    choose_threshold,
    cross_validate_threshold,
    operating_point,
    stratified_folds,
)
from judge.pipeline.entail.thresholds import active_thresholds

# P(supported) of six claims and whether each is gold-supported. Candidates (midpoints and ends):
# 0, 0.1, 0.3, 0.475, 0.575, 0.7, 0.85, 0.95, 1. Flagging below t, with the flagged class the
# three unsupported claims (0.2, 0.4, 0.6):
#   t=0.3   flags 0.2                 precision 1,   recall 1/3
#   t=0.475 flags 0.2 0.4             precision 1,   recall 2/3, balanced accuracy 5/6
#   t=0.575 flags 0.2 0.4 0.55        precision 2/3, recall 2/3
#   t=0.7   flags 0.2 0.4 0.55 0.6    precision 3/4, recall 1,   balanced accuracy 5/6
#   t=0.85  flags five                precision 3/5, recall 1
SCORES = [0.2, 0.4, 0.55, 0.6, 0.8, 0.9]
SUPPORTED = [False, False, True, False, True, True]
FLAGGED_CLASS = [not s for s in SUPPORTED]


def test_candidates_lie_between_scores() -> None:
    assert candidate_thresholds(SCORES) == pytest.approx(
        [0.0, 0.1, 0.3, 0.475, 0.575, 0.7, 0.85, 0.95, 1.0]
    )
    assert candidate_thresholds([0.0, 1.0, -math.inf, math.inf]) == [0.0, 0.5, 1.0]


@pytest.mark.parametrize(
    ("objective", "expected"),
    [
        ("precision=0.9", 0.475),  # most flags at precision >= 0.9
        ("precision=0.75", 0.7),  # 0.7 reaches precision 3/4 with full recall
        ("recall=1.0", 0.7),  # full recall with the fewest false flags
        ("recall=0.6", 0.475),  # recall 2/3 at precision 1
        ("balanced_accuracy", 0.475),  # ties with 0.7 at 5/6; nearer the preferred 0.5
    ],
)
def test_choose_threshold_meets_objective(objective: str, expected: float) -> None:
    point = choose_threshold(SCORES, FLAGGED_CLASS, Objective.parse(objective), flag_below=True)
    assert point.threshold == pytest.approx(expected)


def test_balanced_accuracy_tie_goes_to_preferred_threshold() -> None:
    point = choose_threshold(
        SCORES, FLAGGED_CLASS, Objective("balanced_accuracy"), flag_below=True, prefer=0.7
    )
    assert point.threshold == pytest.approx(0.7)
    assert point.balanced_accuracy == pytest.approx(5 / 6)


def test_operating_point_numbers() -> None:
    point = operating_point(SCORES, FLAGGED_CLASS, 0.7, flag_below=True)
    assert (point.flagged, point.true_flags, point.positives) == (4, 3, 3)
    assert point.precision == 0.75
    assert point.recall == 1.0
    interval = point.as_record()["precision_ci95"]
    assert isinstance(interval, list)
    assert interval[0] < 0.75 < interval[1]


def test_unreachable_precision_is_refused() -> None:
    # The lowest score belongs to a supported claim, so any flag includes a false one.
    with pytest.raises(CalibrationInfeasible, match=r"best reachable is 0\.500"):
        choose_threshold(
            [0.1, 0.5], [False, True], Objective.parse("precision=0.9"), flag_below=True
        )


def test_one_class_only_is_refused() -> None:
    with pytest.raises(CalibrationInfeasible, match="both classes"):
        choose_threshold([0.1, 0.5], [True, True], Objective("balanced_accuracy"), flag_below=True)


def test_fixed_decisions_count_but_do_not_move() -> None:
    # -inf: flagged by an exact check whatever the threshold; it is a true flag here, so
    # precision stays 1 with one more flag than the scores alone give.
    point = operating_point([*SCORES, -math.inf], [*FLAGGED_CLASS, True], 0.475, flag_below=True)
    assert (point.flagged, point.true_flags) == (3, 3)


def test_contradiction_threshold_flags_at_or_above() -> None:
    # P(contradicted): contradicted claims at 0.7 and 0.9, others at 0.1 and 0.3.
    point = choose_threshold(
        [0.1, 0.7, 0.3, 0.9],
        [False, True, False, True],
        Objective("balanced_accuracy"),
        flag_below=False,
    )
    assert point.threshold == pytest.approx(0.5)
    assert point.balanced_accuracy == 1.0


@pytest.mark.parametrize("text", ["precision", "precision=2", "recall=abc", "f1", "accuracy=0.5"])
def test_bad_objectives_are_input_errors(text: str) -> None:
    with pytest.raises(InputError):
        Objective.parse(text)


def test_stratified_folds_partition_and_spread_labels() -> None:
    labels = [True] * 6 + [False] * 9
    folds = stratified_folds(labels, 3, seed=1)
    assert sorted(i for fold in folds for i in fold) == list(range(15))
    assert [sum(labels[i] for i in fold) for fold in folds] == [2, 2, 2]
    assert folds == stratified_folds(labels, 3, seed=1)
    assert folds != stratified_folds(labels, 3, seed=2)


def test_cross_validation_tunes_on_training_folds_only() -> None:
    scores = [0.05, 0.1, 0.2, 0.3, 0.45, 0.5, 0.55, 0.6, 0.7, 0.8, 0.85, 0.9]
    supported = [False, False, False, True, False, False, True, False, True, True, True, True]
    objective = Objective("balanced_accuracy")
    result = cross_validate_threshold(scores, supported, 3, objective, seed=4)
    folds = stratified_folds([not s for s in supported], 3, seed=4)
    assert result.folds == folds
    for fold, threshold in zip(folds, result.thresholds, strict=True):
        train = [i for i in range(len(scores)) if i not in fold]
        expected = choose_threshold(
            [scores[i] for i in train],
            [not supported[i] for i in train],
            objective,
            flag_below=True,
        )
        assert threshold == pytest.approx(expected.threshold)
    values = [v for v in result.heldout_balanced_accuracy if v is not None]
    assert result.mean == pytest.approx(sum(values) / len(values))
    assert result.std is not None


def test_cross_validation_on_separable_scores_is_perfect() -> None:
    scores = [0.1, 0.15, 0.2, 0.25, 0.3, 0.7, 0.75, 0.8, 0.85, 0.9]
    supported = [False] * 5 + [True] * 5
    result = cross_validate_threshold(scores, supported, 5, Objective("balanced_accuracy"), 0)
    assert result.heldout_balanced_accuracy == [1.0] * 5
    assert (result.mean, result.std) == (1.0, 0.0)


def test_cross_validation_rejects_bad_k() -> None:
    with pytest.raises(ValueError, match="k must lie"):
        cross_validate_threshold([0.1, 0.9], [False, True], 3, Objective("balanced_accuracy"))


def _prediction(
    i: int, gold: str, score: float | None, contra: float | None = None, **extra: Any
) -> dict[str, Any]:
    predicted = "supported" if score is not None and score >= 0.5 else "unsupported"
    return {
        "id": f"r{i}",
        "dataset": extra.pop("dataset", "d"),
        "gold": gold,
        "predicted": extra.pop("predicted", predicted),
        "score": score,
        "contradiction_score": contra,
        "error": None,
        **extra,
    }


def _write(path: Path, predictions: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(p) + "\n" for p in predictions), encoding="utf-8")
    return path


# Gold-supported claims at 0.8 and 0.9, unsupported at 0.55 and 0.6: the best balanced accuracy
# lies between 0.6 and 0.8, at 0.7.
CALIBRATION_SET = [
    _prediction(1, "supported", 0.8),
    _prediction(2, "supported", 0.9),
    _prediction(3, "unsupported", 0.55),
    _prediction(4, "unsupported", 0.6),
]


def test_calibrate_predictions_records_objective_and_keeps_unscored_contra() -> None:
    result = calibrate_predictions(
        CALIBRATION_SET,
        Objective("balanced_accuracy"),
        t_entail_default=0.5,
        t_contra_default=0.45,
        folds=5,
    )
    assert result.t_entail == pytest.approx(0.7)
    assert result.t_contra == 0.45
    assert result.record["n"] == 4
    assert "skipped" in result.record["cross_validation"]  # type: ignore[operator]
    assert result.record["t_contra_calibration"] == {
        "kept": 0.45,
        "reason": "no contradiction labels with scores",
    }


def test_calibrate_predictions_tunes_contra_where_labelled() -> None:
    predictions = [
        *CALIBRATION_SET,
        _prediction(5, "contradicted", 0.1, 0.8, dataset="c", predicted="contradicted"),
        _prediction(6, "supported", 0.9, 0.05, dataset="c"),
        _prediction(7, "unsupported", 0.3, 0.4, dataset="c"),
        # A dataset without contradiction labels: its score must not count for t_contra.
        _prediction(8, "unsupported", 0.3, 0.99),
    ]
    result = calibrate_predictions(
        predictions, Objective("balanced_accuracy"), t_entail_default=0.5, t_contra_default=0.5
    )
    assert result.t_contra == pytest.approx(0.6)  # halfway between 0.4 and 0.8
    assert result.record["t_contra_calibration"]["datasets"] == ["c"]  # type: ignore[index]


def test_contradicted_prediction_stays_flagged_for_t_entail() -> None:
    # Score 0.95 but contradicted: contradiction is decided first, so raising t_entail above it
    # gains nothing; the best threshold separates the rest.
    predictions = [
        *CALIBRATION_SET,
        _prediction(5, "contradicted", 0.95, 0.9, predicted="contradicted"),
    ]
    result = calibrate_predictions(
        predictions, Objective("balanced_accuracy"), t_entail_default=0.5, t_contra_default=0.5
    )
    assert result.t_entail == pytest.approx(0.7)
    assert result.record["expected_in_sample"]["balanced_accuracy"] == 1.0  # type: ignore[index]


def test_judge_calibrate_writes_the_file_verify_loads(tmp_path: Path) -> None:
    state = tmp_path / "state"
    settings = Settings(state_dir=state)
    before = active_thresholds(settings)
    assert (before.t_entail, before.source) == (Settings().t_entail, "defaults")

    pred = _write(tmp_path / "pred.jsonl", CALIBRATION_SET)
    out = state / "calibration.json"
    code = main(["calibrate", str(pred), "--target", "balanced_accuracy", "--out", str(out)])
    assert code == 0
    after = active_thresholds(settings)
    assert after.t_entail == pytest.approx(0.7)
    assert after.source == str(out)
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written["objective"] == "balanced_accuracy"
    assert written["expected_in_sample"]["precision"] == 1.0
    assert written["source"]["path"] == str(pred)
    # the thresholds hold for the slope the scores were read with, which the file records
    assert written["length_slope"] == settings.length_slope
    assert after.length_slope == settings.length_slope


def test_judge_calibrate_fails_without_writing_when_unreachable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pred = _write(
        tmp_path / "pred.jsonl",
        [_prediction(1, "supported", 0.1), _prediction(2, "unsupported", 0.5)],
    )
    out = tmp_path / "cal.json"
    code = main(["calibrate", str(pred), "--target", "precision=0.9", "--out", str(out)])
    assert code == 3
    assert "no threshold reaches precision 0.9" in capsys.readouterr().err
    assert not out.exists()
