"""The guard endpoint's verified stream: ``stream: true`` sends each sentence as soon as it is
verified, never a byte of one before.

The generator is asked with ``stream: true`` and read as it writes. Until its first text the
response has not started, so that a generator that fails is still an HTTP error; meanwhile the
client's disconnect is watched, and the wait is bounded (``stream_first_text_timeout_s``):

* a generator that fails, sends malformed output or no text in time before its first text:
  HTTP 502 in OpenAI's form, naming the generator and quoting nothing it sent;
* the service shutting down: HTTP 503; a client that goes away: the generator is cancelled.

Then:

* a role chunk at once (no text), then one chunk per released sentence, in order;
* a withheld sentence sends nothing; a sentence that blocks stops the stream and cancels the
  generator;
* the last chunk carries the notice for the reader (what the evidence does not support, a
  notice from the answer-level rules, why the stream was cut off), ``finish_reason`` ``stop``,
  ``usage`` and ``grounding`` (``outcome``, ``verification`` and ``stream``: each sentence's
  release and verdict labels). ``grounding`` quotes no text that was not sent unless the
  request asks for it (``grounding.include_withheld``: :mod:`judge.service.redaction`);
* before that chunk the answer is written to the audit log, with the verdicts of every
  released and withheld sentence; before each sentence the log is checked fit to record. An
  audit fault ends the stream with an ``error`` event (code 503, which the openai SDK raises as
  an ``APIError``) and nothing further is released;
* a generator that stalls (``stream_text_gap_timeout_s``), a stream past its deadline
  (``stream_deadline_s``), the service shutting down: the stream ends, closed, with the reason
  in the last chunk's notice;
* a client that goes away, or takes no chunk for ``send_timeout_s``, ends the stream: the
  generator and every pending judge call are cancelled and the answer is recorded as abandoned.

Every stream that does not complete is logged with its reason and recorded in the audit log,
whichever way it ended, before its first text or after.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import anyio
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from judge.answer.types import Drafting
from judge.api import stream_limits
from judge.errors import AuditError
from judge.schemas import Passage, VerifyRequest
from judge.service.chat_models import Grounding, openai_error
from judge.service.redaction import brief, shown_in_stream, without_withheld
from judge.stream import (
    Release,
    StreamedSentence,
    StreamEnd,
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
SHUTTING_DOWN = "the service is shutting down"


class TextStream(Protocol):
    """A generation being streamed: its text chunks, and what the server said about it."""

    model: str
    prompt_tokens: int
    completion_tokens: int

    def __aiter__(self) -> AsyncIterator[str]: ...

    async def aclose(self) -> None: ...


class Departure:
    """Why the reader of the stream went away, when it did."""

    def __init__(self) -> None:
        self.reason: str | None = None


class ChatStream:
    """One verified chat stream: its chunks as server-sent events."""

    def __init__(
        self,
        service: Service,
        settings: Settings,
        generation: TextStream,
        passages: list[Passage],
        question: str | None,
        started: float,
        model: str,
        *,
        include_withheld: bool = False,
        drafting: Drafting | None = None,
    ) -> None:
        self.service = service
        self.settings = settings
        self.generation = generation
        self.model = model
        self.started = started
        self.include_withheld = include_withheld
        self.departure = Departure()
        self.drafting = drafting  # the citation grammar the generator wrote under
        self.verification = StreamVerification(
            passages,
            settings,
            question=question,
            judge=service.judge if service.options.use_judge else None,
            use_judge=service.options.use_judge,
            thresholds=service.thresholds,
            limits=stream_limits(settings, sentence_timeout_s=service.options.request_timeout_s),
            started=started,
        )
        self.request_id = self.verification.request_id
        self.created = int(time.time())
        self._sent_text = False
        self._recorded = False

    # --- before the response -----------------------------------------------------------------

    def start(self) -> None:
        """Start reading the generator; the service can stop this stream from now on."""
        self.service.streams.add(self)
        self.verification.start(self._chunks())

    def stop(self, reason: str) -> None:
        """End the stream closed from outside (the service going down)."""
        self.verification.halt(StreamEnd.SHUTDOWN, reason)

    async def opened(self, request: Request) -> Response | None:
        """Wait for the generator's first text, watching for the client's departure: None
        once it came, else the error response (the stream recorded, the generator closed)."""
        first = asyncio.ensure_future(self.verification.first_text())
        gone = asyncio.ensure_future(_disconnect(request.receive))
        try:
            await asyncio.wait({first, gone}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            with anyio.CancelScope(shield=True):
                await self.close(StreamEnd.ABANDONED, "the request was cancelled")
            raise
        finally:
            first.cancel()
            gone.cancel()
        if first.done() and not first.cancelled() and first.result() is None:
            return None
        if not first.done() or first.cancelled():
            await self.close(StreamEnd.ABANDONED, "the client disconnected before the first text")
            return Response(status_code=499)  # nobody reads it: the client has gone
        ended, reason = first.result() or (StreamEnd.GENERATOR_FAULT, "no text")
        fault = await self.close(ended, reason)
        if fault is not None:
            return openai_error(503, f"audit log unavailable: {fault}", "audit_error")
        if ended is StreamEnd.SHUTDOWN:
            return openai_error(503, f"{SHUTTING_DOWN}: no reply", "service_unavailable")
        self.service.metrics.observe_error("GeneratorFault")
        message = f"the generator failed before its first text: {reason}"
        return openai_error(502, message, "generator_error")

    # --- the response ------------------------------------------------------------------------

    async def events(self) -> AsyncIterator[bytes]:
        """The server-sent events; closing the iterator early records the stream abandoned."""
        service = self.service
        result: StreamResult | None = None
        events = self.verification.events()
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
                    await self._abandon(events, f"audit log unavailable: {fault}")
                    yield self._audit_error(fault)
                    return
                if not self._sent_text:
                    self._sent_text = True
                    metrics.stream_first_sentence.observe(self._elapsed())
                yield self._chunk({"content": event.delta})
            if result is None:  # the events ended without a result: never expected
                await self._abandon(events, "the verification ended without a result")
                return
            fault = await self._record(result)
            if fault is not None:
                yield self._audit_error(fault)
                return
            metrics.observe(self._request(), result.response, self._elapsed())
            yield self._last_chunk(result)
            yield b"data: [DONE]\n\n"
        finally:
            metrics.streams_open.dec()
            if not self._recorded:
                reason = self.departure.reason or "the stream was closed before its end"
                with anyio.CancelScope(shield=True):
                    await self._abandon(events, reason)

    async def closed(self) -> None:
        """The response is over: a stream not recorded yet (its events never ran) is."""
        reason = self.departure.reason or "the stream was closed before its end"
        await self.close(StreamEnd.ABANDONED, reason)

    async def close(self, ended: StreamEnd, reason: str) -> str | None:
        """End a stream whose events never ran or stopped early: the generator and pending
        judge calls cancelled, the answer recorded as ``ended``; the audit fault, if any.
        Does nothing once the stream was recorded."""
        if self._recorded:
            return None
        result = await self.verification.ended_early(ended, reason)
        return await self._record(result)

    # --- the pieces ------------------------------------------------------------------------

    async def _chunks(self) -> AsyncIterator[str]:
        try:
            async for chunk in self.generation:
                yield chunk
        finally:
            with contextlib.suppress(Exception):
                await self.generation.aclose()

    async def _abandon(
        self, events: AsyncIterator[StreamedSentence | StreamResult], reason: str
    ) -> None:
        closer = getattr(events, "aclose", None)
        if closer is not None:
            with contextlib.suppress(Exception):
                await closer()
        await self.close(StreamEnd.ABANDONED, reason)

    async def _audit_fault(self) -> str | None:
        audit = self.service.audit
        if audit is None:
            return "the audit log is not open"
        return await asyncio.to_thread(audit.fault)

    async def _record(self, result: StreamResult) -> str | None:
        """Write the answer to the audit log, and log a stream that did not complete; the
        fault when the record cannot be written."""
        self._recorded = True
        service = self.service
        service.streams.discard(self)
        service.metrics.streams.labels(result.ended.value).inc()
        if result.ended is not StreamEnd.COMPLETED:
            # A stopping sentence's reason quotes it: the log names its kind, the record has all.
            stopped = result.ended is StreamEnd.STOPPED
            reason = brief(result.stop_reason) if stopped else result.stop_reason
            log.warning(
                "stream %s ended %s (%s): %s",
                self.request_id,
                result.ended.value,
                result.outcome,
                reason,
            )
        try:
            if service.audit is None:
                raise AuditError("the audit log is not open")
            await asyncio.to_thread(
                service.audit.record,
                self._request(),
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

    def _request(self) -> VerifyRequest:
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
        notice = result.notice or ""
        if notice and result.released_text:
            notice = "\n\n" + notice
        usage = {
            "prompt_tokens": self.generation.prompt_tokens,
            "completion_tokens": self.generation.completion_tokens,
            "total_tokens": self.generation.prompt_tokens + self.generation.completion_tokens,
        }
        response = result.response
        summary = stream_summary(result, self.verification.decided)
        if not self.include_withheld:
            response = without_withheld(response, shown_in_stream(response, result.released))
            summary["stop_reason"] = brief(result.stop_reason)
        grounding = Grounding(outcome=result.outcome, verification=response, drafting=self.drafting)
        body = {
            **self._head(),
            "choices": [_delta({"content": notice} if notice else {}, "stop")],
            "usage": usage,
            "grounding": {**grounding.model_dump(mode="json"), "stream": summary},
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
                "claims": [v.claim.id for v in event.verdicts],
                "labels": [v.label.value for v in event.verdicts],
                "delay_s": event.delay_s,
            }
            for event in decided
        ],
    }


class EventStreamResponse(StreamingResponse):
    """Server-sent events from ``body``, each send bounded by ``send_timeout_s``. A client that
    disconnects or stops reading ends the body early, with the reason in ``departure``;
    ``on_close`` is awaited last, whether the body ran or not."""

    media_type = "text/event-stream"

    def __init__(
        self,
        body: AsyncIterator[bytes],
        departure: Departure,
        *,
        send_timeout_s: float = SEND_TIMEOUT_S,
        headers: Mapping[str, str] | None = None,
        on_close: Callable[[], Awaitable[object]] | None = None,
    ) -> None:
        super().__init__(body, headers=dict(headers or {}), media_type=self.media_type)
        self.body_iterator = body
        self.departure = departure
        self.on_close = on_close
        self.send_timeout_s = send_timeout_s
        self.headers["cache-control"] = "no-cache"
        self.headers["x-accel-buffering"] = "no"  # proxies must not buffer what is verified

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async with anyio.create_task_group() as group:

            async def watch() -> None:
                await _disconnect(receive)
                self.departure.reason = self.departure.reason or "the client disconnected"
                group.cancel_scope.cancel()

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
                if self.on_close is not None:
                    await self.on_close()


async def _disconnect(receive: Receive) -> None:
    """Return once the client has disconnected (the request body was read before)."""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return


def _event(body: Mapping[str, Any]) -> bytes:
    return f"data: {json.dumps(body, ensure_ascii=False)}\n\n".encode()


def _delta(delta: dict[str, Any], finish_reason: str | None) -> dict[str, Any]:
    return {"index": 0, "delta": delta, "finish_reason": finish_reason}
