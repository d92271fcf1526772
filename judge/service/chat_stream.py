"""The guard endpoint's verified stream: ``stream: true`` sends each sentence as soon as it is
verified, never a byte of one before.

The generator is asked with ``stream: true`` and read as it writes; its first chunk is awaited
before the response starts, so a generator that cannot be reached is still an HTTP 502. Then:

* a role chunk at once (no text), then one chunk per released sentence, in order;
* a withheld sentence sends nothing; a sentence that blocks stops the stream and cancels the
  generator;
* the last chunk carries the notice for the reader (what the evidence does not support, a
  notice from the answer-level rules), ``finish_reason`` ``stop``, ``usage`` and ``grounding``
  (``outcome``, ``verification`` and ``stream``: each sentence's release and verdict labels);
* before that chunk the answer is written to the audit log, with the verdicts of every
  released and withheld sentence; before each sentence the log is checked fit to record. An
  audit fault ends the stream with an ``error`` event (code 503, which the openai SDK raises as
  an ``APIError``) and nothing further is released;
* a client that goes away, or takes no chunk for ``send_timeout_s``, ends the stream: the
  generator and every pending judge call are cancelled and the answer is recorded as abandoned.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import anyio
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from judge.errors import AuditError
from judge.schemas import Passage, VerifyRequest
from judge.stream import (
    Release,
    StreamedSentence,
    StreamLimits,
    StreamResult,
    StreamVerification,
)

if TYPE_CHECKING:
    from judge.answer.types import Drafting
    from judge.config import Settings
    from judge.service.app import Service

log = logging.getLogger("judge.service.chat")

AUDIT_KIND = "chat"
# A client that takes no chunk for this long is treated as gone.
SEND_TIMEOUT_S = 30.0


class TextStream(Protocol):
    """A generation being streamed: its text chunks, and what the server said about it."""

    model: str
    prompt_tokens: int
    completion_tokens: int

    def __aiter__(self) -> AsyncIterator[str]: ...

    async def aclose(self) -> None: ...


@dataclass
class Departure:
    """Why the reader of the stream went away, when it did."""

    reason: str | None = None


@dataclass
class ChatStream:
    """One verified chat stream: its chunks as server-sent events."""

    service: Service
    settings: Settings
    generation: TextStream
    first_chunk: str
    passages: list[Passage]
    question: str | None
    started: float
    model: str
    departure: Departure = field(default_factory=Departure)
    drafting: Drafting | None = None  # the citation grammar the generator wrote under

    def __post_init__(self) -> None:
        service = self.service
        limits = StreamLimits(
            flush_chars=self.settings.stream_flush_chars,
            max_pending_sentences=self.settings.stream_max_pending_sentences,
            sentence_timeout_s=service.options.request_timeout_s,
        )
        self.verification = StreamVerification(
            self.passages,
            self.settings,
            question=self.question,
            judge=service.judge if service.options.use_judge else None,
            use_judge=service.options.use_judge,
            thresholds=service.thresholds,
            limits=limits,
        )
        self.request_id = self.verification.request_id
        self.created = int(time.time())
        self._sent_text = False

    async def events(self) -> AsyncIterator[bytes]:
        """The server-sent events; closing the iterator early records the stream abandoned."""
        service = self.service
        result: StreamResult | None = None
        events = self.verification.events(self._chunks())
        metrics = service.metrics
        metrics.streams_open.inc()
        try:
            yield self._chunk({"role": "assistant", "content": ""})
            async for event in events:
                if isinstance(event, StreamResult):
                    result = event
                    break
                metrics.observe_stream_sentence(event)
                if event.release is not Release.RELEASED:
                    continue
                fault = await self._audit_fault()
                if fault is not None:
                    result = await self._abandon(events, f"audit log unavailable: {fault}")
                    yield self._audit_error(fault)
                    return
                if not self._sent_text:
                    self._sent_text = True
                    metrics.stream_first_sentence.observe(self._elapsed())
                yield self._chunk({"content": event.delta})
            if result is None:  # the events ended without a result: never expected
                result = await self._abandon(events, "the verification ended without a result")
            fault = await self._record(result)
            if fault is not None:
                yield self._audit_error(fault)
                return
            metrics.observe(self._request(result), result.response, self._elapsed())
            yield self._last_chunk(result)
            yield b"data: [DONE]\n\n"
        finally:
            metrics.streams_open.dec()
            if result is None:
                reason = self.departure.reason or "the stream was closed before its end"
                with anyio.CancelScope(shield=True):
                    abandoned = await self._abandon(events, reason)
                    await self._record(abandoned)

    # --- the pieces ------------------------------------------------------------------------

    async def _chunks(self) -> AsyncIterator[str]:
        try:
            yield self.first_chunk
            async for chunk in self.generation:
                yield chunk
        finally:
            with contextlib.suppress(Exception):
                await self.generation.aclose()

    async def _abandon(
        self, events: AsyncIterator[StreamedSentence | StreamResult], reason: str
    ) -> StreamResult:
        closer = getattr(events, "aclose", None)
        if closer is not None:
            with contextlib.suppress(Exception):
                await closer()
        return await self.verification.abandoned(reason)

    async def _audit_fault(self) -> str | None:
        audit = self.service.audit
        if audit is None:
            return "the audit log is not open"
        return await asyncio.to_thread(audit.fault)

    async def _record(self, result: StreamResult) -> str | None:
        """Write the answer to the audit log; the fault when it cannot be written."""
        service = self.service
        self.service.metrics.streams.labels(result.ended.value).inc()
        try:
            if service.audit is None:
                raise AuditError("the audit log is not open")
            await asyncio.to_thread(
                service.audit.record,
                self._request(result),
                result.response,
                kind=AUDIT_KIND,
                extra=self._extra(result),
                latency_s=self._elapsed(),
            )
        except AuditError as exc:
            log.error("stream %s stopped: %s", self.request_id, exc)
            service.metrics.observe_error(type(exc).__name__)
            return str(exc)
        return None

    def _request(self, result: StreamResult) -> VerifyRequest:
        return self.verification.verified_request

    def _extra(self, result: StreamResult) -> dict[str, Any]:
        return {
            "outcome": result.outcome,
            "model": self.generation.model or self.model,
            "stream": True,
            "stream_mode": "sentences",
            **stream_summary(result, self.verification.decided),
        }

    def _elapsed(self) -> float:
        return time.perf_counter() - self.started

    def _head(self) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-{self.request_id}",
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.generation.model or self.model,
        }

    def _chunk(self, delta: dict[str, Any], finish: str | None = None) -> bytes:
        body = {**self._head(), "choices": [_delta(delta, finish)]}
        return _event(body)

    def _last_chunk(self, result: StreamResult) -> bytes:
        from judge.service.chat import Grounding

        notice = result.notice or ""
        if notice and result.released_text:
            notice = "\n\n" + notice
        usage = {
            "prompt_tokens": self.generation.prompt_tokens,
            "completion_tokens": self.generation.completion_tokens,
            "total_tokens": self.generation.prompt_tokens + self.generation.completion_tokens,
        }
        grounding = Grounding(
            outcome=result.outcome, verification=result.response, drafting=self.drafting
        )
        body = {
            **self._head(),
            "choices": [_delta({"content": notice} if notice else {}, "stop")],
            "usage": usage,
            "grounding": {
                **grounding.model_dump(mode="json"),
                "stream": stream_summary(result, self.verification.decided),
            },
        }
        return _event(body)

    def _audit_error(self, fault: str) -> bytes:
        message = f"audit log unavailable, the rest of the reply is withheld: {fault}"
        return _event(
            {"error": {"message": message, "type": "audit_error", "param": None, "code": 503}}
        )


def stream_summary(result: StreamResult, decided: Sequence[StreamedSentence]) -> dict[str, Any]:
    """What the audit record and the last chunk say about each sentence of a stream."""
    return {
        "ended": result.ended.value,
        "stop_reason": result.stop_reason,
        "notice": result.notice,
        "released_chars": len(result.released_text),
        "received_chars": result.received_chars,
        "first_release_s": result.first_release_s,
        "not_verified": result.not_verified,
        "sentences": [
            {
                "index": event.index,
                "span": [event.span.start, event.span.end],
                "release": event.release.value,
                "flushed": event.flushed,
                "claims": [v.claim.id for v in event.verdicts],
                "labels": [v.label.value for v in event.verdicts],
                "delay_s": event.delay_s,
            }
            for event in decided
        ],
    }


class EventStreamResponse(StreamingResponse):
    """Server-sent events from ``body``, each send bounded by ``send_timeout_s``. A client that
    disconnects or stops reading ends the body early, with the reason in ``departure``."""

    media_type = "text/event-stream"

    def __init__(
        self,
        body: AsyncIterator[bytes],
        departure: Departure,
        *,
        send_timeout_s: float = SEND_TIMEOUT_S,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(body, headers=dict(headers or {}), media_type=self.media_type)
        self.body_iterator = body
        self.departure = departure
        self.send_timeout_s = send_timeout_s
        self.headers["cache-control"] = "no-cache"
        self.headers["x-accel-buffering"] = "no"  # proxies must not buffer what is verified

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async with anyio.create_task_group() as group:

            async def watch() -> None:
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        self.departure.reason = self.departure.reason or "the client disconnected"
                        group.cancel_scope.cancel()
                        return

            group.start_soon(watch)
            try:
                await self._send_all(send)
            finally:
                group.cancel_scope.cancel()

    async def _send_all(self, send: Send) -> None:
        body = self.body_iterator
        try:
            await send(
                {"type": "http.response.start", "status": self.status_code,
                 "headers": self.raw_headers}
            )  # fmt: skip
            async for piece in body:
                try:
                    with anyio.fail_after(self.send_timeout_s):
                        await send({"type": "http.response.body", "body": piece, "more_body": True})
                except TimeoutError:
                    self.departure.reason = (
                        f"the client took no data for {self.send_timeout_s:g} s (too slow)"
                    )
                    return
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:
            self.departure.reason = self.departure.reason or "the client connection failed"
        finally:
            with anyio.CancelScope(shield=True):
                closer = getattr(body, "aclose", None)
                if closer is not None:
                    await closer()


def _event(body: Mapping[str, Any]) -> bytes:
    return f"data: {json.dumps(body, ensure_ascii=False)}\n\n".encode()


def _delta(delta: dict[str, Any], finish_reason: str | None) -> dict[str, Any]:
    return {"index": 0, "delta": delta, "finish_reason": finish_reason}
