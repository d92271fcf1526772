"""Answers on the same evidence, verified one after another: the ledger's fence nonce against a
fresh nonce per request.

The pipeline fences each prompt's data with a nonce. It is keyed on the ledger hash (an HMAC
under a secret drawn per process, ``judge/judges/templates.py``), so every request on the same
evidence sends the same evidence prefix, which the server's prefix cache can reuse: a
regenerated answer, or several answers on one document. Before, each request drew a random
nonce and the server computed the evidence again for each. This verifies, for each of
``--groups`` documents with several development answers (SummEdits summaries of one document),
those answers one after another in one process, once per variant and with the verdict cache
off, through the counting proxy of ``logging_proxy.py``, and prints the prompt tokens the
server computed, seconds per answer and whether the decisions agree.

    judge local up
    python benchmarks/ledger_nonce.py --groups 5 --per-group 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

from logging_proxy import LoggingProxy
from ragas_side_by_side import local_judge_endpoint

from judge.config import load_settings
from judge.eval.records import EvalRecord, load_records
from judge.eval.run import answer_settings, build_request
from judge.judges import http
from judge.judges.http import build_http_judge
from judge.judges.templates import new_nonce
from judge.pipeline.runner import verify

HERE = Path(__file__).resolve().parent
DEV_ANSWERS = HERE.parent.parent / "shared" / "data" / "dev" / "dev_answers.jsonl"


def document_groups(path: Path, groups: int, per_group: int) -> list[list[EvalRecord]]:
    """``groups`` documents with at least ``per_group`` answers, taken in turn over the
    datasets, and the first ``per_group`` answers of each."""
    by_doc: dict[tuple[str, str], list[EvalRecord]] = defaultdict(list)
    raw = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    doc_of = {r["id"]: str((r.get("meta") or {}).get("doc_id")) for r in raw}
    for record in load_records(path):
        by_doc[(record.dataset, doc_of[record.id])].append(record)
    by_dataset: dict[str, list[list[EvalRecord]]] = defaultdict(list)
    for (dataset, _), answers in sorted(by_doc.items()):
        if len(answers) >= per_group:
            by_dataset[dataset].append(answers[:per_group])
    chosen: list[list[EvalRecord]] = []
    while len(chosen) < groups and any(by_dataset.values()):
        for dataset in sorted(by_dataset):
            if by_dataset[dataset] and len(chosen) < groups:
                chosen.append(by_dataset[dataset].pop(0))
    return chosen


@contextmanager
def fresh_nonces() -> Iterator[None]:
    # The behaviour before the ledger nonce: every request view draws a random nonce.
    with mock.patch.object(http, "ledger_nonce", lambda key, ledger_hash: new_nonce()):
        yield


async def run_variant(
    groups: Sequence[Sequence[EvalRecord]], base_url: str, model: str
) -> list[dict[str, Any]]:
    settings = answer_settings(
        load_settings(base_url=base_url, model=model, cache_enabled=False, timeout_s=600.0)
    )
    judge = build_http_judge(settings)
    rows: list[dict[str, Any]] = []
    try:
        for group in groups:
            for position, record in enumerate(group):
                started = time.perf_counter()
                response = await verify(build_request(record), settings, judge=judge)
                rows.append(
                    {
                        "id": record.id,
                        "position": position,
                        "action": response.action.value,
                        "scores": [v.score for v in response.verdicts],
                        "seconds": time.perf_counter() - started,
                    }
                )
    finally:
        await judge.aclose()
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEV_ANSWERS)
    parser.add_argument("--groups", type=int, default=5)
    parser.add_argument("--per-group", type=int, default=3)
    parser.add_argument("--base-url")
    parser.add_argument("--model")
    parser.add_argument("--out", type=Path, help="write the per-answer rows as JSON Lines")
    args = parser.parse_args()
    base_url, model = (
        (args.base_url, args.model) if args.base_url else local_judge_endpoint(args.model)
    )
    groups = document_groups(args.data, args.groups, args.per_group)
    answers = sum(len(g) for g in groups)
    print(f"{len(groups)} documents, {answers} answers, judge {model}")
    results: dict[str, list[dict[str, Any]]] = {}
    with LoggingProxy(base_url) as proxy:
        with fresh_nonces():
            results["fresh nonce per request"] = asyncio.run(
                run_variant(groups, proxy.base_url("fresh"), str(model))
            )
        results["ledger nonce (shipped)"] = asyncio.run(
            run_variant(groups, proxy.base_url("ledger"), str(model))
        )
        usage = {"fresh nonce per request": proxy.usage("fresh")}
        usage["ledger nonce (shipped)"] = proxy.usage("ledger")
    print(
        "| variant | calls / answer | prompt tokens / answer | computed by the server / answer "
        "| computed / sent | s / answer | s / answer after the first on a document |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, rows in results.items():
        u = usage[name]
        later = [r["seconds"] for r in rows if r["position"] > 0]
        share = u.prefill_tokens / max(u.prompt_tokens, 1)
        print(
            f"| {name} | {u.calls / answers:.2f} | {u.prompt_tokens / answers:,.0f} "
            f"| {u.prefill_tokens / answers:,.0f} | {share:.2f} "
            f"| {sum(r['seconds'] for r in rows) / answers:.1f} "
            f"| {sum(later) / max(len(later), 1):.1f} |"
        )
    fresh, ledger = results.values()
    same = sum(a["action"] == b["action"] for a, b in zip(fresh, ledger, strict=True))
    print(f"same action on {same} of {answers} answers")
    if args.out:
        with args.out.open("w", encoding="utf-8") as out:
            for name, rows in results.items():
                for row in rows:
                    out.write(json.dumps({"variant": name, **row}) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
