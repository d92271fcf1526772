"""Choose decision thresholds from labelled predictions.

A threshold flags a claim: for ``t_entail`` a claim is flagged (not supported) when its
P(supported) is below the threshold; for ``t_contra`` it is flagged contradicted when its
P(contradicted) is at or above it. Objectives always speak of the flagged class:

- ``precision=P``: of the claims flagged, at least a share P must truly be flagged-class
  (blocking: a block should rarely hit a good claim); the most flags that keep it win.
- ``recall=R``: at least a share R of the truly flagged-class claims must be flagged (audit:
  miss few bad claims); the fewest false flags that keep it win.
- ``balanced_accuracy``: the mean of both classes' recall is maximal.

Candidate thresholds lie halfway between neighbouring distinct scores, never on a score, so a
threshold does not hinge on one example. Claims whose decision ``t_entail`` cannot move (no score:
an exact check or a verifier error decided; or contradicted, which is decided first) enter as
+inf or -inf: fixed, yet counted in precision and recall, so the expected numbers describe the
whole verifier at the ``t_contra`` the predictions were made with.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import ValidationError

from judge.errors import CalibrationInfeasible, InputError
from judge.eval.metrics import balanced_accuracy, ratio, wilson_interval
from judge.eval.records import ANSWER_LABELS, CLAIM_LABELS, contradiction_scored
from judge.pipeline.policy import decided_by_judge_score
from judge.schemas import ClaimVerdict, Label

ObjectiveKind = Literal["precision", "recall", "balanced_accuracy"]


@dataclass(frozen=True)
class Objective:
    kind: ObjectiveKind
    target: float | None = None

    @classmethod
    def parse(cls, text: str) -> Objective:
        """``precision=0.9``, ``recall=0.8`` or ``balanced_accuracy``."""
        name, _, value = text.partition("=")
        name = name.strip()
        if name == "balanced_accuracy" and not value:
            return cls("balanced_accuracy")
        if name in ("precision", "recall") and value:
            try:
                target = float(value)
            except ValueError:
                raise InputError(f"not a number: {value!r}", field="target") from None
            if not 0.0 < target <= 1.0:
                raise InputError("the target must lie in (0, 1]", field="target")
            return cls("precision" if name == "precision" else "recall", target)
        raise InputError(
            f"unknown objective {text!r}: use precision=P, recall=R or balanced_accuracy",
            field="target",
        )

    def __str__(self) -> str:
        return self.kind if self.target is None else f"{self.kind}={self.target:g}"


@dataclass(frozen=True)
class OperatingPoint:
    """The outcome of one threshold. ``positives`` are the gold flagged-class claims."""

    threshold: float
    n: int
    flagged: int
    true_flags: int
    positives: int

    @property
    def precision(self) -> float | None:
        return ratio(self.true_flags, self.flagged)

    @property
    def recall(self) -> float | None:
        return ratio(self.true_flags, self.positives)

    @property
    def balanced_accuracy(self) -> float | None:
        negatives = self.n - self.positives
        if self.positives == 0 or negatives == 0:
            return None
        true_negatives = negatives - (self.flagged - self.true_flags)
        return (self.true_flags / self.positives + true_negatives / negatives) / 2

    def as_record(self) -> dict[str, object]:
        return {
            "threshold": self.threshold,
            "n": self.n,
            "flagged": self.flagged,
            "true_flags": self.true_flags,
            "positives": self.positives,
            "precision": self.precision,
            "precision_ci95": _interval(wilson_interval(self.true_flags, self.flagged)),
            "recall": self.recall,
            "recall_ci95": _interval(wilson_interval(self.true_flags, self.positives)),
            "balanced_accuracy": self.balanced_accuracy,
        }


@dataclass(frozen=True)
class CrossValidation:
    k: int
    thresholds: list[float | None]  # None where no threshold met the objective on a fold
    heldout_balanced_accuracy: list[float | None]
    mean: float | None
    std: float | None
    folds: list[list[int]]  # held-out indices of each fold, in the order of ``thresholds``

    def as_record(self) -> dict[str, object]:
        return {
            "k": self.k,
            "thresholds": self.thresholds,
            "heldout_balanced_accuracy": self.heldout_balanced_accuracy,
            "mean": self.mean,
            "std": self.std,
        }


def operating_point(
    scores: Sequence[float], positive: Sequence[bool], threshold: float, *, flag_below: bool
) -> OperatingPoint:
    flags = _flags(np.asarray(scores, dtype=np.float64), threshold, flag_below)
    gold = np.asarray(positive, dtype=bool)
    return OperatingPoint(
        threshold,
        len(gold),
        int(flags.sum()),
        int((flags & gold).sum()),
        int(gold.sum()),
    )


def candidate_thresholds(scores: Sequence[float]) -> list[float]:
    finite = sorted({float(s) for s in scores if math.isfinite(s)})
    candidates = {0.0, 1.0}
    candidates.update((a + b) / 2 for a, b in itertools.pairwise(finite))
    if finite and finite[0] > 0.0:
        candidates.add(finite[0] / 2)
    if finite and finite[-1] < 1.0:
        candidates.add((finite[-1] + 1.0) / 2)
    return sorted(candidates)


def choose_threshold(
    scores: Sequence[float],
    positive: Sequence[bool],
    objective: Objective,
    *,
    flag_below: bool,
    prefer: float = 0.5,
) -> OperatingPoint:
    """The threshold that best meets ``objective``; ``positive`` marks the gold flagged class.
    Among equally good thresholds the one nearest ``prefer`` wins."""
    if len(scores) != len(positive):
        raise ValueError("scores and labels differ in length")
    if not any(positive) or all(positive):
        raise CalibrationInfeasible("calibration needs both classes among the labelled claims")
    points = [
        operating_point(scores, positive, t, flag_below=flag_below)
        for t in candidate_thresholds(scores)
    ]

    def near(point: OperatingPoint) -> float:
        return -abs(point.threshold - prefer)

    if objective.kind == "balanced_accuracy":
        return max(points, key=lambda p: (p.balanced_accuracy or 0.0, near(p)))
    target = objective.target if objective.target is not None else 0.0
    if objective.kind == "precision":
        feasible = [p for p in points if p.flagged and (p.precision or 0.0) >= target]
        key = lambda p: (p.recall or 0.0, p.precision or 0.0, near(p))  # noqa: E731
    else:
        feasible = [p for p in points if (p.recall or 0.0) >= target]
        key = lambda p: (p.precision or 0.0, p.recall or 0.0, near(p))  # noqa: E731
    if not feasible:
        best = max(points, key=lambda p: getattr(p, objective.kind) or 0.0)
        reached = getattr(best, objective.kind) or 0.0
        raise CalibrationInfeasible(
            f"no threshold reaches {objective.kind} {target:g} on flagged claims "
            f"(the best reachable is {reached:.3f})"
        )
    return max(feasible, key=key)


def cross_validate_threshold(
    scores: Sequence[float],
    labels: Sequence[bool],
    k: int,
    objective: Objective,
    seed: int = 0,
) -> CrossValidation:
    """Tune ``t_entail`` on k-1 folds and score it on the held-out fold, for each fold.

    ``scores`` are P(supported) (+/-inf for claims whose decision is fixed), ``labels`` True
    for gold-supported claims. Folds are stratified by label and shuffled with ``seed``. The
    held-out balanced accuracy of each fold is never measured on the records the threshold was
    tuned on."""
    if len(scores) != len(labels):
        raise ValueError("scores and labels differ in length")
    if not 2 <= k <= len(scores):
        raise ValueError(f"k must lie in [2, {len(scores)}]")
    score_array = np.asarray(scores, dtype=np.float64)
    flagged_class = ~np.asarray(labels, dtype=bool)
    folds = stratified_folds(flagged_class.tolist(), k, seed)
    thresholds: list[float | None] = []
    heldout: list[float | None] = []
    for fold in folds:
        train = np.ones(len(scores), dtype=bool)
        train[fold] = False
        try:
            point = choose_threshold(
                score_array[train].tolist(),
                flagged_class[train].tolist(),
                objective,
                flag_below=True,
            )
        except CalibrationInfeasible:
            thresholds.append(None)
            heldout.append(None)
            continue
        thresholds.append(point.threshold)
        flags = _flags(score_array[fold], point.threshold, flag_below=True)
        heldout.append(balanced_accuracy(flagged_class[fold].tolist(), flags.tolist()))
    values = [v for v in heldout if v is not None]
    mean = float(np.mean(values)) if values else None
    std = float(np.std(values)) if values else None
    return CrossValidation(k, thresholds, heldout, mean, std, folds)


def stratified_folds(labels: Sequence[bool], k: int, seed: int) -> list[list[int]]:
    """Split indices into k folds with each label spread evenly; reproducible from ``seed``."""
    rng = np.random.default_rng(seed)
    folds: list[list[int]] = [[] for _ in range(k)]
    offset = 0
    for value in (True, False):
        members = [i for i, label in enumerate(labels) if label is value]
        for position, index in enumerate(rng.permutation(members).tolist()):
            folds[(position + offset) % k].append(int(index))
        offset += len(members)
    return [sorted(fold) for fold in folds]


def _flags(
    scores: npt.NDArray[np.float64], threshold: float, flag_below: bool
) -> npt.NDArray[np.bool_]:
    return scores < threshold if flag_below else scores >= threshold


def _interval(bounds: tuple[float, float] | None) -> list[float] | None:
    return None if bounds is None else [bounds[0], bounds[1]]


@dataclass(frozen=True)
class Calibration:
    t_entail: float
    t_contra: float
    record: dict[str, object]  # written beside the thresholds: objective, n, expected numbers
    t_answer: float | None = None  # None: no answer records, or no stricter rule earned its place


DECISION_RULE = (
    "supported iff P(supported) >= t_entail; contradicted iff P(contradicted) >= t_contra"
)


def calibrate_predictions(
    predictions: Sequence[dict[str, Any]],
    objective: Objective,
    *,
    t_entail_default: float,
    t_contra_default: float,
    folds: int = 5,
    seed: int = 0,
) -> Calibration:
    """Thresholds for ``objective`` from the claim predictions of ``judge eval``.

    ``t_entail`` must be reachable (else :class:`CalibrationInfeasible`); ``t_contra`` is tuned
    only where contradiction is labelled and scored, and otherwise keeps its default, with the
    reason recorded. Answer records (faithful / hallucinated), if any, fit the answer rule
    apart: see :func:`calibrate_answer_rule`. With answer records alone ``t_entail`` keeps its
    default."""
    claims = [p for p in predictions if p.get("gold") in CLAIM_LABELS]
    answers = [p for p in predictions if p.get("gold") in ANSWER_LABELS]
    if not claims and answers:
        alone, alone_record = calibrate_answer_rule(
            answers, objective, t_entail=t_entail_default, folds=folds, seed=seed
        )
        only: dict[str, object] = {
            "objective": str(objective),
            "t_entail_calibration": {"kept": t_entail_default, "reason": "no claim records"},
            "answer_rule": alone_record,
        }
        return Calibration(t_entail_default, t_contra_default, only, alone)
    if not claims:
        raise CalibrationInfeasible("no claim-level predictions to calibrate on")
    scores = [_entail_score(p) for p in claims]
    supported = [p["gold"] == "supported" for p in claims]
    point = choose_threshold(
        scores, [not s for s in supported], objective, flag_below=True, prefer=t_entail_default
    )
    smallest_class = min(sum(supported), len(supported) - sum(supported))
    cv = (
        cross_validate_threshold(scores, supported, folds, objective, seed).as_record()
        if folds >= 2 and smallest_class >= folds
        else {"skipped": f"needs at least {folds} claims of each class and --folds >= 2"}
    )
    t_contra, contra_record = _calibrate_contra(claims, objective, t_contra_default)
    t_answer: float | None = None
    answer_record: dict[str, object] = {"skipped": "no answer records"}
    if answers:
        t_answer, answer_record = calibrate_answer_rule(
            answers, objective, t_entail=point.threshold, folds=folds, seed=seed
        )
    record: dict[str, object] = {
        "objective": str(objective),
        "flagged_class": "t_entail: not supported (unsupported or contradicted); "
        "t_contra: contradicted",
        "decision_rule": DECISION_RULE,
        "n": len(claims),
        "n_scored": sum(1 for p in claims if p.get("score") is not None),
        "errors": sum(1 for p in claims if p.get("error")),
        "expected_in_sample": point.as_record(),
        "cross_validation": {"objective": str(objective), "seed": seed, **cv},
        "t_contra_calibration": contra_record,
        "answer_rule": answer_record,
    }
    return Calibration(point.threshold, t_contra, record, t_answer)


ANSWER_RULE = (
    "an answer that failed only by claims the judge scored (no failed check, contradiction or "
    "error) passes iff its weakest judged claim's P(supported) >= t_answer; above t_entail the "
    "rule is stricter than the claims', below it tolerates borderline claims"
)


def calibrate_answer_rule(
    answers: Sequence[dict[str, Any]],
    objective: Objective,
    *,
    t_entail: float,
    folds: int = 5,
    seed: int = 0,
) -> tuple[float | None, dict[str, object]]:
    """The answer threshold ``t_answer`` from answer predictions of ``judge eval``.

    An answer is scored by its weakest judged claim when nothing but the judge's scores
    decided it (:func:`answer_score`), else it keeps its decision (-inf); ``t_answer`` is chosen
    for ``objective`` with the hallucinated answers as the flagged class. It is kept only if it
    beats the claim rule alone (t_answer = t_entail) held out, in stratified k-fold and, with two
    or more datasets, leave-one-dataset-out; else None, with the figures recorded. The
    predictions must have been made at ``t_entail``."""
    scores = [answer_score(p) for p in answers]
    faithful = [p["gold"] == "faithful" for p in answers]
    datasets = [str(p.get("dataset")) for p in answers]
    flagged = [not f for f in faithful]
    base = operating_point(scores, flagged, t_entail, flag_below=True)
    try:
        point = choose_threshold(scores, flagged, objective, flag_below=True, prefer=t_entail)
    except CalibrationInfeasible as exc:
        return None, {"rule": ANSWER_RULE, "kept": None, "reason": str(exc), "n": len(answers)}
    fitted = point.threshold
    record: dict[str, object] = {
        "rule": ANSWER_RULE,
        "n": len(answers),
        "claim_rule_alone": base.as_record(),
        "fitted_in_sample": operating_point(scores, flagged, fitted, flag_below=True).as_record(),
    }
    smallest = min(sum(faithful), len(faithful) - sum(faithful))
    heldout: list[float] = []
    if folds >= 2 and smallest >= folds:
        split = stratified_folds(flagged, folds, seed)
        fitted_cv, alone_cv, _ = _answer_heldout(
            scores, faithful, {str(n): f for n, f in enumerate(split)}, t_entail, objective
        )
        record["cross_validation"] = {
            "k": folds,
            "seed": seed,
            "fitted": fitted_cv,
            "claim_rule_alone": alone_cv,
        }
        heldout.append(fitted_cv - alone_cv)
    if len(set(datasets)) >= 2:
        groups = {n: [i for i, d in enumerate(datasets) if d == n] for n in sorted(set(datasets))}
        fitted_lodo, alone_lodo, per = _answer_heldout(
            scores, faithful, groups, t_entail, objective
        )
        record["leave_one_dataset_out"] = {
            "thresholds": per,
            "fitted": fitted_lodo,
            "claim_rule_alone": alone_lodo,
        }
        heldout.append(fitted_lodo - alone_lodo)
    if fitted == t_entail or not heldout or min(heldout) <= 0.0:
        record["kept"] = None
        record["reason"] = (
            "the claim rule alone is as good held out"
            if heldout
            else "too few answers to validate a separate answer threshold"
        )
        return None, record
    record["kept"] = fitted
    return fitted, record


def answer_score(prediction: dict[str, Any]) -> float:
    """The weakest judged claim's P(supported), where only judge scores decided the answer:
    it passed, or failed by claims the judge found unsupported that passed every exact check.
    -inf where anything else decided (a check, a contradiction, an error, a coverage gap)."""
    if prediction.get("error") or prediction.get("coverage_gaps"):
        return -math.inf
    factual = [v for v in _verdicts(prediction) if v.label is not Label.NOT_FACTUAL]
    if prediction.get("action") != "pass" and not all(decided_by_judge_score(v) for v in factual):
        return -math.inf
    if prediction.get("action") not in ("pass", "repair", "regenerate"):
        return -math.inf
    scores = [v.score for v in factual if v.score is not None]
    if not scores:
        return math.inf if prediction.get("action") == "pass" else -math.inf
    return float(min(scores))


def _verdicts(prediction: dict[str, Any]) -> list[ClaimVerdict]:
    """The prediction's verdicts as the policy reads them."""
    try:
        return [ClaimVerdict.model_validate(v) for v in prediction.get("verdicts") or []]
    except ValidationError as exc:
        where = f"prediction {prediction.get('id', '?')}"
        raise InputError(
            f"{where}: a verdict is not a verdict of judge eval ({exc.errors()[0]['msg']})",
            field="verdicts",
        ) from None


def _fit_answer(
    scores: Sequence[float], faithful: Sequence[bool], t_entail: float, objective: Objective
) -> float:
    try:
        point = choose_threshold(
            list(scores), [not f for f in faithful], objective, flag_below=True, prefer=t_entail
        )
    except CalibrationInfeasible:
        return t_entail
    return point.threshold


def _answer_heldout(
    scores: Sequence[float],
    faithful: Sequence[bool],
    parts: dict[str, list[int]],
    t_entail: float,
    objective: Objective,
) -> tuple[float, float, dict[str, float]]:
    """Held-out balanced accuracy with t_answer fitted without each part in turn, and with the
    claim rule alone; and the t_answer each part was scored with."""
    predicted = [False] * len(scores)
    thresholds: dict[str, float] = {}
    for name, held in parts.items():
        excluded = set(held)
        train = [i for i in range(len(scores)) if i not in excluded]
        t = _fit_answer(
            [scores[i] for i in train], [faithful[i] for i in train], t_entail, objective
        )
        thresholds[name] = t
        for i in held:
            predicted[i] = scores[i] >= t
    alone = [s >= t_entail for s in scores]
    return (
        balanced_accuracy(list(faithful), predicted) or 0.0,
        balanced_accuracy(list(faithful), alone) or 0.0,
        thresholds,
    )


def _calibrate_contra(
    claims: Sequence[dict[str, Any]], objective: Objective, default: float
) -> tuple[float, dict[str, object]]:
    scored = contradiction_scored(claims)
    if not scored:
        return default, {"kept": default, "reason": "no contradiction labels with scores"}
    values = [float(p["contradiction_score"]) for p in scored]
    gold = [p["gold"] == "contradicted" for p in scored]
    try:
        point = choose_threshold(values, gold, objective, flag_below=False, prefer=default)
    except CalibrationInfeasible as exc:
        return default, {"kept": default, "reason": str(exc), "n": len(scored)}
    datasets = sorted({str(p.get("dataset")) for p in scored})
    return point.threshold, {"datasets": datasets, **point.as_record()}


def _entail_score(prediction: dict[str, Any]) -> float:
    # Contradiction is decided before support, and a claim without a score was decided without
    # the judge: neither decision moves with t_entail.
    score = prediction.get("score")
    if prediction.get("predicted") == "contradicted":
        return -math.inf
    if isinstance(score, int | float):
        return float(score)
    return math.inf if prediction.get("predicted") == "supported" else -math.inf
