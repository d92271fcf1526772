"""Claim likelihood as a support signal: how much more probable the judge finds the claim's
words after reading the evidence than without it.

    python benchmarks/claim_likelihood.py collect --data ../shared/data/dev/dev_claims.jsonl \
        --out benchmarks/results/likelihood.jsonl
    R=benchmarks/results
    python benchmarks/claim_likelihood.py score --data ../shared/data/dev/dev_claims.jsonl \
        --likelihood $R/likelihood.jsonl \
        --signals $R/accuracy_{signals,whole,yes_no,sentences,w2000,sentences_w2000}.jsonl

`collect` scores each claim's own tokens under the judge by forced decoding: the claim is
tokenised by the server (`/tokenize`) and a token grammar (`<[id]> <[id]> ...`) makes the model
emit exactly those tokens while the response reports each token's log-probability before the
grammar is applied. Once with the whole evidence (the pipeline's 2000-token window) in the
prompt, once without. This needs the llama.cpp server's `/tokenize` and its `grammar` extension
(the embedded judge); on vLLM the same numbers come from `prompt_logprobs` in one call.

`score` turns the token log-probabilities into per-claim features (mean pointwise mutual
information, the least likely word with and without the evidence, ...), reports each one's
ROC-AUC, and measures what each adds to the shipped default's P(yes) (step 16 of
`accuracy.py table`): score = logit(P(yes)) + w * feature with the weight and the threshold both
chosen on the training folds only (nested cross-validation), exact checks kept as a hard filter.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import accuracy
import httpx

from judge.config import load_settings
from judge.eval.calibrate import Objective, choose_threshold, stratified_folds
from judge.eval.metrics import balanced_accuracy, roc_auc
from judge.judges.endpoint import resolve_endpoint
from judge.pipeline.checks import default_checks

SYSTEM = "You are a careful assistant."
WITH_EVIDENCE = "Document:\n<<<\n{evidence}\n>>>\n\nWrite a statement that the document supports."
WITHOUT_EVIDENCE = "Write a statement."
WEIGHTS = (0.0, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0)

TokenLogprobs = list[tuple[str, float]]


# --- collect ---------------------------------------------------------------------------------


def forced_logprobs(client: httpx.Client, base: str, prompt: str, text: str) -> TokenLogprobs:
    """Each token of ``text`` with its log-probability after ``prompt`` (forced decoding)."""
    ids = client.post(f"{base}/tokenize", json={"content": text}).json()["tokens"]
    response = client.post(
        f"{base}/v1/chat/completions",
        json={
            "messages": [
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": prompt},
            ],
            "max_tokens": len(ids) + 4,
            "temperature": 0,
            "logprobs": True,
            "grammar": "root ::= " + " ".join(f"<[{i}]>" for i in ids),
        },
    )
    response.raise_for_status()
    choice = response.json()["choices"][0]
    if choice["message"]["content"] != text:
        raise ValueError("forced decoding did not reproduce the claim")
    return [(t["token"], t["logprob"]) for t in choice["logprobs"]["content"][: len(ids)]]


def collect(args: argparse.Namespace) -> int:
    settings = load_settings(window_tokens=2000)
    base_url, _ = asyncio.run(resolve_endpoint(settings))
    base = base_url.removesuffix("/").removesuffix("/v1")
    records = accuracy.load_records(args.data)
    random.Random(args.shuffle_seed).shuffle(records)  # the same order as accuracy.py collect
    done = accuracy.done_ids(args.out)
    todo = [r for r in records[: args.limit] if r["id"] not in done]
    print(f"{len(done)} done, {len(todo)} to go", file=sys.stderr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with httpx.Client(timeout=args.timeout) as client:
        for n, record in enumerate(todo, start=1):
            evidence = accuracy.whole_windows(record, settings)[0].text
            started = time.perf_counter()
            row = {
                "id": record["id"],
                "dataset": record["dataset"],
                "gold": record["label"],
                "cond": forced_logprobs(
                    client, base, WITH_EVIDENCE.format(evidence=evidence), record["claim"]
                ),
                "uncond": forced_logprobs(client, base, WITHOUT_EVIDENCE, record["claim"]),
                "seconds": round(time.perf_counter() - started, 3),
            }
            with args.out.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(row) + "\n")
            print(f"[{n}/{len(todo)}] {record['id']} {row['seconds']} s", file=sys.stderr)
    return 0


# --- score -----------------------------------------------------------------------------------


def word_logprobs(tokens: Sequence[Sequence[Any]]) -> list[float]:
    """Log-probabilities summed per word (a token that starts with a space starts a word)."""
    words: list[float] = []
    for token, logprob in tokens:
        if not words or token[:1].isspace():
            words.append(0.0)
        words[-1] += logprob
    return words


def features(row: dict[str, Any]) -> dict[str, float]:
    cond = [lp for _, lp in row["cond"]]
    uncond = [lp for _, lp in row["uncond"]]
    pmi = [c - u for c, u in zip(cond, uncond, strict=True)]
    cond_words = word_logprobs(row["cond"])
    pmi_words = [c - u for c, u in zip(cond_words, word_logprobs(row["uncond"]), strict=True)]
    return {
        "mean PMI per token": statistics.mean(pmi),
        "mean log-prob per token, with evidence": statistics.mean(cond),
        "least likely word, with evidence": min(cond_words),
        "three least likely words, with evidence": statistics.mean(sorted(cond_words)[:3]),
        "least likely token, with evidence": min(cond),
        "lowest word PMI": min(pmi_words),
        "three lowest word PMIs": statistics.mean(sorted(pmi_words)[:3]),
    }


def nested_cv(
    combined: Callable[[int, float], float],
    gold: list[bool],
    gated: list[bool],
    weights: Sequence[float],
    seeds: Sequence[int],
    k: int = 5,
) -> tuple[float, list[float], list[bool]]:
    """Mean held-out balanced accuracy when the feature weight and the threshold are both chosen
    on the training folds; the weight each fold chose; the first seed's held-out predictions."""
    scores: list[float] = []
    chosen: list[float] = []
    first_seed = [False] * len(gold)
    for seed in seeds:
        for fold in stratified_folds([not g for g in gold], k, seed):
            held = set(fold)
            train = [i for i in range(len(gold)) if i not in held]
            best: tuple[float, float, float] | None = None
            for w in weights:
                s = [-math.inf if gated[i] else combined(i, w) for i in train]
                point = choose_threshold(
                    s, [not gold[i] for i in train], Objective("balanced_accuracy"), flag_below=True
                )
                fit = point.balanced_accuracy or 0.0
                if best is None or fit > best[0]:
                    best = (fit, w, point.threshold)
            assert best is not None
            _, w, threshold = best
            chosen.append(w)
            predicted = [not gated[i] and combined(i, w) >= threshold for i in fold]
            score = balanced_accuracy([gold[i] for i in fold], predicted)
            scores.append(score if score is not None else math.nan)
            if seed == seeds[0]:
                for i, p in zip(fold, predicted, strict=True):
                    first_seed[i] = p
    return statistics.mean(scores), chosen, first_seed


def score(args: argparse.Namespace) -> int:
    likelihood = {row["id"]: row for row in accuracy.load_records(args.likelihood)}
    rows = [r for r in accuracy.merged_rows(args.signals) if r["id"] in likelihood]
    accuracy.fill_wide(rows)
    accuracy.recheck(rows, args.data)
    checks = [c.name for c in default_checks()]
    gold = [r["gold"] == "supported" for r in rows]
    gated = [accuracy.check_failed(r, checks) for r in rows]
    base = [accuracy.logit(accuracy.wide_score(r)) for r in rows]
    feats = [features(likelihood[r["id"]]) for r in rows]
    seeds = range(args.seeds)
    judged = [i for i in range(len(rows)) if not gated[i]]
    print(f"{len(rows)} claims ({sum(gold)} supported), {len(judged)} not decided by a check")
    seconds = statistics.mean(likelihood[r["id"]]["seconds"] for r in rows)
    print(f"seconds per claim (both calls): {seconds:.1f}\n")

    def auc(values: list[float], ids: list[int]) -> float:
        return roc_auc([values[i] for i in ids], [gold[i] for i in ids]) or float("nan")

    default_ba, _, default_predicted = nested_cv(lambda i, w: base[i], gold, gated, [0.0], seeds)
    print("| signal | ROC-AUC, alone | default + signal (nested CV) | weights chosen | McNemar |")
    print("|---|---|---|---|---|")
    print(f"| default P(yes) (step 16) | {auc(base, judged):.3f} | {default_ba:.3f} | - | - |")
    for name in feats[0]:
        values = [f[name] for f in feats]

        def combined(i: int, w: float, values: list[float] = values) -> float:
            return base[i] + w * values[i]

        ba, chosen, predicted = nested_cv(combined, gold, gated, WEIGHTS, seeds)
        fixed, broken, p = accuracy.mcnemar(gold, predicted, default_predicted)
        print(
            f"| {name} | {auc(values, judged):.3f} | {ba:.3f} | {min(chosen)}-{max(chosen)} "
            f"| {fixed} fixed, {broken} broken, p = {p:.3f} |"
        )
    print("\nROC-AUC by dataset (claims no check decided): lowest word PMI / default P(yes)")
    pmi = [f["lowest word PMI"] for f in feats]
    for dataset in sorted({r["dataset"] for r in rows}):
        ids = [i for i in judged if rows[i]["dataset"] == dataset]
        if 0 < sum(gold[i] for i in ids) < len(ids):
            print(f"  {dataset:18s} n={len(ids):3d}  {auc(pmi, ids):.2f} / {auc(base, ids):.2f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--data", type=Path, required=True)
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--limit", type=int)
    c.add_argument("--timeout", type=float, default=600.0)
    c.add_argument("--shuffle-seed", type=int, default=13)
    c.set_defaults(run=collect)
    s = sub.add_parser("score")
    s.add_argument("--data", type=Path, required=True)
    s.add_argument("--likelihood", type=Path, required=True)
    s.add_argument("--signals", type=Path, nargs="+", required=True)
    s.add_argument("--seeds", type=int, default=5)
    s.set_defaults(run=score)
    args = parser.parse_args(argv)
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
