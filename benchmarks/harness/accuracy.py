"""Accuracy levers on labelled claims: one run collects every signal, one table scores each step.

    judge local up
    python -m benchmarks.harness.accuracy collect --data ../shared/data/dev/dev_claims.jsonl \
        --out benchmarks/results/accuracy_signals.jsonl
    python -m benchmarks.harness.accuracy table --signals benchmarks/results/accuracy_signals.jsonl

Judge: ``collect`` needs one, the endpoint the settings name (``JUDGE_BASE_URL`` and
``JUDGE_MODEL``), else the embedded judge (``judge local up``); ``table`` needs none. Time on the
2-core development machine with the embedded judge: 15-20 s per claim for the default's signals
(``--modes whole,probe,sentences``, eleventh round: about 2 hours for the 400 development
claims; RESULTS.md), 7-9 s per claim for the selected sentences alone (twelfth round: 31
minutes for 222 claims; history/accuracy-rounds-2026-11-29-to-12-03.md). ``table``: not
measured (no judge call).

`collect` runs, per claim, the exact checks (no model call) and the judge in the evidence modes
asked for: the whole cited evidence (windowed), the evidence sentences selected for the claim,
or each sentence of a multi-sentence claim on the whole evidence. It records the judge's answer
and its scores from the answer token's log-probabilities: P(supported) / P(contradicted) for the
three-way `label_only` variant (its prompt is byte-identical to `label_first`'s, so the scores are
the same), P(yes) for `yes_no`. It appends one JSON line per claim and skips ids already
written, so an interrupted run resumes.

`table` scores each step with thresholds chosen by stratified k-fold cross-validation (a fold's
threshold is never scored on the records it was tuned on), and compares steps with McNemar's test.
It also scores each step leave-one-dataset-out: the threshold is tuned on every dataset but one
and scored on that one, and the held-out predictions of all datasets are pooled (LODO column),
the honest estimate for data from a source the threshold never saw.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import random
import re
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.common import mcnemar, missing_names, read_jsonl
from judge.config import EvidenceMode, Settings, load_settings
from judge.errors import VerifierFault
from judge.eval.calibrate import (
    Objective,
    choose_threshold,
    cross_validate_threshold,
    stratified_folds,
)
from judge.eval.crossval import leave_one_group_out
from judge.eval.metrics import balanced_accuracy, roc_auc
from judge.judges.cache import VerdictCache
from judge.pipeline.checks import default_checks
from judge.pipeline.entail.aggregate import judge_over_windows
from judge.pipeline.entail.claim import claim_premises, evidence_views, selected_spans
from judge.pipeline.entail.connect import resolve_endpoint
from judge.pipeline.entail.llm_judge import build_http_judge
from judge.reading.sentences import split_sentences
from judge.schemas import CheckStatus, Claim, EvidenceLedger, Passage
from judge.schemas.judging import Premise

MODES = ("whole", "selected")
# Steps 1-14 were measured in 700-token windows (the default before step 15 made it 2000).
BASE_WINDOW = 700
CONTENT_FREE = "N/A"


def signal_key(mode: str, variant: str) -> str:
    """A row's key for one evidence mode judged in one verdict variant ("selected",
    "whole@yes_no"); label_only keys carry no suffix, as in the first runs."""
    return mode if variant == "label_only" else f"{mode}@{variant}"


def done_ids(path: Path) -> set[str]:
    if not path.exists():
        return set()
    ids: set[str] = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            ids.add(json.loads(line)["id"])
        except (ValueError, KeyError):
            continue  # a torn last line is redone
    return ids


def check_signals(claim: str, evidence: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for check in default_checks():
        outcome = check(claim, evidence)
        if outcome is not None:
            out[check.name] = outcome.status.value
    return out


def record_checks(record: dict[str, Any]) -> dict[str, str]:
    """The exact checks on a labelled record's claim and whole evidence (no model call)."""
    return check_signals(record["claim"], "\n\n".join(e["text"] for e in record["evidence"]))


def recheck(rows: list[dict[str, Any]], data: Path) -> None:
    """Score the exact checks as the code stands now, not as they stood when the signals were
    collected, with the candidate names check (step 14) beside them."""
    records = {r["id"]: r for r in read_jsonl(data)}
    for row in rows:
        record = records[row["id"]]
        row["checks"] = record_checks(record)
        evidence = "\n\n".join(e["text"] for e in record["evidence"])
        if missing_names(record["claim"], evidence):
            row["checks"][CANDIDATE_NAMES] = CheckStatus.FAILED.value


async def judge_sentences(
    judge: Any, claim: Claim, ledger: EvidenceLedger, settings: Any
) -> dict[str, Any]:
    """Each sentence of a multi-sentence claim judged on the whole evidence; the claim's score
    is its weakest sentence's. A one-sentence claim is left to the whole-evidence signal."""
    sentences = [s.text for s in split_sentences(claim.text, strict=False)]
    if len(sentences) < 2:
        return {"sentences": 1}
    parts = []
    for number, text in enumerate(sentences, start=1):
        part = claim.model_copy(update={"id": f"{claim.id}.{number}", "text": text})
        parts.append(await judge_mode(judge, part, ledger, "whole", settings))
    failed = [p for p in parts if "error" in p]
    if failed:
        return {"error": failed[0]["error"], "sentences": len(sentences)}
    return {
        "label": min(parts, key=lambda p: p["p_supported"] or 0.0)["label"],
        "p_supported": min(p["p_supported"] or 0.0 for p in parts),
        "sentence_scores": [p["p_supported"] for p in parts],
        "sentences": len(sentences),
        "windows": sum(p["windows"] for p in parts),
        "calls": sum(p["calls"] for p in parts),
        "cached": all(p["cached"] for p in parts),
        "prompt_tokens": sum(p["prompt_tokens"] for p in parts),
        "seconds": round(sum(p["seconds"] for p in parts), 3),
    }


async def judge_facts(
    judge: Any, claim: Claim, ledger: EvidenceLedger, settings: Any
) -> dict[str, Any]:
    """The decomposition lever (`--extractor llm`): each sentence split into atomic facts by
    the judge model, each fact judged in auto mode; the claim's score is its weakest fact's.
    Calls count the decomposition calls too."""
    started = time.perf_counter()
    sentences = [s.text for s in split_sentences(claim.text, strict=False)] or [claim.text]
    facts: list[str] = []
    try:
        for number, sentence in enumerate(sentences):
            facts += await judge.decompose(sentence, " ".join(sentences[:number]))
    except VerifierFault as exc:
        return {"error": f"{type(exc).__name__}: {exc}"[:300], "windows": len(sentences)}
    parts = []
    for number, text in enumerate(facts, start=1):
        fact = claim.model_copy(update={"id": f"{claim.id}.f{number}", "text": text})
        views = evidence_views(fact, list(ledger.passages), ledger, settings)
        parts.append(await judge_premises(judge, fact, views.premises[0]))
    failed = [p for p in parts if "error" in p]
    if failed:
        return {"error": failed[0]["error"], "facts": facts}
    return {
        "label": min(parts, key=lambda p: p["p_supported"] or 0.0)["label"],
        "p_supported": min(p["p_supported"] or 0.0 for p in parts),
        "fact_scores": [p["p_supported"] for p in parts],
        "facts": facts,
        # One call per sentence decomposed and per fact window: what an uncached run costs.
        "windows": len(sentences) + sum(p["windows"] for p in parts),
        "calls": len(sentences) + sum(p["calls"] for p in parts),
        "cached": any(p["cached"] for p in parts),  # seconds of a partly cached claim flatter
        "prompt_tokens": sum(p["prompt_tokens"] for p in parts),
        "seconds": round(time.perf_counter() - started, 3),
    }


async def judge_mode(
    judge: Any, claim: Claim, ledger: EvidenceLedger, mode: str, settings: Any
) -> dict[str, Any]:
    if mode == "sentences":
        return await judge_sentences(judge, claim, ledger, settings)
    if mode == "facts":
        return await judge_facts(judge, claim, ledger, settings)
    if mode == "unhedged":
        # The claim without its epistemic hedges ("may", "suggests that"): a hedged claim is
        # implied by its plain form, so the plain form's score is a lower bound of its own.
        plain = unhedged(claim.text)
        if plain == claim.text:
            return {"unchanged": True}
        stripped = claim.model_copy(update={"text": plain})
        result = await judge_premises(judge, stripped, claim_premises(stripped, ledger, settings))
        return {**result, "text": plain}
    if mode == "probe":
        # The contradiction follow-up asked of every claim, not only of those found unsupported:
        # P(contradicted) on the whole evidence as a signal of its own.
        return await probe_premises(judge, claim, claim_premises(claim, ledger, settings))
    if mode == "null":
        # Contextual calibration (Zhao et al., 2021): P(yes) for a content-free claim on the
        # evidence the claim is judged on in auto mode, the judge's bias for that evidence.
        # The premises depend on the claim's citations, not its text: the blank claim shares them.
        views = evidence_views(claim, list(ledger.passages), ledger, settings)
        blank = claim.model_copy(update={"text": CONTENT_FREE})
        return await judge_premises(judge, blank, views.premises[0])
    # The pipeline's own selection of evidence sentences.
    spans = (
        selected_spans(claim.text, list(ledger.passages), settings) if mode == "selected" else None
    )
    return await judge_premises(judge, claim, claim_premises(claim, ledger, settings, spans))


async def judge_premises(judge: Any, claim: Claim, premises: list[Premise]) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        result = await judge_over_windows(judge, claim, premises, None, 0.5, 0.5)
    except VerifierFault as exc:
        return {
            "error": f"{type(exc).__name__}: {exc}"[:300],
            "windows": len(premises),  # a failed claim cost its calls all the same
            "seconds": time.perf_counter() - started,
        }
    return {
        "label": result.trace.raw_label,
        "p_supported": result.p_supported,
        "p_contradicted": result.p_contradicted,
        "windows": len(premises),
        "calls": result.trace.calls,
        "cached": result.trace.cached,
        "prompt_tokens": result.trace.prompt_tokens,
        "completion_tokens": result.trace.completion_tokens,
        "premise_chars": sum(len(p.text) for p in premises),
        "seconds": round(time.perf_counter() - started, 3),
    }


_HEDGE = re.compile(
    r"\b(?:may|might|could|possibly|probably|likely|potentially|perhaps)\s+(?:be\s+able\s+to\s+)?"
    r"|\b(?:appears?|seems?)\s+to\s+(?=\w)"
    r"|\bthat\s+(?=may\b|might\b|could\b)",
    re.IGNORECASE,
)
# "suggests" and "indicates" report a finding; "shows" states it.
_REPORTS = re.compile(r"\b(?:suggest|indicat)(e?s|ed|ing|e)?\b", re.IGNORECASE)


def unhedged(text: str) -> str:
    """``text`` without its epistemic hedges, for the ``unhedged`` signal."""
    plain = _REPORTS.sub(lambda m: "show" + {"es": "s", "e": ""}.get(m[1] or "", m[1] or ""), text)
    return re.sub(r"\s{2,}", " ", _HEDGE.sub("", plain)).strip()


async def probe_premises(judge: Any, claim: Claim, premises: list[Premise]) -> dict[str, Any]:
    """The highest P(contradicted) the probe gives over the claim's windows."""
    started = time.perf_counter()
    scores: list[float] = []
    calls = 0
    try:
        for premise in premises:
            result = await judge.probe_contradiction(claim, premise)
            calls += result.trace.calls
            scores.append(result.p_contradicted if result.p_contradicted is not None else 0.0)
    except VerifierFault as exc:
        return {"error": f"{type(exc).__name__}: {exc}"[:300], "windows": len(premises)}
    return {
        "p_contradicted": max(scores),
        "windows": len(premises),
        "calls": calls,
        "seconds": round(time.perf_counter() - started, 3),
    }


def whole_windows(record: dict[str, Any], settings: Settings) -> list[Premise]:
    """The record's whole evidence in the token windows of ``settings``."""
    passages = tuple(Passage(id=e["id"], text=e["text"]) for e in record["evidence"])
    ledger = EvidenceLedger(passages=passages)
    claim = Claim(id="c1", text=record["claim"], citations=tuple(ledger.ids))
    return claim_premises(claim, ledger, settings)


async def collect(args: argparse.Namespace) -> int:
    settings = load_settings(
        verdict_variant=args.variant,
        concurrency=1,
        timeout_s=args.timeout,
        reasks=1,
        window_tokens=args.window_tokens,
        evidence_mode=EvidenceMode.AUTO,  # what the facts and null modes judge on
    )
    base_url, model = await resolve_endpoint(settings)
    records = read_jsonl(args.data)
    # A fixed shuffle: a run stopped early still covers every dataset in proportion.
    random.Random(args.shuffle_seed).shuffle(records)
    if args.stratified:
        records = stratified(records)
    records = records[: args.limit]
    if args.multi_window_at:
        narrow = load_settings(window_tokens=args.multi_window_at)
        records = [r for r in records if len(whole_windows(r, narrow)) > 1]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    skip = done_ids(args.out)
    todo = [r for r in records if r["id"] not in skip]
    print(f"{len(records) - len(todo)} done, {len(todo)} to go", file=sys.stderr)
    # The pipeline's own cache: a later `judge eval` of this configuration reuses these verdicts.
    cache = VerdictCache(settings.cache_dir)
    judge = build_http_judge(settings, base_url=base_url, model=model, cache=cache)
    modes = args.modes.split(",")
    started = time.perf_counter()
    try:
        for n, record in enumerate(todo, start=1):
            passages = tuple(Passage(id=e["id"], text=e["text"]) for e in record["evidence"])
            ledger = EvidenceLedger(passages=passages)
            claim = Claim(id="c1", text=record["claim"], citations=tuple(ledger.ids))
            view = judge.for_request(ledger_hash=ledger.ledger_hash)
            row: dict[str, Any] = {
                "id": record["id"],
                "dataset": record["dataset"],
                "gold": record["label"],
                "numeric": bool(record.get("meta", {}).get("numeric")),
                "checks": record_checks(record),
            }
            for mode in modes:
                # Another window size is another signal: "whole-w2000@yes_no".
                key = mode if args.window_tokens == BASE_WINDOW else f"{mode}-w{args.window_tokens}"
                row[signal_key(key, args.variant)] = await judge_mode(
                    view, claim, ledger, mode, settings
                )
            with args.out.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(row) + "\n")
            rate = (time.perf_counter() - started) / n
            print(
                f"[{n}/{len(todo)}] {record['id']} {rate:.1f} s/claim, "
                f"eta {rate * (len(todo) - n) / 60:.0f} min",
                file=sys.stderr,
                flush=True,
            )
    finally:
        await judge.aclose()
        cache.close()
    return 0


def stratified(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records in turns over (dataset, supported or not), each group in its shuffled order:
    the first N cover every dataset and both classes as evenly as N allows, so that a small run
    can still be scored leave-one-dataset-out."""
    groups: dict[tuple[str, bool], list[dict[str, Any]]] = {}
    for record in records:
        groups.setdefault((record["dataset"], record["label"] == "supported"), []).append(record)
    queues = [groups[key] for key in sorted(groups)]
    ordered: list[dict[str, Any]] = []
    for turn in range(max(len(q) for q in queues)):
        ordered.extend(q[turn] for q in queues if turn < len(q))
    return ordered


# --- scoring ---------------------------------------------------------------------------------


def check_failed(row: dict[str, Any], include: Sequence[str]) -> bool:
    return any(
        row["checks"].get(name) in (CheckStatus.FAILED.value, CheckStatus.NEEDS_REVIEW.value)
        for name in include
    )


def score_of(row: dict[str, Any], mode: str) -> float:
    """P(supported); a judge error counts as the lowest score (fail closed)."""
    value = row.get(mode, {}).get("p_supported")
    return float(value) if value is not None else 0.0


def cv(scores: list[float], gold: list[bool], k: int, seeds: Sequence[int]) -> dict[str, float]:
    means, stds, pooled = [], [], []
    for seed in seeds:
        result = cross_validate_threshold(scores, gold, k, Objective("balanced_accuracy"), seed)
        if result.mean is not None and result.std is not None:
            means.append(result.mean)
            stds.append(result.std)
        pooled.append(heldout_predictions(scores, gold, k, seed, result.thresholds))
    return {
        "mean": sum(means) / len(means),
        "fold_std": sum(stds) / len(stds),
        "pooled_predictions": pooled[0],  # type: ignore[dict-item]
        "thresholds": result.thresholds,  # type: ignore[dict-item]
    }


def heldout_predictions(
    scores: list[float], gold: list[bool], k: int, seed: int, thresholds: Sequence[float | None]
) -> list[bool]:
    """Each record's prediction from the threshold tuned without it (None: predict flagged)."""
    folds = stratified_folds([not g for g in gold], k, seed)
    predicted = [False] * len(scores)
    for fold, threshold in zip(folds, thresholds, strict=True):
        for index in fold:
            predicted[index] = threshold is not None and scores[index] >= threshold
    return predicted


def merged_rows(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """Rows of several signal files joined by id (a mode measured in a later file is added)."""
    by_id: dict[str, dict[str, Any]] = {}
    for path in paths:
        for row in read_jsonl(path):
            by_id.setdefault(row["id"], {}).update(row)
    return list(by_id.values())


YES_NO_WHOLE, YES_NO_SELECTED = "whole@yes_no", "selected@yes_no"
SENTENCES = "sentences@yes_no"
QUOTE_FIRST, FACTS = "selected@quote_first", "facts@yes_no"
CONTENT_FREE_KEY = "null@yes_no"
WIDE, WIDE_SENTENCES = "whole-w2000@yes_no", "sentences-w2000@yes_no"
CANDIDATE_NAMES = "names (candidate)"  # common.missing_names; scored only with --data


@dataclass
class Step:
    """One row of the table: a score per claim, the signals each claim's score spent (the judge
    calls it costs), and the step it is compared with."""

    name: str
    scores: list[float]
    spent: list[list[str]]
    versus: str | None = None

    @property
    def number(self) -> str:
        return self.name.split(" ", 1)[0]

    @property
    def needs(self) -> set[str]:
        return {key for keys in self.spent for key in keys}


def auto_key(row: dict[str, Any]) -> str:
    """The `auto` evidence mode: the whole passages when they fit one window, else the
    selected sentences."""
    return YES_NO_WHOLE if row.get(YES_NO_WHOLE, {}).get("windows", 1) == 1 else YES_NO_SELECTED


def step_scores(rows: list[dict[str, Any]]) -> list[Step]:
    """Each step's per-claim score (P(supported); -inf where an exact check decided)."""
    checks = [c.name for c in default_checks()]
    fence = -math.inf

    def gated(score: float, row: dict[str, Any], include: Sequence[str] = checks) -> float:
        return fence if check_failed(row, include) else score

    def mean(row: dict[str, Any], *keys: str) -> float:
        return sum(score_of(row, k) for k in keys) / len(keys)

    def each(*keys: str) -> list[list[str]]:
        return [list(keys) for _ in rows]

    both = (YES_NO_SELECTED, YES_NO_WHOLE)
    return [
        Step(
            "1 naive judge: whole evidence, three-way JSON label",
            [1.0 if r.get("whole", {}).get("label") == "supported" else 0.0 for r in rows],
            each("whole"),
        ),
        Step(
            "2 + score: P(supported), CV threshold",
            [score_of(r, "whole") for r in rows],
            each("whole"),
            "1",
        ),
        Step(
            "3 + yes/no consistency question, P(yes)",
            [score_of(r, YES_NO_WHOLE) for r in rows],
            each(YES_NO_WHOLE),
            "2",
        ),
        Step(
            "4 + exact checks as a hard pre-filter",
            [gated(score_of(r, YES_NO_WHOLE), r) for r in rows],
            each(YES_NO_WHOLE),
            "3",
        ),
        Step(
            "5 4 on selected sentences (BM25) instead of whole passages",
            [gated(score_of(r, YES_NO_SELECTED), r) for r in rows],
            each(YES_NO_SELECTED),
            "4",
        ),
        Step(
            "6 4 on both views, mean P(yes)",
            [gated(mean(r, *both), r) for r in rows],
            each(*both),
            "4",
        ),
        Step(
            "7 4 in auto mode: whole passages if they fit one window, else selected",
            [gated(score_of(r, auto_key(r)), r) for r in rows],
            [[auto_key(r)] for r in rows],
            "4",
        ),
        Step(
            "8 6 + each sentence of a multi-sentence claim judged too (min)",
            [gated(split_score(r), r) for r in rows],
            each(*both, SENTENCES),
            "6",
        ),
        Step(
            "9 first default: three-way label on selected sentences, exact checks",
            [gated(score_of(r, "selected"), r) for r in rows],
            each("selected"),
            "7",
        ),
        Step(
            "10 7 + each sentence of a multi-sentence claim judged too (min)",
            [gated(default_score(r), r) for r in rows],
            [[auto_key(r), SENTENCES] for r in rows],
            "7",
        ),
        Step(
            "11 9 asking for the supporting quote before the label (quote_first)",
            [gated(score_of(r, QUOTE_FIRST), r) for r in rows],
            each(QUOTE_FIRST),
            "9",
        ),
        Step(
            "12 7 on atomic facts from LLM decomposition (weakest fact)",
            [gated(score_of(r, FACTS), r) for r in rows],
            each(FACTS),
            "10",
        ),
        Step(
            "13 10 + contextual calibration: logit P(yes) minus that of a content-free claim",
            [gated(contextual(r), r) for r in rows],
            [[auto_key(r), SENTENCES, CONTENT_FREE_KEY] for r in rows],
            "10",
        ),
        Step(
            "14 10 + a names check as a hard pre-filter (candidate, not shipped)",
            [gated(default_score(r), r, [*checks, CANDIDATE_NAMES]) for r in rows],
            [[auto_key(r), SENTENCES] for r in rows],
            "10",
        ),
        Step(
            "15 7 with 2000-token windows (whole passages for 399 of 400 claims)",
            [gated(score_of(r, wide_key(r)), r) for r in rows],
            [[wide_key(r)] for r in rows],
            "7",
        ),
        Step(
            "16 15 + each sentence of a multi-sentence claim judged too (min)",
            [gated(wide_score(r), r) for r in rows],
            [[wide_key(r), WIDE_SENTENCES] for r in rows],
            "10",
        ),
    ]


def wide_key(row: dict[str, Any]) -> str:
    """Auto mode with 2000-token windows. Without a selected-sentences signal, a claim whose
    evidence spans several windows keeps its whole-evidence one (judged window by window)."""
    if row.get(WIDE, {}).get("windows", 1) == 1 or YES_NO_SELECTED not in row:
        return WIDE
    return YES_NO_SELECTED


def wide_score(row: dict[str, Any]) -> float:
    """Step 16: auto mode in 2000-token windows, lowered to the weakest sentence."""
    return min(score_of(row, wide_key(row)), sentence_score(row, WIDE_SENTENCES))


def fill_wide(rows: list[dict[str, Any]]) -> None:
    """Only claims whose evidence needs more than one 700-token window are judged again in
    2000-token windows (`--multi-window-at 700`): every other claim's whole evidence is the same
    single window at either size, so its 700-token signals stand for both."""
    for wide, base in ((WIDE, YES_NO_WHOLE), (WIDE_SENTENCES, SENTENCES)):
        if not any(wide in row for row in rows):
            continue
        for row in rows:
            if wide not in row and row.get(YES_NO_WHOLE, {}).get("windows") == 1 and base in row:
                row[wide] = row[base]


def default_score(row: dict[str, Any]) -> float:
    """Step 10, the shipped default: auto evidence, lowered to the weakest sentence."""
    return min(score_of(row, auto_key(row)), sentence_score(row))


def logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def contextual(row: dict[str, Any]) -> float:
    """Contextual calibration (Zhao et al., 2021): the default's P(yes) with the judge's bias
    for the evidence, P(yes) for the content-free claim on it, taken out in log-odds."""

    shifted = logit(default_score(row)) - logit(score_of(row, CONTENT_FREE_KEY))
    return 1 / (1 + math.exp(-shifted))


def sentence_score(row: dict[str, Any], key: str = SENTENCES) -> float:
    """The weakest sentence's P(yes) on a multi-sentence claim; +inf on a one-sentence claim."""
    if row.get(key, {}).get("sentences", 1) < 2:
        return math.inf
    return score_of(row, key)


def split_score(row: dict[str, Any]) -> float:
    """Step 6's score, lowered to the weakest sentence's P(yes) on a multi-sentence claim."""
    both = (score_of(row, YES_NO_SELECTED) + score_of(row, YES_NO_WHOLE)) / 2
    return min(both, sentence_score(row))


def has_signal(row: dict[str, Any], key: str) -> bool:
    """Whether the claim was judged for this signal. A judge error counts: the pipeline would
    report verifier_error and block, so it is scored as the lowest score (fail closed)."""
    if key in (SENTENCES, WIDE_SENTENCES):  # a one-sentence claim has nothing more to judge
        return key in row
    return any(field in row.get(key, {}) for field in ("p_supported", "label", "error"))


def live_seconds(rows: list[dict[str, Any]], spent: list[list[str]]) -> float:
    """Mean seconds per claim over the claims judged live (cache hits would flatter it)."""
    total = 0.0
    for key in {k for keys in spent for k in keys}:
        uses = [row[key] for row, keys in zip(rows, spent, strict=True) if key in keys]
        live = [u.get("seconds", 0.0) for u in uses if not u.get("cached")]
        if live:
            total += statistics.mean(live) * len(uses) / len(rows)
    return total


def score_steps(
    rows: list[dict[str, Any]], steps: list[Step], k: int, seeds: list[int]
) -> list[dict[str, Any]]:
    gold = [r["gold"] == "supported" for r in rows]
    datasets = [r["dataset"] for r in rows]
    results: list[dict[str, Any]] = []
    for step in steps:
        # An uncached run makes one call per evidence window (re-asks aside).
        calls = sum(
            sum(row.get(key, {}).get("windows", 0) for key in keys)
            for row, keys in zip(rows, step.spent, strict=True)
        ) / len(rows)
        scores = step.scores
        finite = [(x, g) for x, g in zip(scores, gold, strict=True) if math.isfinite(x)]
        auc = roc_auc([x for x, _ in finite], [g for _, g in finite]) if finite else None
        lodo = None
        if step.number == "1":
            predicted = [x >= 0.5 for x in scores]
            ba, sd, thresholds = balanced_accuracy(gold, predicted), 0.0, None
            lodo = ba  # a fixed threshold is tuned on nothing
        else:
            if len(set(datasets)) >= 2:
                lodo = leave_one_group_out(scores, gold, datasets).pooled
            summary = cv(scores, gold, k, seeds)
            ba, sd = summary["mean"], summary["fold_std"]
            predicted = summary["pooled_predictions"]  # type: ignore[assignment]
            thresholds = summary["thresholds"]
        results.append(
            {
                "step": step.name,
                "number": step.number,
                "versus": step.versus,
                "ba": ba,
                "sd": sd,
                "lodo": lodo,
                "auc": auc,
                "calls": calls,
                "seconds": live_seconds(rows, step.spent),
                "predicted": predicted,
                "thresholds": thresholds,
            }
        )
    return results


def print_table(rows: list[dict[str, Any]], results: list[dict[str, Any]]) -> None:
    gold = [r["gold"] == "supported" for r in rows]
    print(
        "| step | balanced accuracy (CV mean ± fold sd) | LODO balanced accuracy | ROC-AUC "
        "| judge calls / claim | s / claim | McNemar vs step |"
    )
    print("|---|---|---|---|---|---|---|")
    by_number = {res["number"]: res for res in results}
    for res in results:
        test = ""
        base = by_number.get(res["versus"] or "")
        if base is not None:
            a, b, p = mcnemar(gold, base["predicted"], res["predicted"])
            test = f"vs {base['number']}: {b} fixed, {a} broken, p = {p:.3f}"
        auc = f"{res['auc']:.3f}" if res["auc"] is not None else "–"
        lodo = f"{res['lodo']:.3f}" if res.get("lodo") is not None else "–"
        print(
            f"| {res['step']} | {res['ba']:.3f} ± {res['sd']:.3f} | {lodo} | {auc} | "
            f"{res['calls']:.2f} | {res['seconds']:.1f} | {test} |"
        )


def table(args: argparse.Namespace) -> int:
    rows = merged_rows(args.signals)
    if args.data is not None:
        recheck(rows, args.data)
    fill_wide(rows)
    k, seeds = args.folds, list(range(args.seeds))
    keys = sorted({key for r in rows for key in r if isinstance(r[key], dict) and key != "checks"})
    errors = {key: sum(1 for r in rows if "error" in r.get(key, {})) for key in keys}
    print(f"signals: {len(rows)} claims; judge errors per signal: {errors}")
    print(
        f"{k}-fold stratified cross-validation, mean over {len(seeds)} seeds; LODO: "
        f"leave-one-dataset-out over {len({r['dataset'] for r in rows})} datasets, pooled\n"
    )

    def runnable(subset: list[dict[str, Any]]) -> list[Step]:
        steps = step_scores(subset)
        return [s for s in steps if all(has_signal(r, key) for r in subset for key in s.needs)]

    paired = [r for r in rows if all(has_signal(r, key) for key in keys)]
    if len(paired) >= 4 * k and len(paired) < len(rows):
        print(f"### Every step, paired, on the {len(paired)} claims with every signal\n")
        print_table(paired, score_steps(paired, runnable(paired), k, seeds))
    full_keys = [key for key in keys if all(has_signal(r, key) for r in rows)]
    complete = [r for r in rows if all(has_signal(r, key) for key in full_keys)]
    steps = runnable(complete)
    print(f"\n### Every step with signals for all {len(complete)} claims\n")
    results = score_steps(complete, steps, k, seeds)
    print_table(complete, results)
    chosen = next(i for i, s in enumerate(steps) if s.number == args.default)
    final, scores = results[chosen], steps[chosen].scores
    print(f"\n### Default configuration (step {args.default}) by dataset, held-out predictions\n")
    print(
        "| dataset | n | balanced accuracy | supported recall | not-supported recall "
        "| LODO balanced accuracy | LODO t_entail |"
    )
    print("|---|---|---|---|---|---|---|")
    lodo = (
        leave_one_group_out(scores, [r["gold"] == "supported" for r in complete],
                            [r["dataset"] for r in complete])
        if len({r["dataset"] for r in complete}) >= 2 and args.default != "1"
        else None
    )  # fmt: skip
    by_dataset: dict[str, list[int]] = {}
    for i, r in enumerate(complete):
        by_dataset.setdefault(r["dataset"], []).append(i)
    for name, idx in sorted(by_dataset.items()):
        g = [complete[i]["gold"] == "supported" for i in idx]
        p = [final["predicted"][i] for i in idx]
        ba = balanced_accuracy(g, p)
        tp = sum(1 for x, y in zip(g, p, strict=True) if x and y)
        tn = sum(1 for x, y in zip(g, p, strict=True) if not x and not y)
        pos, neg = sum(g), len(g) - sum(g)
        held_ba = lodo.per_group.get(name) if lodo else None
        held_t = lodo.thresholds.get(name) if lodo else None
        print(
            f"| {name} | {len(idx)} | {'–' if ba is None else f'{ba:.3f}'} | "
            f"{tp}/{pos} | {tn}/{neg} | {'–' if held_ba is None else f'{held_ba:.3f}'} | "
            f"{'–' if held_t is None else f'{held_t:.4f}'} |"
        )
    gold = [r["gold"] == "supported" for r in complete]
    point = choose_threshold(
        scores, [not g for g in gold], Objective("balanced_accuracy"), flag_below=True
    )
    print(
        f"\nthreshold chosen on all {len(complete)} claims (the shipped default): "
        f"t_entail = {point.threshold:.4f} (in-sample balanced accuracy "
        f"{point.balanced_accuracy:.3f}; the CV figure above is the honest estimate)"
    )
    probe_table(complete, final["predicted"])
    if args.failures:
        print("\n### Misclassified claims (held-out predictions of the default), by gold class\n")
        for cls in ("supported", "unsupported", "contradicted"):
            wrong = [
                (complete[i]["id"], complete[i]["dataset"], scores[i], complete[i]["checks"])
                for i in range(len(complete))
                if complete[i]["gold"] == cls and final["predicted"][i] != (cls == "supported")
            ]
            print(f"{cls}: {len(wrong)} wrong")
            for rid, ds, sc, ch in wrong[: args.failures]:
                print(f"  {rid} ({ds}) score={sc:.3f} checks={ch}")
    return 0


def probe_table(rows: list[dict[str, Any]], predicted: list[bool]) -> None:
    """The contradiction probe on the claims the default flags: the three-way label-only
    question's P(contradicted) on the selected evidence, against gold where the source dataset
    tells contradicted from unsupported, at a few thresholds."""
    if not all(has_signal(r, "selected") for r in rows):
        return
    flagged = [r for r, p in zip(rows, predicted, strict=True) if not p]
    split = {r["dataset"] for r in rows if r["gold"] == "contradicted"}
    levels = (0.3, 0.4, 0.5)
    print(
        f"\n### Contradiction probe on the {len(flagged)} flagged claims "
        f"({len(flagged) / len(rows):.2f} extra calls per claim)\n"
    )
    print("| gold | flagged | " + " | ".join(f"P(contradicted) ≥ {t}" for t in levels) + " |")
    print("|---|---|" + "---|" * len(levels))
    for cls in ("contradicted", "unsupported", "supported"):
        group = [r for r in flagged if r["gold"] == cls and r["dataset"] in split]
        hits = [
            sum(1 for r in group if (r["selected"].get("p_contradicted") or 0.0) >= t)
            for t in levels
        ]
        print(f"| {cls} | {len(group)} | " + " | ".join(str(h) for h in hits) + " |")
    print(f"\n(datasets that label contradictions: {', '.join(sorted(split))})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--data", type=Path, required=True)
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--limit", type=int)
    c.add_argument("--modes", default=",".join(MODES))
    c.add_argument("--variant", default="label_only")
    c.add_argument("--timeout", type=float, default=600.0)
    c.add_argument("--shuffle-seed", type=int, default=13)
    c.add_argument(
        "--stratified",
        action="store_true",
        help="take claims in turns over dataset and label (for a small leave-one-dataset-out run)",
    )
    c.add_argument(
        "--window-tokens",
        type=int,
        default=BASE_WINDOW,
        help=f"evidence window size; any but {BASE_WINDOW} is its own signal key",
    )
    c.add_argument(
        "--multi-window-at",
        type=int,
        metavar="TOKENS",
        help="only claims whose whole evidence needs more than one window of TOKENS",
    )
    c.set_defaults(run=lambda a: asyncio.run(collect(a)))
    t = sub.add_parser("table")
    t.add_argument("--signals", type=Path, nargs="+", required=True)
    t.add_argument("--data", type=Path, help="re-run the exact checks on these records")
    t.add_argument("--folds", type=int, default=5)
    t.add_argument("--seeds", type=int, default=5)
    t.add_argument("--failures", type=int, default=0, help="list up to N misclassified per class")
    t.add_argument("--default", default="5", help="the step number of the shipped default")
    t.set_defaults(run=table)
    args = parser.parse_args(argv)
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
