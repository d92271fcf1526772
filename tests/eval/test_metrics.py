"""Evaluation metrics against values worked out by hand (the arithmetic is in the comments)."""

from __future__ import annotations

import math

import pytest

from judge.eval.metrics import (
    average_precision,
    balanced_accuracy,
    confusion_matrix,
    expected_calibration_error,
    label_scores,
    midranks,
    precision_recall_curve,
    reliability_bins,
    roc_auc,
    wilson_interval,
)


def test_roc_auc_counts_pairs_won() -> None:
    # positives 0.35, 0.8; negatives 0.1, 0.4. Pairs won: 0.35>0.1, 0.8>0.1, 0.8>0.4; lost:
    # 0.35<0.4. AUC = 3/4.
    assert roc_auc([0.1, 0.4, 0.35, 0.8], [False, False, True, True]) == pytest.approx(0.75)


def test_roc_auc_ties_count_half() -> None:
    # positives 0.5, 0.9; negatives 0.5, 0.2. (0.5 vs 0.5) tie = 1/2, the other three pairs
    # won: (0.5 + 3) / 4 = 0.875.
    assert roc_auc([0.5, 0.5, 0.2, 0.9], [True, False, False, True]) == pytest.approx(0.875)


def test_roc_auc_all_tied_is_chance() -> None:
    assert roc_auc([0.3, 0.3, 0.3, 0.3], [True, False, True, False]) == pytest.approx(0.5)


def test_roc_auc_reversed_ranking_is_zero() -> None:
    assert roc_auc([0.9, 0.8, 0.1, 0.2], [False, False, True, True]) == 0.0


@pytest.mark.parametrize("labels", [[True, True, True], [False, False, False], []])
def test_one_class_gives_none_not_nan(labels: list[bool]) -> None:
    scores = [0.2, 0.5, 0.9][: len(labels)]
    assert roc_auc(scores, labels) is None
    assert average_precision(scores, labels) is None
    assert balanced_accuracy(labels, labels) is None


def test_average_precision_sums_precision_at_each_recall_gain() -> None:
    # Descending: 0.9 T (P 1, R 1/2), 0.8 F (P 1/2, R 1/2), 0.7 T (P 2/3, R 1), 0.6 F.
    # AP = 1/2 * 1 + 1/2 * 2/3 = 5/6.
    assert average_precision([0.9, 0.8, 0.7, 0.6], [True, False, True, False]) == pytest.approx(
        5 / 6
    )


def test_average_precision_treats_tied_scores_as_one_point() -> None:
    # 0.9 F (P 0, R 0); the tied 0.7 pair (T, F) is one point: 3 predicted, 1 hit -> P 1/3,
    # R 1/2; 0.2 T: P 2/4, R 1. AP = 1/2 * 1/3 + 1/2 * 1/2 = 5/12. Taking the tied positive
    # first would give 1/2 * 1/2 + 1/2 * 1/2 = 1/2.
    assert average_precision([0.9, 0.7, 0.7, 0.2], [False, True, False, True]) == pytest.approx(
        5 / 12
    )


def test_precision_recall_curve_points() -> None:
    thresholds, precision, recall = precision_recall_curve(
        [0.9, 0.7, 0.7, 0.2], [False, True, False, True]
    )
    assert thresholds == [0.9, 0.7, 0.2]
    assert precision == pytest.approx([0.0, 1 / 3, 0.5])
    assert recall == pytest.approx([0.0, 0.5, 1.0])
    assert precision_recall_curve([0.4, 0.6], [False, False]) == ([], [], [])


def test_midranks_share_tied_ranks() -> None:
    # Sorted 1 (rank 1), 2 (rank 2), 3, 3 (ranks 3 and 4, mean 3.5).
    assert midranks([3, 1, 3, 2]).tolist() == [3.5, 1.0, 3.5, 2.0]


def test_infinite_scores_rank_at_the_ends() -> None:
    assert roc_auc([-math.inf, 0.5, math.inf], [False, False, True]) == 1.0


def test_nan_scores_are_refused() -> None:
    with pytest.raises(ValueError, match="NaN"):
        roc_auc([0.1, math.nan], [True, False])


def test_lengths_must_match() -> None:
    with pytest.raises(ValueError, match="lengths differ"):
        balanced_accuracy([True], [True, False])


def test_balanced_accuracy_is_mean_of_class_recalls() -> None:
    # Positives: 2 of 3 recalled; negatives: 1 of 1. (2/3 + 1) / 2 = 5/6.
    assert balanced_accuracy([True, True, True, False], [True, False, True, False]) == (
        pytest.approx(5 / 6)
    )


def test_confusion_matrix_and_label_scores() -> None:
    gold = ["supported", "supported", "unsupported", "contradicted", "contradicted"]
    predicted = ["supported", "unsupported", "unsupported", "unsupported", "contradicted"]
    labels = ["supported", "unsupported", "contradicted"]
    assert confusion_matrix(gold, predicted, labels) == [[1, 1, 0], [0, 1, 0], [0, 1, 1]]
    supported = label_scores(gold, predicted, "supported")
    # P 1/1, R 1/2, F1 = 2 * 1 * 1/2 / (3/2) = 2/3.
    assert (supported.precision, supported.recall) == (1.0, 0.5)
    assert supported.f1 == pytest.approx(2 / 3)
    unsupported = label_scores(gold, predicted, "unsupported")
    # P 1/3, R 1/1, F1 = 2 * 1/3 / (4/3) = 1/2.
    assert unsupported.precision == pytest.approx(1 / 3)
    assert unsupported.f1 == pytest.approx(0.5)
    assert unsupported.support == 1


def test_label_never_predicted_has_no_precision() -> None:
    scores = label_scores(["contradicted", "supported"], ["supported", "supported"], "contradicted")
    assert scores.precision is None
    assert scores.recall == 0.0
    assert scores.f1 is None


def test_confusion_matrix_refuses_unknown_labels() -> None:
    with pytest.raises(ValueError, match="label outside"):
        confusion_matrix(["supported"], ["maybe"], ["supported", "unsupported"])


def test_reliability_bins_and_calibration_error() -> None:
    bins = reliability_bins([0.05, 0.15, 0.12, 1.0], [False, True, False, True], n_bins=10)
    assert [(b.low, b.count) for b in bins] == [(0.0, 1), (0.1, 2), (0.9, 1)]
    assert bins[1].mean_score == pytest.approx(0.135)
    assert bins[1].positive_rate == 0.5
    # ECE = 1/4 * |0 - 0.05| + 2/4 * |0.5 - 0.135| + 1/4 * |1 - 1| = 0.0125 + 0.1825 = 0.195.
    assert expected_calibration_error(bins) == pytest.approx(0.195)
    assert expected_calibration_error([]) is None


def test_reliability_refuses_scores_outside_unit_interval() -> None:
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        reliability_bins([1.2], [True])


def test_wilson_interval() -> None:
    # 8 of 10, z = 1.96: centre (0.8 + 0.19208) / 1.38416 = 0.71674, half-width
    # 1.96 * sqrt(0.016 + 0.009604) / 1.38416 = 0.22658 -> (0.4902, 0.9433).
    low, high = wilson_interval(8, 10) or (0.0, 0.0)
    assert low == pytest.approx(0.4902, abs=1e-4)
    assert high == pytest.approx(0.9433, abs=1e-4)
    # 5 of 5: centre (1 + 0.38416) / 1.76832 = 0.78275, half-width 0.38416 / 1.76832 =
    # 0.21725 -> (0.5655, 1.0).
    low, high = wilson_interval(5, 5) or (0.0, 0.0)
    assert high == 1.0
    assert low == pytest.approx(0.5655, abs=1e-4)
    assert wilson_interval(0, 0) is None
