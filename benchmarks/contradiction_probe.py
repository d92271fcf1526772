"""The contradiction probe in its two forms, on the development claims the judge finds unsupported.

With the yes/no verdict variant the judge cannot say "contradicted", so a claim it finds
unsupported is probed once more. This compares the two ways of asking, on the same claims,
evidence and server:

- ``followup`` (shipped): the yes/no request repeated byte for byte, the judge's "no" as the
  assistant turn, and ``prompts/entail_contradiction.j2`` as the next user turn. The server
  reuses the prefix of the yes/no verdict given just before.
- ``three_way`` (before): the separate three-way ``entail.j2`` question (label only).

Claims: Check-COVID and Factcheck-GPT development claims (the datasets that label
contradiction apart) that pass every exact check and whose yes/no P(yes) on the whole evidence
is below the shipped t_entail in the signals file of ``accuracy.py collect``, taken in turn
contradicted / not contradicted. For each claim the yes/no verdict is asked first (as the
pipeline does), then each probe. Prints JSON Lines per claim, then ROC-AUC of P(contradicted)
for gold contradicted, the counts at three thresholds, and seconds and prompt tokens computed
per probe (llama.cpp's ``timings.prompt_n``).

    judge local up
    python benchmarks/contradiction_probe.py --claims 38
    python benchmarks/contradiction_probe.py --claims 67 --unpaired   # every such claim
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import openai
from pydantic import BaseModel
from ragas_side_by_side import local_judge_endpoint

from judge.config import Settings, load_settings
from judge.eval.metrics import roc_auc
from judge.judges.templates import new_nonce
from judge.pipeline.entail.score import logprob_tokens
from judge.pipeline.entail.verdict import (
    TOP_LOGPROBS,
    PromptVariant,
    VerdictContradiction,
    VerdictLabelOnly,
    VerdictYesNo,
    answer_vocabulary,
    entail_prompt,
    label_distribution,
)
from judge.pipeline.entail.windows import premises_for_claim
from judge.pipeline.ledger import freeze_ledger
from judge.schemas import Claim, Passage

HERE = Path(__file__).resolve().parent
DEV_CLAIMS = HERE.parent.parent / "shared" / "data" / "dev" / "dev_claims.jsonl"
SIGNALS = HERE / "results" / "lodo_default.jsonl"
LABELLED = ("Check-COVID", "Factcheck-GPT")
PROBES: dict[str, tuple[PromptVariant, type[BaseModel]]] = {
    "followup": ("contradiction", VerdictContradiction),
    "three_way": ("label_only", VerdictLabelOnly),
}


def flagged_claims(
    data: Path, signals: Path, t_entail: float, count: int, *, unpaired: bool = False
) -> list[dict[str, Any]]:
    """Claims the judge alone finds unsupported, alternating gold contradicted and not; with
    ``unpaired``, then the claims of the larger class left over."""
    signal = {row["id"]: row for row in map(json.loads, signals.read_text().splitlines())}
    contradicted: list[dict[str, Any]] = []
    other: list[dict[str, Any]] = []
    for record in map(json.loads, data.read_text(encoding="utf-8").splitlines()):
        row = signal.get(record["id"])
        if record["dataset"] not in LABELLED or row is None:
            continue
        if any(status != "passed" for status in row["checks"].values()):
            continue
        p_yes = row["whole-w2000@yes_no"].get("p_supported")
        if p_yes is None or p_yes >= t_entail:
            continue
        (contradicted if record["label"] == "contradicted" else other).append(record)
    paired = [r for pair in zip(contradicted, other, strict=False) for r in pair]
    if unpaired:
        n = min(len(contradicted), len(other))
        paired += contradicted[n:] + other[n:]
    return paired[:count]


async def ask(
    client: openai.AsyncOpenAI, model: str, messages: list[dict[str, str]], schema: type[BaseModel]
) -> tuple[Any, float, int | None]:
    started = time.perf_counter()
    completion = await client.chat.completions.create(
        model=model,
        messages=cast(Any, messages),
        max_tokens=32,
        temperature=0.0,
        logprobs=True,
        top_logprobs=TOP_LOGPROBS,
        response_format=cast(
            Any,
            {
                "type": "json_schema",
                "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema()},
            },
        ),
    )
    seconds = time.perf_counter() - started
    timings = (completion.model_extra or {}).get("timings") or {}
    return completion, seconds, timings.get("prompt_n")


async def probe_claim(
    client: openai.AsyncOpenAI, model: str, record: dict[str, Any], settings: Settings
) -> dict[str, Any]:
    passages = [Passage(id=p["id"], text=p["text"]) for p in record["evidence"]]
    ledger = freeze_ledger(passages, settings)
    claim = Claim(id="c", text=record["claim"], citations=tuple(p.id for p in passages))
    premise = premises_for_claim(
        claim,
        ledger,
        window_tokens=settings.window_tokens,
        overlap_tokens=settings.window_overlap_tokens,
    )[0]
    nonce = new_nonce()
    verdict = entail_prompt(premise, claim.text, None, nonce=nonce, variant="yes_no")
    await ask(client, model, verdict.messages(), VerdictYesNo)  # the verdict the probe follows
    row: dict[str, Any] = {"id": record["id"], "gold": record["label"]}
    for name, (variant, schema) in PROBES.items():
        prompt = entail_prompt(premise, claim.text, None, nonce=nonce, variant=variant)
        completion, seconds, computed = await ask(client, model, prompt.messages(), schema)
        key, values = answer_vocabulary(variant)
        answer = json.loads(completion.choices[0].message.content or "{}")[key]
        scores = label_distribution(
            logprob_tokens(completion) or [], values[answer], key=key, values=values
        )
        row[name] = {
            "p_contradicted": scores["contradicted"] if scores else None,
            "seconds": seconds,
            "computed": computed,
            "prompt_tokens": completion.usage.prompt_tokens if completion.usage else None,
        }
    return row


def summarise(rows: Sequence[dict[str, Any]]) -> None:
    gold = [r["gold"] == "contradicted" for r in rows]
    print(f"{len(rows)} claims, {sum(gold)} gold contradicted")
    print(
        "| probe | ROC-AUC | found at 0.3 / 0.4 / 0.5 | others called contradicted | s / probe "
        "| prompt tokens computed / probe |"
    )
    print("|---|---|---|---|---|---|")
    for name in PROBES:
        p = [r[name]["p_contradicted"] or 0.0 for r in rows]
        found = [sum(x >= t and g for x, g in zip(p, gold, strict=True)) for t in (0.3, 0.4, 0.5)]
        wrong = [
            sum(x >= t and not g for x, g in zip(p, gold, strict=True)) for t in (0.3, 0.4, 0.5)
        ]
        auc = roc_auc(p, gold)
        seconds = sum(r[name]["seconds"] for r in rows) / len(rows)
        computed = sum(r[name]["computed"] or 0 for r in rows) / len(rows)
        print(
            f"| {name} | {auc if auc is None else round(auc, 3)} "
            f"| {' / '.join(map(str, found))} of {sum(gold)} "
            f"| {' / '.join(map(str, wrong))} of {len(gold) - sum(gold)} "
            f"| {seconds:.1f} | {computed:.0f} |"
        )


async def main_async(args: argparse.Namespace) -> None:
    base_url, model = (
        (args.base_url, args.model) if args.base_url else local_judge_endpoint(args.model)
    )
    settings = load_settings(base_url=base_url, model=model)
    client = openai.AsyncOpenAI(base_url=base_url, api_key=settings.api_key, timeout=600)
    rows = []
    chosen = flagged_claims(
        args.data, args.signals, settings.t_entail, args.claims, unpaired=args.unpaired
    )
    for record in chosen:
        row = await probe_claim(client, str(model), record, settings)
        print(json.dumps(row), flush=True)
        rows.append(row)
    await client.close()
    summarise(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEV_CLAIMS)
    parser.add_argument("--signals", type=Path, default=SIGNALS)
    parser.add_argument("--claims", type=int, default=38)
    parser.add_argument(
        "--unpaired", action="store_true", help="after the pairs, the larger class's other claims"
    )
    parser.add_argument("--base-url")
    parser.add_argument("--model")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
