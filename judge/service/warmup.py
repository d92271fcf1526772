"""Warm before ready: what a service's first request would load, loaded before ``/readyz`` says
ready, so that the first request is as fast as the next.

The reading's word lists and language model, the checks' patterns, the judge client's stack
(openai, instructor, the prompt templates, the verdict parsing) and the generator's stream
reader are all loaded on first use. :func:`warm_up` runs one answer through each path a request
takes, a buffered verification and a stream read from a generator, against a scripted judge and
a scripted generator inside the process (no network, no cache, no audit record), on a thread
with its own event loop so the service keeps answering its probes meanwhile. The judge's own
connection is opened by the readiness ping that follows it (:mod:`judge.service.app`).
"""

from __future__ import annotations

import asyncio
import json

import httpx

from judge.answer.generator import build_http_generator
from judge.api import evidence_passages, stream_limits
from judge.config import Settings
from judge.pipeline.entail.thresholds import Thresholds
from judge.pipeline.runner import verify
from judge.reading import warm_up as warm_reading
from judge.schemas import VerifyRequest
from judge.service.chat_models import Grounding
from judge.stream import StreamResult, StreamVerification
from judge.testing import FakeJudgeServer

__all__ = ["warm_up"]

_EVIDENCE = [
    "Customers may return any unopened item within 30 days of delivery for a full refund.",
    "Refunds are issued to the original payment method within 5 to 7 business days.",
]
_ANSWER = (
    "Customers may return any unopened item within 30 days of delivery [S1]. "
    "Refunds are issued within 5 to 7 business days [S2]."
)
_QUESTION = "How do refunds work?"


async def warm_up(settings: Settings, thresholds: Thresholds) -> None:
    """Load what a first request would, off the service's event loop."""
    await asyncio.to_thread(asyncio.run, _rehearse(settings, thresholds))


async def _rehearse(settings: Settings, thresholds: Thresholds) -> None:
    warm_reading()
    quiet = settings.model_copy(update={"cache_enabled": False, "http_retries": 0})
    passages = evidence_passages(_EVIDENCE)
    request = VerifyRequest(evidence=passages, answer=_ANSWER, question=_QUESTION)
    judge = FakeJudgeServer().judge(quiet, model=quiet.model)
    try:
        response = await verify(request, quiet, judge=judge, thresholds=thresholds)
        Grounding(outcome="passed", verification=response).model_dump_json()
        async with httpx.AsyncClient(transport=httpx.MockTransport(_streamed_reply)) as client:
            generator = build_http_generator(
                quiet, base_url="http://warm-up.invalid/v1", model="warm-up", http_client=client
            )
            verification = StreamVerification(
                passages,
                quiet,
                question=_QUESTION,
                judge=judge,
                thresholds=thresholds,
                limits=stream_limits(quiet),
            )
            chunks = generator.stream([{"role": "user", "content": _QUESTION}])
            async for event in verification.events(chunks):
                if isinstance(event, StreamResult):
                    event.model_dump_json()
    finally:
        await judge.aclose()


def _streamed_reply(request: httpx.Request) -> httpx.Response:
    """The scripted generator: the answer as server-sent chat-completion chunks."""
    words = _ANSWER.split(" ")
    pieces = [word if i == 0 else f" {word}" for i, word in enumerate(words)]
    events = [_chunk({"content": piece}, None) for piece in pieces]
    events += [_chunk({}, "stop"), "data: [DONE]\n\n"]
    return httpx.Response(
        200, headers={"content-type": "text/event-stream"}, content="".join(events).encode()
    )


def _chunk(delta: dict[str, str], finish: str | None) -> str:
    body = {
        "id": "chatcmpl-warm-up",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "warm-up",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(body)}\n\n"
