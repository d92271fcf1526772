"""Levers scored on data their thresholds never saw: k-fold and leave-one-dataset-out, paired.

Reads the signal files of ``accuracy.py collect`` (the judge's P(yes) on the whole evidence and
on each sentence of a multi-sentence claim) and the development claims, re-runs the exact checks
as the code stands, and scores each lever two ways:

- k-fold: stratified 5-fold, five seeds; the mean of the held-out folds' balanced accuracy;
- leave-one-dataset-out (LODO): each dataset in turn is held out, the lever is fitted (a
  threshold, or a model and its threshold) on the other datasets only, and the held-out
  predictions of every dataset are pooled into one balanced accuracy.

A learned combiner (scikit-learn: logistic regression, or gradient boosting with sigmoid
calibration) is fitted only on the training part of each split, on the claims no exact check
flagged (those the combiner would decide); its threshold is chosen on out-of-fold predictions
inside the training part, never on its own fit. Features are the judge's signals and cheap
lexical ones computed from the claim and its evidence (no extra judge call).

Composed answers (``--answers``): answers built from development claims of one dataset, each
sentence one claim citing its own record's passages, the ledger the union of their evidence;
hallucinated iff any claim is not supported. With cited ids only, each sentence is judged
against its own record's passages, so its verdict is the claim's own: an answer's prediction is
pooled from the claims' held-out (LODO) predictions, under two answer rules: pass iff every
claim passes the claim threshold, or pass iff the weakest claim's score clears an answer
threshold tuned on the other datasets' answers.

    python benchmarks/combiner.py --data ../shared/data/dev/dev_claims.jsonl \\
        --signals benchmarks/results/lodo_default.jsonl --answers 400
"""

from __future__ import annotations

import argparse
import math
import random
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import accuracy
import numpy as np
from names_dev import missing_names

from judge.errors import CalibrationInfeasible
from judge.eval.calibrate import Objective, choose_threshold, stratified_folds
from judge.eval.metrics import balanced_accuracy
from judge.pipeline.checks import default_checks
from judge.reading import read
from judge.reading.sentences import split_sentences
from judge.reading.values.dates import DateMention, find_dates
from judge.reading.values.matching import found_in
from judge.reading.words import content_words, word_form
from judge.text.normalise import normalise

WHOLE, SENTENCES = "whole-w2000@yes_no", "sentences-w2000@yes_no"
PROBE = "probe-w2000@yes_no"
UNHEDGED = "unhedged-w2000@yes_no"
SELECTED = "selected-w2000@yes_no"
FENCE = -math.inf
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")

# predict(train indices, test indices) -> the test claims predicted supported, and their scores
Fit = Callable[[list[int], list[int]], tuple[list[bool], list[float]]]


@dataclass
class Claims:
    rows: list[dict[str, Any]]
    gold: list[bool]  # True: supported
    datasets: list[str]
    flagged: list[bool]  # an exact check failed the claim or sent it to review
    whole: list[float]
    weakest: list[float]  # min(whole, each sentence) on a multi-sentence claim
    features: np.ndarray
    # P(contradicted) from the contradiction follow-up asked of every claim (None: not collected)
    probe: list[float | None]
    evidence_chars: list[int]
    # P(yes) of the claim without its epistemic hedges (None: no hedge, or not collected)
    unhedged: list[float | None]
    # flagged only because a date or number of the claim is absent from evidence that states
    # no other value of its kind (no competing value: a detail left out, not a wrong value)
    absent_only: list[bool]
    # P(yes) on the claim's best-matching evidence sentences and their neighbours (BM25), for
    # claims whose evidence is longer than one 250-token window (None: not collected)
    selected: list[float | None]


def load(data: Path, signals: Sequence[Path]) -> Claims:
    rows = [r for r in accuracy.merged_rows(signals) if WHOLE in r]
    accuracy.recheck(rows, data)
    records = {r["id"]: r for r in accuracy.load_records(data)}
    checks = [c.name for c in default_checks()]
    whole = [accuracy.score_of(r, WHOLE) for r in rows]
    weakest = [
        min(w, accuracy.sentence_score(r, SENTENCES)) for r, w in zip(rows, whole, strict=True)
    ]
    features = np.array(
        [
            claim_features(records[r["id"]], w, s, r, checks)
            for r, w, s in zip(rows, whole, weakest, strict=True)
        ]
    )
    return Claims(
        rows=rows,
        gold=[r["gold"] == "supported" for r in rows],
        datasets=[r["dataset"] for r in rows],
        flagged=[accuracy.check_failed(r, checks) for r in rows],
        whole=whole,
        weakest=weakest,
        features=features,
        unhedged=[r.get(UNHEDGED, {}).get("p_supported") for r in rows],
        evidence_chars=[sum(len(e["text"]) for e in records[r["id"]]["evidence"]) for r in rows],
        probe=[r.get(PROBE, {}).get("p_contradicted") for r in rows],
        absent_only=[absent_only(records[r["id"]], r) for r in rows],
        selected=[r.get(SELECTED, {}).get("p_supported") for r in rows],
    )


def absent_only(record: dict[str, Any], row: dict[str, Any]) -> bool:
    """Whether the only checks that flag the claim are the date and number checks, and every
    value they miss has no value of its kind in the evidence to stand against it."""
    failed = {name for name, status in row["checks"].items() if status != "passed"}
    if not failed or not failed <= {"dates", "numbers"}:
        return False
    evidence = "\n\n".join(e["text"] for e in record["evidence"])
    return not competing_value(record["claim"], evidence, failed)


def competing_value(claim: str, evidence: str, failed: set[str]) -> bool:
    """Whether the evidence states a date of the same precision as a claim date (dates check)
    or a number of the same unit as a claim number it does not hold (numbers check)."""

    def shape(m: DateMention) -> tuple[bool, ...]:
        return (m.year is None, m.month is None, m.day is None, m.weekday is None)

    if "dates" in failed:
        evidence_shapes = {shape(m) for m in find_dates(normalise(evidence))}
        if any(shape(m) in evidence_shapes for m in find_dates(normalise(claim))):
            return True
    if "numbers" in failed:
        pool = read(evidence).quantities
        for q in read(claim).numbers:
            if not found_in(q, pool) and any(
                p.unit == q.unit and p.ordinal == q.ordinal for p in pool
            ):
                return True
    return False


FEATURES = (
    "logit P(yes) whole",
    "logit P(yes) weakest sentence",
    "sentences",
    "claim words absent from the evidence (share)",
    "names absent from the evidence",
    "numbers absent from the evidence",
    "best evidence sentence's share of the claim words",
    "claim content words (log)",
)


def claim_features(
    record: dict[str, Any], whole: float, weakest: float, row: dict[str, Any], checks: list[str]
) -> list[float]:
    claim = record["claim"]
    evidence = "\n\n".join(e["text"] for e in record["evidence"])
    claim_forms = {word_form(w) for w, _, _ in content_words(claim)}
    evidence_forms = {word_form(w) for w, _, _ in content_words(evidence)}
    absent = len(claim_forms - evidence_forms) / len(claim_forms) if claim_forms else 0.0
    best = 0.0
    for sentence in split_sentences(evidence, strict=False):
        forms = {word_form(w) for w, _, _ in content_words(sentence.text)}
        if claim_forms:
            best = max(best, len(claim_forms & forms) / len(claim_forms))
    numbers = set(_NUMBER.findall(claim)) - set(_NUMBER.findall(evidence))
    sentences = row.get(SENTENCES, {}).get("sentences", 1)
    return [
        accuracy.logit(whole),
        accuracy.logit(weakest),
        float(sentences),
        absent,
        float(len(missing_names(claim, evidence))),
        float(len(numbers)),
        best,
        math.log1p(len(claim_forms)),
    ]


# --- levers ------------------------------------------------------------------------------------


def threshold_lever(scores: Sequence[float], gold: Sequence[bool]) -> Fit:
    """A fixed score, one threshold tuned for balanced accuracy on the training claims."""

    def fit(train: list[int], test: list[int]) -> tuple[list[bool], list[float]]:
        threshold = _threshold([scores[i] for i in train], [gold[i] for i in train])
        return [threshold is not None and scores[i] >= threshold for i in test], [
            scores[i] for i in test
        ]

    return fit


def learned_lever(claims: Claims, model: str, *, gate: bool) -> Fit:
    """A scikit-learn model on the features; with ``gate`` the exact checks decide first and
    the model sees only the claims they let through, else their outcomes are features too."""
    features = claims.features
    if not gate:
        features = np.column_stack([features, np.array(claims.flagged, dtype=float)])
    gold = np.array(claims.gold)
    flagged = np.array(claims.flagged) if gate else np.zeros(len(gold), dtype=bool)

    def scores_for(train: list[int], test: list[int]) -> list[float]:
        usable = [i for i in train if not flagged[i]]
        estimator = _estimator(model)
        estimator.fit(features[usable], gold[usable])
        out = estimator.predict_proba(features[test])[:, 1] if test else np.array([])
        return [FENCE if flagged[i] else float(p) for i, p in zip(test, out, strict=True)]

    def fit(train: list[int], test: list[int]) -> tuple[list[bool], list[float]]:
        # The threshold is chosen on out-of-fold scores inside the training claims.
        inner = stratified_folds([not claims.gold[i] for i in train], 5, seed=1)
        oof: dict[int, float] = {}
        for fold in inner:
            held = [train[j] for j in fold]
            rest = [train[j] for j in range(len(train)) if j not in set(fold)]
            oof.update(zip(held, scores_for(rest, held), strict=True))
        threshold = _threshold([oof[i] for i in train], [claims.gold[i] for i in train])
        scores = scores_for(train, test)
        return [threshold is not None and s >= threshold for s in scores], scores

    return fit


def veto_lever(scores: Sequence[float], probe: Sequence[float | None], gold: Sequence[bool]) -> Fit:
    """The threshold rule, then a claim it passes fails when the contradiction follow-up's
    P(contradicted) reaches a second threshold; both tuned together on the training claims."""

    def predict(i: int, t: float, t_c: float) -> bool:
        contra = probe[i]
        return scores[i] >= t and (contra is None or contra < t_c)

    def fit(train: list[int], test: list[int]) -> tuple[list[bool], list[float]]:
        t, t_c = _grid(train, gold, predict, scores, probe)
        return [predict(i, t, t_c) for i in test], [scores[i] for i in test]

    return fit


def length_lever(scores: Sequence[float], chars: Sequence[int], gold: Sequence[bool]) -> Fit:
    """The threshold rule on the score's logit less ``slope`` times the log of the evidence's
    length (in thousands of characters): a threshold that moves with the evidence length, the
    slope and the threshold tuned together on the training claims."""
    sizes = [math.log(max(c, 1) / 1000) for c in chars]

    def adjusted(i: int, slope: float) -> float:
        if not math.isfinite(scores[i]):
            return scores[i]
        return accuracy.logit(scores[i]) - slope * sizes[i]

    slopes = [(float(slope),) for slope in np.linspace(-1.0, 1.0, 21)]
    return _tuned_lever(adjusted, slopes, gold)


# Evidence lengths below which lever k leaves a score as read, tried in every split.
LENGTH_FLOORS = (500, 1000, 1500, 2000, 3000)


def floored_length_lever(
    scores: Sequence[float], chars: Sequence[int], gold: Sequence[bool]
) -> Fit:
    """Lever i raising scores on long evidence only: evidence shorter than a floor keeps its
    score as read (an answer's short passages, a policy page), longer evidence has its logit
    raised by ``slope`` times log(length / floor); floor, slope and threshold tuned together on
    the training claims."""

    def adjusted(i: int, floor: float, slope: float) -> float:
        if not math.isfinite(scores[i]):
            return scores[i]
        return accuracy.logit(scores[i]) + slope * math.log(max(chars[i], floor) / floor)

    grid = [(floor, float(slope)) for floor in LENGTH_FLOORS for slope in np.linspace(0, 1.5, 16)]
    return _tuned_lever(adjusted, grid, gold)


def _tuned_lever(
    adjusted: Callable[..., float], grid: Sequence[tuple[float, ...]], gold: Sequence[bool]
) -> Fit:
    """The threshold rule on ``adjusted(i, *params)``, the parameters (from ``grid``, in order;
    ties: the first) and the threshold tuned together on the training claims."""

    def fit(train: list[int], test: list[int]) -> tuple[list[bool], list[float]]:
        best: tuple[float, tuple[float, ...], float] | None = None
        truth = [gold[i] for i in train]
        for params in grid:
            values = [adjusted(i, *params) for i in train]
            t = _threshold(values, truth)
            if t is None:
                continue
            value = balanced_accuracy(truth, [v >= t for v in values]) or 0.0
            if best is None or value > best[0]:
                best = (value, params, t)
        assert best is not None
        _, params, t = best
        out = [adjusted(i, *params) for i in test]
        return [v >= t for v in out], out

    return fit


def soft_absence_lever(
    scores: Sequence[float], flagged: Sequence[bool], absent: Sequence[bool], gold: Sequence[bool]
) -> Fit:
    """Checks as a hard pre-filter, except a claim flagged only for a date or number the
    evidence leaves out (no competing value): the judge decides it, against a threshold of its
    own; both thresholds tuned on the training claims."""

    def predict(i: int, t: float, t_absent: float) -> bool:
        if flagged[i] and not absent[i]:
            return False
        return scores[i] >= (t_absent if absent[i] else t)

    def fit(train: list[int], test: list[int]) -> tuple[list[bool], list[float]]:
        t, t_absent = _grid(train, gold, predict, scores, scores)
        return [predict(i, t, t_absent) for i in test], [
            scores[i] if not flagged[i] or absent[i] else FENCE for i in test
        ]

    return fit


def _grid(
    train: list[int],
    gold: Sequence[bool],
    predict: Callable[[int, float, float], bool],
    first: Sequence[float],
    second: Sequence[float | None],
) -> tuple[float, float]:
    """The pair of thresholds with the best balanced accuracy on the training claims (ties:
    the first found, in ascending order)."""
    known = [first[i] for i in train if math.isfinite(first[i])]
    other = [v for i in train if (v := second[i]) is not None and math.isfinite(v)]
    firsts = sorted(set(np.quantile(known, np.linspace(0.05, 0.95, 37)).round(4)))
    seconds = [*sorted(set(np.quantile(other, np.linspace(0.0, 1.0, 41)).round(4))), math.inf]
    best: tuple[float, float, float] | None = None
    truth = [gold[i] for i in train]
    for t in firsts:
        for t2 in seconds:
            value = balanced_accuracy(truth, [predict(i, t, t2) for i in train]) or 0.0
            if best is None or value > best[0]:
                best = (value, t, t2)
    assert best is not None
    return best[1], best[2]


def _estimator(model: str) -> Any:
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if model == "logistic":
        return make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=1000))
    boosted = HistGradientBoostingClassifier(max_depth=3, max_iter=100, learning_rate=0.05)
    return CalibratedClassifierCV(boosted, method="sigmoid", cv=3)


def _threshold(scores: Sequence[float], gold: Sequence[bool]) -> float | None:
    try:
        point = choose_threshold(
            list(scores), [not g for g in gold], Objective("balanced_accuracy"), flag_below=True
        )
    except CalibrationInfeasible:
        return None
    return point.threshold


# --- validation --------------------------------------------------------------------------------


@dataclass
class Scored:
    kfold: float
    lodo: float
    lodo_predicted: list[bool]
    lodo_scores: list[float]
    per_dataset: dict[str, float | None]


def validate(fit: Fit, claims: Claims, seeds: Sequence[int] = range(5), k: int = 5) -> Scored:
    n = len(claims.gold)
    means = []
    for seed in seeds:
        folds = stratified_folds([not g for g in claims.gold], k, seed)
        values = []
        for fold in folds:
            excluded = set(fold)
            predicted, _ = fit([i for i in range(n) if i not in excluded], fold)
            value = balanced_accuracy([claims.gold[i] for i in fold], predicted)
            if value is not None:
                values.append(value)
        means.append(sum(values) / len(values))
    predicted_all = [False] * n
    scores_all = [0.0] * n
    per_dataset: dict[str, float | None] = {}
    for name in sorted(set(claims.datasets)):
        held = [i for i, d in enumerate(claims.datasets) if d == name]
        train = [i for i, d in enumerate(claims.datasets) if d != name]
        predicted, scores = fit(train, held)
        for i, p, s in zip(held, predicted, scores, strict=True):
            predicted_all[i], scores_all[i] = p, s
        per_dataset[name] = balanced_accuracy([claims.gold[i] for i in held], predicted)
    pooled = balanced_accuracy(claims.gold, predicted_all)
    return Scored(
        kfold=sum(means) / len(means),
        lodo=pooled if pooled is not None else float("nan"),
        lodo_predicted=predicted_all,
        lodo_scores=scores_all,
        per_dataset=per_dataset,
    )


# --- composed answers --------------------------------------------------------------------------


def composed_answers(
    datasets: Sequence[str],
    gold: Sequence[bool],
    count: int,
    seed: int = 0,
    sizes: tuple[int, int] = (3, 6),
) -> list[tuple[list[int], bool]]:
    """Answers of 3-6 claims of one dataset (indices into ``datasets`` and ``gold``, True for
    supported): half of them faithful (every claim supported), half hallucinated (one or two
    claims not supported, the rest supported)."""
    rng = random.Random(seed)
    by_dataset: dict[str, tuple[list[int], list[int]]] = {}
    for i, (name, supported) in enumerate(zip(datasets, gold, strict=True)):
        good, bad = by_dataset.setdefault(name, ([], []))
        (good if supported else bad).append(i)
    names = sorted(n for n, (good, bad) in by_dataset.items() if len(good) >= sizes[1] and bad)
    answers: list[tuple[list[int], bool]] = []
    for number in range(count):
        good, bad = by_dataset[names[number % len(names)]]
        size = rng.randint(*sizes)
        faithful = number % 2 == 0
        wrong = 0 if faithful else min(rng.randint(1, 2), len(bad), size)
        members = rng.sample(good, size - wrong) + rng.sample(bad, wrong)
        rng.shuffle(members)
        answers.append((members, faithful))
    return answers


def score_answers(
    claims: Claims, answers: list[tuple[list[int], bool]], lever: Scored
) -> dict[str, float | None]:
    gold = [faithful for _, faithful in answers]
    every = [all(lever.lodo_predicted[i] for i in members) for members, _ in answers]
    weakest = [min(lever.lodo_scores[i] for i in members) for members, _ in answers]
    groups = [claims.datasets[members[0]] for members, _ in answers]
    tuned = [False] * len(answers)
    thresholds = {}
    for name in sorted(set(groups)):
        train = [j for j, g in enumerate(groups) if g != name]
        threshold = _threshold([weakest[j] for j in train], [gold[j] for j in train])
        thresholds[name] = threshold
        for j, g in enumerate(groups):
            if g == name:
                tuned[j] = threshold is not None and weakest[j] >= threshold
    return {
        "every claim passes": balanced_accuracy(gold, every),
        "weakest claim, answer threshold (LODO)": balanced_accuracy(gold, tuned),
        "answer thresholds": float(np.median([t for t in thresholds.values() if t is not None])),
    }


# --- report ------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--signals", type=Path, nargs="+", required=True)
    parser.add_argument("--answers", type=int, default=0, help="composed answers to score")
    parser.add_argument("--no-boosting", action="store_true", help="skip lever f (the slowest)")
    args = parser.parse_args(argv)
    claims = load(args.data, args.signals)
    n = len(claims.gold)
    gated_whole = [FENCE if f else s for f, s in zip(claims.flagged, claims.whole, strict=True)]
    gated = [FENCE if f else s for f, s in zip(claims.flagged, claims.weakest, strict=True)]
    levers: list[tuple[str, Fit]] = [
        (
            "a P(yes), whole evidence (2000-token windows)",
            threshold_lever(claims.whole, claims.gold),
        ),
        ("b a + exact checks as a hard pre-filter", threshold_lever(gated_whole, claims.gold)),
        (
            "c b + each sentence judged, weakest taken — the default",
            threshold_lever(gated, claims.gold),
        ),
        (
            "d c's checks + logistic regression on the features",
            learned_lever(claims, "logistic", gate=True),
        ),
        (
            "e logistic regression, checks as a feature (no gate)",
            learned_lever(claims, "logistic", gate=False),
        ),
    ]
    if not args.no_boosting:
        boosted = learned_lever(claims, "boosting", gate=True)
        levers.append(("f c's checks + gradient boosting, sigmoid-calibrated", boosted))
    if any(p is not None for p in claims.probe):
        levers.append(
            (
                "g c + contradiction follow-up of every claim passed, P(contradicted) veto",
                veto_lever(gated, claims.probe, claims.gold),
            )
        )
    levers.append(
        (
            "h c, but a date or number left out (no competing value) goes to the judge",
            soft_absence_lever(claims.weakest, claims.flagged, claims.absent_only, claims.gold),
        )
    )
    levers.append(
        (
            "i c with a threshold that moves with the evidence's length",
            length_lever(gated, claims.evidence_chars, claims.gold),
        )
    )
    if any(p is not None for p in claims.unhedged):
        # A hedged claim is implied by its plain form: it is at least as supported.
        plain = [
            s if u is None else max(s, u)
            for s, u in zip(claims.weakest, claims.unhedged, strict=True)
        ]
        gated_plain = [FENCE if f else s for f, s in zip(claims.flagged, plain, strict=True)]
        levers.append(
            (
                "j c, a hedged claim as supported as its plain form (the higher score)",
                threshold_lever(gated_plain, claims.gold),
            )
        )
    levers.append(
        (
            "k i on long evidence only: scores below a length floor left as read",
            floored_length_lever(gated, claims.evidence_chars, claims.gold),
        )
    )
    if any(p is not None for p in claims.selected):
        # On long evidence the small judge passes most unsupported claims the checks let
        # through: the claim set beside the few sentences that match it best, as a second view.
        for tag, pick in (("l", min), ("m", max)):
            focused = [
                s if f or v is None or not math.isfinite(s) else pick(s, v)
                for s, v, f in zip(gated, claims.selected, claims.flagged, strict=True)
            ]
            how = "lower" if pick is min else "higher"
            levers.append(
                (
                    f"{tag} c, on long evidence the {how} of it and P(yes) on the selected "
                    "sentences",
                    threshold_lever(focused, claims.gold),
                )
            )
    print(f"{n} claims, {sum(claims.gold)} supported, {len(set(claims.datasets))} datasets;")
    print(f"{sum(claims.flagged)} flagged by the exact checks; features: {', '.join(FEATURES)}\n")
    print("| lever | k-fold (5 folds x 5 seeds) | LODO pooled | McNemar vs c (LODO) |")
    print("|---|---|---|---|")
    results: dict[str, Scored] = {}
    for name, fit in levers:
        results[name] = validate(fit, claims)
    default = results[levers[2][0]]
    for name, scored in results.items():
        a, b, p = accuracy.mcnemar(claims.gold, scored.lodo_predicted, default.lodo_predicted)
        versus = "" if scored is default else f"{a} fixed, {b} broken, p = {p:.3f}"
        print(f"| {name} | {scored.kfold:.3f} | {scored.lodo:.3f} | {versus} |")
    print("\nLODO balanced accuracy per held-out dataset:\n")
    names = sorted(set(claims.datasets))
    print("| lever | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for name, scored in results.items():
        cells = [f"{v:.2f}" if v is not None else "-" for v in scored.per_dataset.values()]
        print(f"| {name.split(' ', 1)[0]} | " + " | ".join(cells) + " |")
    if args.answers:
        answers = composed_answers(claims.datasets, claims.gold, args.answers)
        sizes = [len(m) for m, _ in answers]
        print(
            f"\n{len(answers)} composed answers, {sum(f for _, f in answers)} faithful, "
            f"{min(sizes)}-{max(sizes)} sentences (mean {sum(sizes) / len(sizes):.1f}):\n"
        )
        print(
            "| lever | every claim passes | weakest claim vs answer threshold (LODO) | its median |"
        )
        print("|---|---|---|---|")
        for name, scored in results.items():
            out = score_answers(claims, answers, scored)
            cells = [f"{v:.3f}" if v is not None else "-" for v in out.values()]
            print(f"| {name.split(' ', 1)[0]} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
