"""How much the judge's P(yes) moves between identical requests: fresh fence nonces against one.

Every prompt fences its data with a nonce (see ``judge/judges/templates.py``): random per
request until the ledger nonce, so two requests for the same claim and evidence differed in
those tokens; now the same for every request on one ledger within a process. For each claim
this sends the same entailment request ``--fresh`` times with a fresh nonce and ``--same``
times with one nonce, uncached, and prints the scores as JSON Lines, then the mean spread of
each kind.

    judge local up
    python benchmarks/nonce_noise.py --claims 4

Claims are development claims spread over the file (every len/N-th one), judged on their whole
evidence in one 2000-token window; ``--answer-sentence ID TEXT`` adds a sentence of a
development answer, judged on that answer's passages named with ``--passages``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Sequence
from pathlib import Path

import accuracy
from ragas_side_by_side import local_judge_endpoint

from judge.config import load_settings
from judge.judges.http import build_http_judge
from judge.pipeline.entail.windows import premises_for_claim
from judge.pipeline.ledger import freeze_ledger
from judge.schemas import Claim, Passage

HERE = Path(__file__).resolve().parent
DEV = HERE.parent.parent / "shared" / "data" / "dev"


async def spreads(
    cases: Sequence[tuple[str, list[Passage]]], base_url: str, model: str, fresh: int, same: int
) -> list[tuple[list[float], list[float]]]:
    settings = load_settings(base_url=base_url, model=model, cache_enabled=False)
    judge = build_http_judge(settings)
    results: list[tuple[list[float], list[float]]] = []
    try:
        for text, passages in cases:
            ledger = freeze_ledger(passages, settings)
            claim = Claim(id="c", text=text, citations=tuple(p.id for p in passages))
            premise = premises_for_claim(claim, ledger, window_tokens=2000, overlap_tokens=200)[0]
            fresh_scores = []
            for _ in range(fresh):
                view = judge.for_request()  # no ledger: a random nonce
                fresh_scores.append((await view.entail(claim, premise)).p_supported or 0.0)
            view = judge.for_request(ledger_hash=ledger.ledger_hash)
            same_scores = [
                (await view.entail(claim, premise)).p_supported or 0.0 for _ in range(same)
            ]
            row = {"claim": text[:80], "fresh_nonces": fresh_scores, "same_nonce": same_scores}
            print(json.dumps(row), flush=True)
            results.append((fresh_scores, same_scores))
    finally:
        await judge.aclose()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=4, help="development claims to probe")
    parser.add_argument("--fresh", type=int, default=4, help="requests with a fresh nonce each")
    parser.add_argument("--same", type=int, default=2, help="requests sharing one nonce")
    parser.add_argument("--answer-sentence", nargs=2, metavar=("ID", "TEXT"))
    parser.add_argument("--passages", default="", help="comma-separated passage ids of the answer")
    args = parser.parse_args(argv)
    base_url, model = local_judge_endpoint(None)
    if model is None:
        parser.error("the local judge reports no model")
    cases: list[tuple[str, list[Passage]]] = []
    if args.answer_sentence:
        record_id, text = args.answer_sentence
        answers = {r["id"]: r for r in accuracy.load_records(DEV / "dev_answers.jsonl")}
        wanted = set(args.passages.split(",")) if args.passages else None
        evidence = answers[record_id]["evidence"]
        cases.append(
            (
                text,
                [
                    Passage(id=e["id"], text=e["text"])
                    for e in evidence
                    if not wanted or e["id"] in wanted
                ],
            )
        )
    claims = accuracy.load_records(DEV / "dev_claims.jsonl")
    step = max(1, len(claims) // max(args.claims, 1))
    for record in claims[::step][: args.claims]:
        passages = [Passage(id=e["id"], text=e["text"]) for e in record["evidence"]]
        cases.append((record["claim"], passages))
    results = asyncio.run(spreads(cases, base_url, model, args.fresh, args.same))
    fresh = [max(f) - min(f) for f, _ in results if f]
    same = [max(s) - min(s) for _, s in results if s]
    print(
        f"mean spread: fresh nonces {sum(fresh) / len(fresh):.3f}, "
        f"one nonce {sum(same) / len(same):.3f} over {len(results)} claims"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
