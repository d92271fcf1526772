"""Accuracy levers on labelled claims: one run collects every signal, one table scores each step.

    python benchmarks/accuracy.py collect --data ../shared/data/dev/dev_claims.jsonl \
        --out benchmarks/results/accuracy_signals.jsonl
    python benchmarks/accuracy.py table --signals benchmarks/results/accuracy_signals.jsonl

`collect` runs, per claim, the exact checks (no model call) and the judge in two evidence
modes: the whole cited evidence (windowed), and the evidence sentences selected for the claim.
It records the judge's own label and P(supported) / P(contradicted) from the label token's
log-probabilities. It appends one JSON line per claim and skips ids already written, so an
interrupted run resumes. The judge runs in the `label_only` variant: its prompt is byte-identical
to the default `label_first` verdict's, so the label token's probabilities are the same; only
the reason and quote that follow the label are not generated (measured: see ACCURACY.md).

`table` scores each step with thresholds chosen by stratified k-fold cross-validation (a fold's
threshold is never scored on the records it was tuned on), and compares steps with McNemar's test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from judge.cache import VerdictCache
from judge.calibrate import Objective, cross_validate_threshold, stratified_folds
from judge.checks import default_checks
from judge.client import build_http_judge
from judge.config import load_settings
from judge.entail import judge_claim
from judge.errors import VerifierFault
from judge.metrics_eval import balanced_accuracy, roc_auc
from judge.runtime import resolve_endpoint
from judge.schemas import CheckStatus, Claim, EvidenceLedger, Passage
from judge.select import select_evidence
from judge.windows import SourceSpan, premises_for_claim

MODES = ("whole", "selected")


def load_records(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


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


async def judge_mode(
    judge: Any, claim: Claim, ledger: EvidenceLedger, mode: str, settings: Any
) -> dict[str, Any]:
    spans = None
    if mode == "selected":
        selected = select_evidence(
            claim.text,
            list(ledger.passages),
            settings.selection_top_sentences,
            settings.selection_neighbours,
        )
        spans = [SourceSpan(s.passage_id, s.start, s.end) for s in selected]
    premises = premises_for_claim(
        claim,
        ledger,
        window_tokens=settings.window_tokens,
        overlap_tokens=settings.window_overlap_tokens,
        spans=spans,
    )
    started = time.perf_counter()
    try:
        result = await judge_claim(judge, claim, premises, None, 0.5, 0.5)
    except VerifierFault as exc:
        return {"error": f"{type(exc).__name__}: {exc}"[:300], "seconds": time.perf_counter() - started}
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


async def collect(args: argparse.Namespace) -> int:
    settings = load_settings(
        verdict_variant=args.variant, concurrency=1, timeout_s=args.timeout, reasks=1
    )
    base_url, model = await resolve_endpoint(settings)
    records = load_records(args.data)
    # A fixed shuffle: a run stopped early still covers every dataset in proportion.
    random.Random(args.shuffle_seed).shuffle(records)
    records = records[: args.limit]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    skip = done_ids(args.out)
    todo = [r for r in records if r["id"] not in skip]
    print(f"{len(records) - len(todo)} done, {len(todo)} to go", file=sys.stderr)
    # The pipeline's own cache: a later `judge eval` with the same configuration reuses these verdicts.
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
                "checks": check_signals(record["claim"], "\n\n".join(p.text for p in passages)),
            }
            for mode in modes:
                row[mode] = await judge_mode(view, claim, ledger, mode, settings)
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


def mcnemar(gold: list[bool], a: list[bool], b: list[bool]) -> tuple[int, int, float]:
    """Exact two-sided McNemar test on paired predictions: (a right only, b right only, p)."""
    only_a = sum(1 for g, x, y in zip(gold, a, b, strict=True) if x == g and y != g)
    only_b = sum(1 for g, x, y in zip(gold, a, b, strict=True) if y == g and x != g)
    n = only_a + only_b
    if n == 0:
        return 0, 0, 1.0
    tail = sum(math.comb(n, i) for i in range(0, min(only_a, only_b) + 1)) / 2**n
    return only_a, only_b, min(1.0, 2 * tail)


def table(args: argparse.Namespace) -> int:
    rows = load_records(args.signals)
    gold = [r["gold"] == "supported" for r in rows]
    all_checks = [c.name for c in default_checks()]
    k, seeds = args.folds, list(range(args.seeds))
    steps: list[tuple[str, list[float], float]] = []

    def add(name: str, scores: list[float], calls: float) -> None:
        steps.append((name, scores, calls))

    calls_whole = sum(r.get("whole", {}).get("calls", 0) for r in rows) / len(rows)
    calls_sel = sum(r.get("selected", {}).get("calls", 0) for r in rows) / len(rows)
    label_whole = [1.0 if r.get("whole", {}).get("label") == "supported" else 0.0 for r in rows]
    add("1 naive judge: whole evidence, JSON label", label_whole, calls_whole)
    add("2 + score: P(supported), CV threshold", [score_of(r, "whole") for r in rows], calls_whole)
    add(
        "3 + evidence selection (BM25 top sentences)",
        [score_of(r, "selected") for r in rows],
        calls_sel,
    )
    fence = -math.inf
    add(
        "4 + exact checks as a hard pre-filter",
        [fence if check_failed(r, all_checks) else score_of(r, "selected") for r in rows],
        calls_sel,
    )
    add(
        "5 + both evidence modes (mean score)",
        [
            fence
            if check_failed(r, all_checks)
            else (score_of(r, "selected") + score_of(r, "whole")) / 2
            for r in rows
        ],
        calls_sel + calls_whole,
    )

    results = []
    for name, scores, calls in steps:
        if name.startswith("1 "):
            predicted = [s >= 0.5 for s in scores]
            results.append((name, balanced_accuracy(gold, predicted), 0.0, predicted, calls, None))
            continue
        summary = cv(scores, gold, k, seeds)
        finite = [(s, g) for s, g in zip(scores, gold, strict=True) if math.isfinite(s)]
        auc = roc_auc([s for s, _ in finite], [g for _, g in finite]) if finite else None
        results.append(
            (name, summary["mean"], summary["fold_std"], summary["pooled_predictions"], calls, auc)
        )

    seconds = {
        mode: sum(r.get(mode, {}).get("seconds", 0.0) for r in rows) / len(rows) for mode in MODES
    }
    errors = {mode: sum(1 for r in rows if "error" in r.get(mode, {})) for mode in MODES}
    print(f"{len(rows)} claims, {k}-fold CV averaged over {len(seeds)} seeds")
    print(f"judge errors: {errors}; seconds per call: "
          + ", ".join(f"{m} {s:.1f}" for m, s in seconds.items()))
    print("| step | balanced accuracy (CV mean ± fold sd) | ROC-AUC | judge calls / claim | McNemar vs previous |")
    print("|---|---|---|---|---|")
    previous: list[bool] | None = None
    for name, ba, sd, predicted, calls, auc in results:
        test = ""
        if previous is not None:
            a, b, p = mcnemar(gold, previous, predicted)
            test = f"{b} fixed / {a} broken, p={p:.3f}"
        auc_text = f"{auc:.3f}" if auc is not None else "–"
        print(f"| {name} | {ba:.3f} ± {sd:.3f} | {auc_text} | {calls:.2f} | {test} |")
        previous = predicted
    return 0


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
    c.set_defaults(run=lambda a: asyncio.run(collect(a)))
    t = sub.add_parser("table")
    t.add_argument("--signals", type=Path, required=True)
    t.add_argument("--folds", type=int, default=5)
    t.add_argument("--seeds", type=int, default=5)
    t.set_defaults(run=table)
    args = parser.parse_args(argv)
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
