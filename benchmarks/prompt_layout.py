"""Prompt variants of the yes/no question, paired on the same claims and evidence: the document
before the claim or after it (`--layout`), and the question asked the other way round
(`--question inverted`: "does the claim contain anything the document does not substantiate?",
scored as P(no), to see whether the judge's lean towards "yes" cancels out).

    python benchmarks/prompt_layout.py collect --data ../shared/data/dev/dev_claims.jsonl \
        --layout evidence_first --out benchmarks/results/layout_evidence_first.jsonl --limit 80
    python benchmarks/prompt_layout.py collect ... --layout claim_first \
        --out benchmarks/results/layout_claim_first.jsonl --limit 80
    python benchmarks/prompt_layout.py compare --data ../shared/data/dev/dev_claims.jsonl \
        benchmarks/results/layout_evidence_first.jsonl benchmarks/results/layout_claim_first.jsonl
    python benchmarks/prompt_layout.py collect ... --layout evidence_first --question inverted \
        --evidence whole --out benchmarks/results/question_inverted.jsonl --limit 80

The prompts are plain chat messages, not the shipped templates: the layout is the only thing
that differs between the two runs (the shipped `entail_yes_no.j2` is evidence-first, which also
lets a server reuse the cached evidence prefix across the claims of one request). The answer is
one plain-text token, P(yes) read from its top log-probabilities. Evidence is the claim's
selected sentences, as the pipeline selects them (`--evidence selected`, in 700-token windows,
the best window counts), or the whole passages in the shipped 2000-token windows
(`--evidence whole`). Claims are taken in the same fixed shuffle as
`accuracy.py`, so `--limit 80` covers the same claims as its paired table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import random
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from accuracy import BASE_WINDOW, check_failed, cv, done_ids, load_records, mcnemar, record_checks

from judge.config import load_settings
from judge.eval.metrics import roc_auc
from judge.judges.endpoint import resolve_endpoint
from judge.judges.templates import neutralise
from judge.pipeline.checks import default_checks
from judge.pipeline.entail.claim import claim_premises, selected_spans
from judge.schemas import Claim, EvidenceLedger, Passage

SYSTEM = "You are a careful fact checker."
WHOLE_WINDOW = 2000  # the shipped window size
QUESTION = (
    "Determine whether the provided claim is consistent with the corresponding document. "
    "Consistency in this context implies that all information presented in the claim is "
    "substantiated by the document. If not, it should be considered inconsistent."
)
ASK = (
    'Please assess the claim\'s consistency with the document by responding with either "yes" '
    'or "no".'
)
QUESTIONS = {
    "consistency": (QUESTION, ASK),
    # The same decision asked the other way round: "yes" now means not supported.
    "inverted": (
        "Determine whether the claim contains any information that the document does not state "
        "or that contradicts the document: a detail, name, number, role or relation the document "
        "does not substantiate.",
        'Does the claim contain such unsupported information? Respond with either "yes" or "no".',
    ),
}
# Worked examples (`--examples`), written for this benchmark: a paraphrase and a summary that
# are supported, a swapped role and an added detail that are not. They come before the evidence,
# so a server caches them with the system message.
EXAMPLES = (
    (
        "In a trial of 1,200 adults, those who received the vaccine were admitted to hospital 70% "
        "less often than those given a placebo.",
        "Vaccinated adults in the trial needed hospital care less often than unvaccinated ones.",
        "yes",
    ),
    (
        "Anna: Can you pick up the kids at 5? I have a meeting.\nTom: Sure, I'll be there.",
        "Tom asks Anna to pick up the kids at 5.",
        "no",
    ),
    (
        "The city museum reopened in March after a two-year renovation of its east wing.",
        "The museum reopened in March after a renovation paid for by the city.",
        "no",
    ),
    (
        "Third-quarter revenue rose 12% to $4.1 billion, and the operating margin widened from 9% "
        "to 11% as shipping costs fell.",
        "The company's revenue and margins improved in the third quarter.",
        "yes",
    ),
)
LAYOUTS = {
    "evidence_first": "{question}\n\nDocument:\n{evidence}\n\nClaim: {claim}\n\n{ask}",
    "claim_first": "{question}\n\nClaim: {claim}\n\nDocument:\n{evidence}\n\n{ask}",
}


def p_yes(top: list[dict[str, Any]]) -> float:
    """P(yes) against P(no) among the answer token's top alternatives (0.5 if neither)."""
    mass = {"yes": 0.0, "no": 0.0}
    for alternative in top:
        word = alternative["token"].strip().lower()
        if word in mass:
            mass[word] += math.exp(alternative["logprob"])
    total = mass["yes"] + mass["no"]
    return mass["yes"] / total if total > 0 else 0.5


def collect(args: argparse.Namespace) -> int:
    whole = args.evidence == "whole"
    settings = load_settings(window_tokens=WHOLE_WINDOW if whole else BASE_WINDOW)
    records = load_records(args.data)
    random.Random(args.shuffle_seed).shuffle(records)
    skip = done_ids(args.out)
    layout = LAYOUTS[args.layout]
    question, ask = QUESTIONS[args.question]
    inverted = args.question == "inverted"
    shots = []
    for document, example_claim, answer in EXAMPLES if args.examples else ():
        if inverted:
            answer = "no" if answer == "yes" else "yes"
        text = layout.format(question=question, evidence=document, claim=example_claim, ask=ask)
        shots += [{"role": "user", "content": text}, {"role": "assistant", "content": answer}]
    # The running judge (the embedded server, or JUDGE_BASE_URL) unless --base-url names one.
    base_url = args.base_url or asyncio.run(resolve_endpoint(settings))[0]
    with httpx.Client(base_url=base_url, timeout=600) as http:
        for record in records[: args.limit]:
            if record["id"] in skip:
                continue
            passages = tuple(Passage(id=e["id"], text=e["text"]) for e in record["evidence"])
            ledger = EvidenceLedger(passages=passages)
            claim = Claim(id="c1", text=record["claim"], citations=tuple(ledger.ids))
            spans = None if whole else selected_spans(claim.text, list(passages), settings)
            scores, started = [], time.perf_counter()
            for premise in claim_premises(claim, ledger, settings, spans):
                user = layout.format(
                    question=question,
                    evidence=neutralise(premise.text),
                    claim=neutralise(claim.text),
                    ask=ask,
                )
                body = {
                    "messages": [
                        {"role": "system", "content": SYSTEM},
                        *shots,
                        {"role": "user", "content": user},
                    ],
                    "max_tokens": 1,
                    "temperature": 0,
                    "logprobs": True,
                    "top_logprobs": 10,
                }
                reply = http.post("/chat/completions", json=body).raise_for_status().json()
                yes = p_yes(reply["choices"][0]["logprobs"]["content"][0]["top_logprobs"])
                scores.append(1.0 - yes if inverted else yes)
            row = {
                "id": record["id"],
                "dataset": record["dataset"],
                "gold": record["label"],
                "p_yes": max(scores),
                "seconds": round(time.perf_counter() - started, 3),
            }
            with args.out.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(row) + "\n")
    return 0


def compare(args: argparse.Namespace) -> int:
    records = {r["id"]: r for r in load_records(args.data)}
    runs = [{row["id"]: row for row in load_records(path)} for path in args.runs]
    ids = [i for i in runs[0] if all(i in run for run in runs[1:])]
    gold = [records[i]["label"] == "supported" for i in ids]
    names = [c.name for c in default_checks()]
    failed = [check_failed({"checks": record_checks(records[i])}, names) for i in ids]
    print(f"{len(ids)} paired claims, 5-fold CV over 5 seeds, exact checks as a hard pre-filter\n")
    print("| layout | balanced accuracy (CV) | ROC-AUC (judge score) | s / claim |")
    print("|---|---|---|---|")
    predictions = []
    for path, run in zip(args.runs, runs, strict=True):
        raw = [run[i]["p_yes"] for i in ids]
        gated = [-math.inf if f else x for x, f in zip(raw, failed, strict=True)]
        summary = cv(gated, gold, 5, range(5))
        predictions.append(summary["pooled_predictions"])
        seconds = sum(run[i]["seconds"] for i in ids) / len(ids)
        print(
            f"| {path.stem} | {summary['mean']:.3f} ± {summary['fold_std']:.3f} | "
            f"{roc_auc(raw, gold) or math.nan:.3f} | {seconds:.1f} |"
        )
    if len(predictions) == 2:
        a, b, p = mcnemar(gold, predictions[0], predictions[1])  # type: ignore[arg-type]
        print(f"\nMcNemar: {a} right only with the first, {b} only with the second, p = {p:.3f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--data", type=Path, required=True)
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--layout", choices=sorted(LAYOUTS), required=True)
    c.add_argument("--question", choices=sorted(QUESTIONS), default="consistency")
    c.add_argument("--evidence", choices=("selected", "whole"), default="selected")
    c.add_argument("--examples", action="store_true", help="four worked examples first")
    c.add_argument("--base-url", help="an OpenAI-compatible /v1 URL (default: the judge's)")
    c.add_argument("--limit", type=int)
    c.add_argument("--shuffle-seed", type=int, default=13)
    c.set_defaults(run=collect)
    t = sub.add_parser("compare")
    t.add_argument("--data", type=Path, required=True)
    t.add_argument("runs", type=Path, nargs="+")
    t.set_defaults(run=compare)
    args = parser.parse_args(argv)
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
