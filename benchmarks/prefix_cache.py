"""Seconds per judge call with and without reuse of the cached prompt prefix.

    python benchmarks/prefix_cache.py --n 10        # against the embedded judge (started if needed)

For each of N dev claim records, the claim is judged against its evidence twice on the same
server: once with llama.cpp's prompt cache disabled for the request (`cache_prompt: false`, the
whole prompt is computed: cold), and once more, as the second claim of the same request, with a
different claim about the same evidence and the cache enabled (the system prompt and the
evidence, which come first in every judge prompt, are reused: warm). The prompts are rendered by
the project's own template, exactly as the pipeline sends them. Prints seconds per call, prompt
tokens computed, and the cold / warm ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import openai

from judge.config import load_settings
from judge.judges.endpoint import resolve_endpoint
from judge.judges.templates import new_nonce
from judge.pipeline.entail.verdict import VerdictLabelOnly, entail_prompt
from judge.pipeline.entail.windows import premises_for_claim
from judge.schemas import Claim, EvidenceLedger, Passage


async def call(
    client: openai.AsyncOpenAI, model: str, system: str, user: str, cache: bool
) -> tuple[float, int]:
    started = time.perf_counter()
    response = await client.chat.completions.create(
        model=model,
        messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
        max_tokens=32,
        temperature=0.0,
        response_format={
            "type": "json_schema",
            "json_schema": {
                "name": "VerdictLabelOnly",
                "schema": VerdictLabelOnly.model_json_schema(),
            },
        },
        extra_body={"cache_prompt": cache},
    )
    elapsed = time.perf_counter() - started
    timings: dict[str, Any] = getattr(response, "timings", None) or {}
    computed = int(timings.get("prompt_n", response.usage.prompt_tokens if response.usage else 0))
    return elapsed, computed


async def main_async(args: argparse.Namespace) -> int:
    settings = load_settings()
    base_url, model = await resolve_endpoint(settings)
    client = openai.AsyncOpenAI(base_url=base_url, api_key="not-needed", timeout=600)
    model = model or (await client.models.list()).data[0].id
    records = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines()]
    random.Random(args.seed).shuffle(records)
    cold: list[float] = []
    warm: list[float] = []
    cold_tokens: list[int] = []
    warm_tokens: list[int] = []
    for record in records[: args.n]:
        passages = tuple(Passage(id=e["id"], text=e["text"]) for e in record["evidence"])
        ledger = EvidenceLedger(passages=passages)
        claim = Claim(id="c1", text=record["claim"], citations=tuple(ledger.ids))
        premise = premises_for_claim(
            claim, ledger, window_tokens=settings.window_tokens, overlap_tokens=0
        )[0]
        nonce = new_nonce()
        # A second claim about the same evidence: its first sentence, as a user might cite it.
        second = premise.text.split("\n", 2)[-1].split(". ")[0][:200] + "."
        first = entail_prompt(premise, claim.text, None, nonce=nonce, variant="label_only")
        other = entail_prompt(premise, second, None, nonce=nonce, variant="label_only")
        seconds, tokens = await call(client, model, first.system, first.user, cache=False)
        cold.append(seconds)
        cold_tokens.append(tokens)
        seconds, tokens = await call(client, model, other.system, other.user, cache=True)
        warm.append(seconds)
        warm_tokens.append(tokens)
        print(
            f"{record['id']}: cold {cold[-1]:.2f} s ({cold_tokens[-1]} tokens computed), "
            f"warm {warm[-1]:.2f} s ({warm_tokens[-1]} tokens computed)",
            file=sys.stderr,
        )
    ratio = statistics.mean(cold) / statistics.mean(warm)
    print(f"model {model}, {len(cold)} claims")
    print("| | seconds per call (mean) | prompt tokens computed (mean) |")
    print("|---|---|---|")
    for name, seconds_each, tokens_each in (
        ("cold (no prefix reuse)", cold, cold_tokens),
        ("warm (same evidence, prefix reused)", warm, warm_tokens),
    ):
        print(
            f"| {name} | {statistics.mean(seconds_each):.2f} | {statistics.mean(tokens_each):.0f} |"
        )
    print(f"cold / warm = {ratio:.2f}x")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/dev/dev_claims.jsonl"))
    parser.add_argument("--n", type=int, default=10)
    parser.add_argument("--seed", type=int, default=7)
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
