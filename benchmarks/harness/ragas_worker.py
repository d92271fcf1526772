"""RAGAS faithfulness over claim or answer records, one JSON line each. Runs in RAGAS's venv.

Started by ``ragas_side_by_side`` as a script, by its path, with the RAGAS venv's interpreter
(``benchmarks/.venv-ragas``); imports nothing from this project. Records are scored one
at a time so seconds per record compare with a sequential ``judge eval``. A record whose scoring
fails (RAGAS raises, or finds no statement) gets ``score: null`` and its error: counted, never
dropped. Records already in the output file are skipped, so a stopped run resumes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sys
import time
import types
from pathlib import Path
from typing import Any

# RAGAS sends usage analytics unless told not to; the benchmark machine may have no network.
os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")

# The records carry no question, but RAGAS requires one: a neutral one, the same for every record.
NEUTRAL_QUESTION = "What does the response state?"


def _stub_vertexai() -> None:
    # ragas 0.4.3 imports a module that langchain-community 0.4 no longer ships (ragas issues
    # #2745, #2995); an empty stand-in is enough, as nothing here uses Vertex AI.
    name = "langchain_community.chat_models.vertexai"
    if name not in sys.modules:
        stub = types.ModuleType(name)

        class ChatVertexAI:  # a distinct class, so isinstance checks on it never match
            pass

        stub.ChatVertexAI = ChatVertexAI  # type: ignore[attr-defined]
        sys.modules[name] = stub


async def score_records(args: argparse.Namespace) -> None:
    _stub_vertexai()
    from openai import AsyncOpenAI
    from ragas.llms.base import llm_factory
    from ragas.metrics.collections import Faithfulness

    client = AsyncOpenAI(base_url=args.base_url, api_key="not-needed", timeout=args.timeout)
    metric = Faithfulness(llm=llm_factory(args.model, client=client))
    done = _done_ids(args.out)
    records = [json.loads(line) for line in args.records.read_text("utf-8").splitlines() if line]
    with args.out.open("a", encoding="utf-8") as out:
        for record in records:
            text = record.get("claim", record.get("answer"))
            if record["id"] in done or text is None:
                continue
            started = time.perf_counter()
            score: float | None = None
            error: str | None = None
            try:
                result = await asyncio.wait_for(
                    metric.ascore(
                        user_input=NEUTRAL_QUESTION,
                        response=text,
                        retrieved_contexts=[p["text"] for p in record["evidence"]],
                    ),
                    timeout=args.record_timeout,
                )
                value = float(result.value)
                if math.isnan(value):
                    error = "no statements"
                else:
                    score = value
            except Exception as exc:  # every failure is a counted error
                error = f"{type(exc).__name__}: {str(exc)[:300]}"
            row: dict[str, Any] = {
                "id": record["id"],
                "dataset": record.get("dataset"),
                "gold": record["label"],
                "score": score,
                "error": error,
                "seconds": round(time.perf_counter() - started, 3),
            }
            out.write(json.dumps(row) + "\n")
            out.flush()
            print(f"ragas {record['id']}: score {score} error {error}", file=sys.stderr)


def _done_ids(path: Path) -> set[str]:
    """Ids already scored; a torn last line (a run killed mid-write) is cut off and redone."""
    if not path.exists():
        return set()
    raw = path.read_bytes()
    complete = raw[: raw.rfind(b"\n") + 1]
    if len(complete) != len(raw):
        path.write_bytes(complete)
    return {json.loads(line)["id"] for line in complete.decode("utf-8").splitlines() if line}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per call")
    parser.add_argument(
        "--record-timeout", type=float, default=1800.0, help="seconds per record (an error)"
    )
    asyncio.run(score_records(parser.parse_args()))


if __name__ == "__main__":
    main()
