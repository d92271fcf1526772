"""Leave-one-group-out validation of ``t_entail``: tune the threshold on every group but one,
score it on that one.

Stratified k-fold mixes every dataset into every fold, so a threshold is always tuned on records
like those it is scored on. Held-out data from a source never seen asks more: here each dataset
in turn is held out, the threshold is tuned on the others, and the held-out predictions of all
groups are pooled into one balanced accuracy (a group with one class alone has none of its own).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from judge.errors import CalibrationInfeasible
from judge.eval.calibrate import Objective, choose_threshold
from judge.eval.metrics import balanced_accuracy


@dataclass(frozen=True)
class GroupValidation:
    """Per group its threshold (tuned without it; None when the others hold one class only) and
    held-out balanced accuracy; every record's held-out prediction (True: supported); pooled."""

    thresholds: dict[str, float | None]
    per_group: dict[str, float | None]
    predicted: list[bool]
    pooled: float | None


def leave_one_group_out(
    scores: Sequence[float],
    supported: Sequence[bool],
    groups: Sequence[str],
    objective: Objective | None = None,
) -> GroupValidation:
    """``scores`` are P(supported) (+/-inf where the decision is fixed), ``supported`` the gold
    labels, ``groups`` each record's dataset. A record is predicted supported when its score is
    at or above the threshold tuned on the other groups; with no threshold, it is flagged."""
    if not len(scores) == len(supported) == len(groups):
        raise ValueError("scores, labels and groups differ in length")
    objective = objective or Objective("balanced_accuracy")
    names = sorted(set(groups))
    if len(names) < 2:
        raise ValueError("leave-one-group-out needs at least two groups")
    predicted = [False] * len(scores)
    thresholds: dict[str, float | None] = {}
    per_group: dict[str, float | None] = {}
    for name in names:
        held = [i for i, g in enumerate(groups) if g == name]
        train = [i for i, g in enumerate(groups) if g != name]
        try:
            point = choose_threshold(
                [scores[i] for i in train],
                [not supported[i] for i in train],
                objective,
                flag_below=True,
            )
            threshold: float | None = point.threshold
        except CalibrationInfeasible:
            threshold = None
        thresholds[name] = threshold
        for i in held:
            predicted[i] = threshold is not None and scores[i] >= threshold
        per_group[name] = balanced_accuracy(
            [supported[i] for i in held], [predicted[i] for i in held]
        )
    return GroupValidation(
        thresholds, per_group, predicted, balanced_accuracy(list(supported), predicted)
    )
