"""Leave-one-dataset-out: each group's threshold is tuned without it; predictions pool."""

from __future__ import annotations

import math

import pytest

from judge.eval.crossval import leave_one_group_out


def test_each_group_is_scored_with_a_threshold_tuned_on_the_others() -> None:
    # Group "a" separates at 0.5, group "b" at 0.8, group "c" at 0.2: a threshold tuned on
    # the others cannot fit the held-out group exactly, unlike one tuned on all records.
    scores = [0.4, 0.6, 0.7, 0.9, 0.1, 0.3]
    supported = [False, True, False, True, False, True]
    groups = ["a", "a", "b", "b", "c", "c"]
    result = leave_one_group_out(scores, supported, groups)
    assert set(result.thresholds) == {"a", "b", "c"}
    for name, threshold in result.thresholds.items():
        assert threshold is not None
        held = [i for i, g in enumerate(groups) if g == name]
        assert [result.predicted[i] for i in held] == [scores[i] >= threshold for i in held]
    # Tuned on b and c (cut anywhere from 0.3 to 0.7 serves them no better than another), a's
    # threshold is tuned away from b's 0.8: at least one group is misjudged.
    assert result.pooled is not None and result.pooled < 1.0
    assert result.per_group["a"] is not None


def test_perfectly_shared_threshold_scores_one() -> None:
    scores = [0.2, 0.8, 0.1, 0.9, 0.3, 0.7]
    supported = [False, True, False, True, False, True]
    result = leave_one_group_out(scores, supported, ["a", "a", "b", "b", "c", "c"])
    assert result.pooled == pytest.approx(1.0)
    assert all(v == pytest.approx(1.0) for v in result.per_group.values())


def test_a_group_with_one_class_has_no_score_of_its_own_and_fixed_decisions_stay() -> None:
    scores = [0.2, 0.8, -math.inf, 0.9, math.inf, 0.1]
    supported = [False, True, False, True, True, False]
    groups = ["a", "a", "b", "b", "one", "one"]
    result = leave_one_group_out(scores, supported, groups)
    assert result.predicted[2] is False and result.predicted[4] is True
    groups_single = ["a", "a", "b", "b", "only", "only"]
    single = leave_one_group_out(scores, [False, True, False, True, True, True], groups_single)
    assert single.per_group["only"] is None


def test_training_with_one_class_gives_no_threshold_and_flags() -> None:
    result = leave_one_group_out([0.9, 0.1], [True, False], ["pos", "neg"])
    assert result.thresholds == {"neg": None, "pos": None}
    assert result.predicted == [False, False]


def test_inputs_must_align_and_need_two_groups() -> None:
    with pytest.raises(ValueError):
        leave_one_group_out([0.1], [True, False], ["a", "b"])
    with pytest.raises(ValueError):
        leave_one_group_out([0.1, 0.9], [False, True], ["a", "a"])
