"""Classification metrics for evaluating the verifier against human labels.

Pure functions over plain sequences. Every metric that is undefined on its input (a class that
never occurs, no predictions of a label) returns ``None``, never NaN, so reports stay honest
and JSON-serialisable.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class LabelScores:
    """Precision, recall and F1 of one label, treating it as the positive class."""

    precision: float | None
    recall: float | None
    f1: float | None
    support: int  # gold occurrences of the label


def ratio(numerator: float, denominator: float) -> float | None:
    return numerator / denominator if denominator else None


def confusion_matrix(
    gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]
) -> list[list[int]]:
    """Rows are gold labels, columns predicted labels, both in the order of ``labels``."""
    _same_length(gold, predicted)
    index = {label: i for i, label in enumerate(labels)}
    matrix = [[0] * len(labels) for _ in labels]
    for g, p in zip(gold, predicted, strict=True):
        if g not in index or p not in index:
            raise ValueError(f"label outside {list(labels)}: gold {g!r}, predicted {p!r}")
        matrix[index[g]][index[p]] += 1
    return matrix


def label_scores(gold: Sequence[str], predicted: Sequence[str], label: str) -> LabelScores:
    _same_length(gold, predicted)
    tp = sum(1 for g, p in zip(gold, predicted, strict=True) if g == label and p == label)
    predicted_n = sum(1 for p in predicted if p == label)
    support = sum(1 for g in gold if g == label)
    precision = ratio(tp, predicted_n)
    recall = ratio(tp, support)
    return LabelScores(precision, recall, f1_score(precision, recall), support)


def f1_score(precision: float | None, recall: float | None) -> float | None:
    if precision is None or recall is None:
        return None
    if precision + recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)


def balanced_accuracy(gold: Sequence[bool], predicted: Sequence[bool]) -> float | None:
    """Mean of the true-positive and true-negative rates; ``None`` if a class is absent."""
    _same_length(gold, predicted)
    positives = sum(gold)
    negatives = len(gold) - positives
    if positives == 0 or negatives == 0:
        return None
    tp = sum(1 for g, p in zip(gold, predicted, strict=True) if g and p)
    tn = sum(1 for g, p in zip(gold, predicted, strict=True) if not g and not p)
    return (tp / positives + tn / negatives) / 2


def midranks(values: Sequence[float]) -> FloatArray:
    """1-based ranks; tied values share the mean of the ranks they span."""
    array = _finite_or_inf(values)
    order = np.argsort(array, kind="mergesort")
    ranks = np.empty(len(array), dtype=np.float64)
    sorted_values = array[order]
    start = 0
    while start < len(array):
        end = start
        while end + 1 < len(array) and sorted_values[end + 1] == sorted_values[start]:
            end += 1
        ranks[order[start : end + 1]] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def roc_auc(scores: Sequence[float], positive: Sequence[bool]) -> float | None:
    """Area under the ROC curve as the Mann-Whitney statistic: the probability that a random
    positive scores above a random negative, ties counting one half."""
    _same_length(scores, positive)
    n_pos = sum(positive)
    n_neg = len(positive) - n_pos
    if n_pos == 0 or n_neg == 0:
        return None
    ranks = midranks(scores)
    rank_sum = float(ranks[np.asarray(positive, dtype=bool)].sum())
    return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def precision_recall_curve(
    scores: Sequence[float], positive: Sequence[bool]
) -> tuple[list[float], list[float], list[float]]:
    """Precision and recall when predicting positive at ``score >= t``, for each distinct score
    ``t`` from the highest down. Tied scores form one point. Returns (thresholds, precision,
    recall); empty lists when there is no positive."""
    _same_length(scores, positive)
    n_pos = sum(positive)
    if n_pos == 0:
        return [], [], []
    array = _finite_or_inf(scores)
    order = np.argsort(-array, kind="mergesort")
    sorted_scores = array[order]
    hits = np.asarray(positive, dtype=np.float64)[order]
    tp = np.cumsum(hits)
    # The last index of each run of equal scores: one operating point per distinct score.
    last = np.flatnonzero(np.append(sorted_scores[1:] != sorted_scores[:-1], True))
    predicted = last + 1
    precision = (tp[last] / predicted).tolist()
    recall = (tp[last] / n_pos).tolist()
    return sorted_scores[last].tolist(), precision, recall


def average_precision(scores: Sequence[float], positive: Sequence[bool]) -> float | None:
    """PR-AUC as average precision: sum over operating points of (recall gain) * precision.
    ``None`` when either class is absent."""
    n_pos = sum(positive)
    if n_pos == 0 or n_pos == len(positive):
        return None
    _, precision, recall = precision_recall_curve(scores, positive)
    total = 0.0
    previous_recall = 0.0
    for p, r in zip(precision, recall, strict=True):
        total += (r - previous_recall) * p
        previous_recall = r
    return total


@dataclass(frozen=True)
class ReliabilityBin:
    low: float
    high: float
    count: int
    mean_score: float
    positive_rate: float


def reliability_bins(
    scores: Sequence[float], positive: Sequence[bool], n_bins: int = 10
) -> list[ReliabilityBin]:
    """Equal-width bins over [0, 1]; empty bins are left out. A score of 1.0 joins the top bin."""
    _same_length(scores, positive)
    if n_bins < 1:
        raise ValueError("n_bins must be at least 1")
    array = np.asarray(scores, dtype=np.float64)
    if array.size and (np.isnan(array).any() or array.min() < 0.0 or array.max() > 1.0):
        raise ValueError("scores must lie in [0, 1]")
    hits = np.asarray(positive, dtype=np.float64)
    index = np.minimum((array * n_bins).astype(int), n_bins - 1)
    bins: list[ReliabilityBin] = []
    for b in range(n_bins):
        mask = index == b
        count = int(mask.sum())
        if count:
            bins.append(
                ReliabilityBin(
                    b / n_bins,
                    (b + 1) / n_bins,
                    count,
                    float(array[mask].mean()),
                    float(hits[mask].mean()),
                )
            )
    return bins


def expected_calibration_error(bins: Sequence[ReliabilityBin]) -> float | None:
    total = sum(b.count for b in bins)
    if total == 0:
        return None
    return sum(b.count / total * abs(b.positive_rate - b.mean_score) for b in bins)


def wilson_interval(successes: int, n: int, z: float = 1.959964) -> tuple[float, float] | None:
    """Wilson score interval for a binomial proportion (95 % by default); ``None`` for n = 0."""
    if n == 0:
        return None
    if not 0 <= successes <= n:
        raise ValueError("successes must lie in [0, n]")
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def _finite_or_inf(values: Sequence[float]) -> FloatArray:
    array = np.asarray(values, dtype=np.float64)
    if np.isnan(array).any():
        raise ValueError("scores must not be NaN")
    return array


def _same_length(a: Sequence[object], b: Sequence[object]) -> None:
    if len(a) != len(b):
        raise ValueError(f"lengths differ: {len(a)} and {len(b)}")
