"""The Python API: ``verify`` with plain arguments, and a :class:`Verifier` that stays open.

::

    import judge

    result = judge.verify_sync(
        answer="Returns are accepted within 30 days [S1].",
        evidence=["Unopened items may be returned within 30 days of delivery."],
    )
    result.passed, result.action, result.failing

Evidence items are strings (numbered ``S1``, ``S2``, ... by position), dicts in the request
schema, or :class:`~judge.schemas.Passage` objects. ``verify`` and ``verify_sync`` also take a
whole request (a dict or :class:`~judge.schemas.VerifyRequest`) as their first argument.

A :class:`Verifier` opens the judge endpoint, its verdict cache and the decision thresholds
once and reuses them for every call. Its sync methods run on a private event loop in a worker
thread, so they also work where a loop is already running (Jupyter).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import AsyncIterable, AsyncIterator, Coroutine, Iterable, Mapping, Sequence
from types import TracebackType
from typing import Any, TypeVar

from pydantic import ValidationError

from judge.config import Settings, _refuse_unknown, load_settings
from judge.errors import InputError, VerifierFault, fault_text
from judge.inputs.request import input_error_from, parse_request
from judge.judges.wrappers import UnavailableJudge
from judge.pipeline import runner
from judge.pipeline.entail import thresholds as calibration
from judge.pipeline.entail.connect import judge_for_run
from judge.protocols import Check, Judge
from judge.schemas import Passage, StructuredClaim, VerifyRequest, VerifyResponse
from judge.settings_check import validated
from judge.stream import StreamedSentence, StreamLimits, StreamResult, StreamVerification

EvidenceItem = str | Mapping[str, Any] | Passage
ClaimItem = str | Mapping[str, Any] | StructuredClaim
RequestLike = VerifyRequest | Mapping[str, Any]

T = TypeVar("T")

__all__ = [
    "Verifier",
    "build_request",
    "evidence_passages",
    "settings_with",
    "verify",
    "verify_sync",
]


def build_request(
    *,
    answer: str | None = None,
    evidence: Iterable[EvidenceItem] | None = None,
    question: str | None = None,
    claims: Iterable[ClaimItem] | None = None,
) -> VerifyRequest:
    """A validated request from plain arguments; a bad one raises ``InputError`` naming the
    field (``evidence[2].text``)."""
    if evidence is None:
        raise InputError("give the evidence passages the answer was written from", "evidence")
    data: dict[str, Any] = {"evidence": [_passage(item, i) for i, item in _items(evidence)]}
    if answer is not None:
        data["answer"] = answer
    if claims is not None:
        data["claims"] = [_claim(item, i) for i, item in _items(claims, "claims")]
    if question is not None:
        data["question"] = question
    return parse_request(data)


def evidence_passages(evidence: Iterable[EvidenceItem], field: str = "evidence") -> list[Passage]:
    """Passages from strings (``S1``, ``S2``, ... by position), dicts or Passages; a bad item
    raises ``InputError`` naming it (``evidence[1].text``)."""
    out: list[Passage] = []
    for index, item in _items(evidence, field):
        data = _passage(item, index, field)
        try:
            out.append(Passage.model_validate(data))
        except ValidationError as exc:
            error = input_error_from(exc)
            where = f"{field}[{index}]" + ("" if error.field == "request" else f".{error.field}")
            raise InputError(error.args[0], where) from None
    return out


def settings_with(settings: Settings | None = None, **overrides: Any) -> Settings:
    """``settings`` (else the configured ones) with ``overrides`` by field name. An unknown name
    or a bad value is a ``ConfigError`` naming it."""
    if settings is None:
        return load_settings(**overrides)
    if not overrides:
        return settings
    _refuse_unknown(overrides, "settings overrides")
    merged = {**settings.model_dump(), **overrides}
    return validated(Settings, merged, sources=dict.fromkeys(overrides, "the overrides"))


async def verify(
    request: RequestLike | None = None,
    settings: Settings | None = None,
    *,
    answer: str | None = None,
    evidence: Iterable[EvidenceItem] | None = None,
    question: str | None = None,
    claims: Iterable[ClaimItem] | None = None,
    judge: Judge | None = None,
    use_judge: bool = True,
    checks: Sequence[Check] | None = None,
) -> VerifyResponse:
    """Verify one answer, opening (and closing) the judge for this call. For many calls, keep a
    :class:`Verifier` open instead. ``checks`` replaces the default exact checks."""
    req = _request(request, answer, evidence, question, claims)
    settings = settings or load_settings()
    async with judge_for_run(settings, judge, use_judge=use_judge) as opened:
        return await runner.verify(req, settings, judge=opened, checks=checks)


def verify_sync(
    request: RequestLike | None = None,
    settings: Settings | None = None,
    *,
    answer: str | None = None,
    evidence: Iterable[EvidenceItem] | None = None,
    question: str | None = None,
    claims: Iterable[ClaimItem] | None = None,
    judge: Judge | None = None,
    use_judge: bool = True,
    checks: Sequence[Check] | None = None,
) -> VerifyResponse:
    """Blocking :func:`verify`; inside a running event loop it runs on a worker thread."""
    return _run_blocking(
        verify(
            request,
            settings,
            answer=answer,
            evidence=evidence,
            question=question,
            claims=claims,
            judge=judge,
            use_judge=use_judge,
            checks=checks,
        )
    )


class Verifier:
    """Verifies many answers with one judge client, verdict cache and set of thresholds.

    ``Verifier(base_url="http://127.0.0.1:8000/v1", timeout_s=30)``: keyword arguments override
    settings by name. Use ``with`` around the sync methods and ``async with`` around the async
    ones; both close what was opened. A ``judge`` given here is used as it is and not closed.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        judge: Judge | None = None,
        use_judge: bool = True,
        checks: Sequence[Check] | None = None,
        **overrides: Any,
    ) -> None:
        self.settings = settings_with(settings, **overrides)
        self.thresholds = calibration.active_thresholds(self.settings)
        self.use_judge = use_judge
        self.checks = list(checks) if checks is not None else None
        self._given_judge = judge
        self._sessions: dict[asyncio.AbstractEventLoop, _Session] = {}
        self._lock = threading.Lock()
        self._worker: _LoopThread | None = None

    async def verify(
        self,
        request: RequestLike | None = None,
        *,
        answer: str | None = None,
        evidence: Iterable[EvidenceItem] | None = None,
        question: str | None = None,
        claims: Iterable[ClaimItem] | None = None,
    ) -> VerifyResponse:
        req = _request(request, answer, evidence, question, claims)
        return await self._verify(req)

    def verify_sync(
        self,
        request: RequestLike | None = None,
        *,
        answer: str | None = None,
        evidence: Iterable[EvidenceItem] | None = None,
        question: str | None = None,
        claims: Iterable[ClaimItem] | None = None,
    ) -> VerifyResponse:
        req = _request(request, answer, evidence, question, claims)
        return self._worker_thread().run(self._verify(req))

    async def verify_stream(
        self,
        chunks: AsyncIterable[Any],
        *,
        evidence: Iterable[EvidenceItem],
        question: str | None = None,
        limits: StreamLimits | None = None,
    ) -> AsyncIterator[StreamedSentence | StreamResult]:
        """Verify an answer as it is written: ``chunks`` is any async iterator of its text (an
        LLM SDK's stream: strings, openai ``ChatCompletionChunk``s or LangChain message chunks).
        Yields each sentence with its verdicts as soon as it is decided, in order (only a
        ``released`` one may be shown), then the answer-level :class:`StreamResult`. Stopping
        the iteration early cancels the reading of ``chunks`` and every pending judge call.
        Bad evidence raises ``InputError`` before any chunk is read."""
        passages = evidence_passages(evidence)
        judge = await self._request_judge() if self.use_judge else None
        verification = StreamVerification(
            passages,
            self.settings,
            question=question,
            judge=judge,
            use_judge=self.use_judge,
            checks=self.checks,
            thresholds=self.thresholds,
            limits=limits or stream_limits(self.settings),
        )
        events = verification.events(_text_chunks(chunks))
        try:
            async for event in events:
                yield event
        finally:
            await events.aclose()

    async def aclose(self) -> None:
        """Close what this event loop opened, and the worker thread's loop."""
        session = self._take_session(asyncio.get_running_loop())
        if session is not None:
            await session.aclose()
        worker = self._take_worker()
        if worker is not None:
            await asyncio.to_thread(self._stop_worker, worker)

    def close(self) -> None:
        """Close the worker thread's loop and what it opened (the sync methods' judge)."""
        worker = self._take_worker()
        if worker is not None:
            self._stop_worker(worker)

    def __enter__(self) -> Verifier:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> Verifier:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def _verify(self, req: VerifyRequest) -> VerifyResponse:
        judge = await self._request_judge() if self.use_judge else None
        return await runner.verify(
            req,
            self.settings,
            judge=judge,
            checks=self.checks,
            thresholds=self.thresholds,
        )

    async def _request_judge(self) -> Judge:
        """The shared judge (the pipeline takes its per-request view: a fresh prompt-fence
        nonce and the ledger hash in its cache keys). A judge that cannot be opened blocks this
        answer (verifier error) and is tried again on the next call."""
        loop = asyncio.get_running_loop()
        with self._lock:
            for stale in [other for other in self._sessions if other.is_closed()]:
                del self._sessions[stale]  # its loop is gone, and its HTTP client with it
            session = self._sessions.setdefault(loop, _Session(self.settings, self._given_judge))
        try:
            return await session.judge()
        except VerifierFault as exc:
            return UnavailableJudge(fault_text(exc))

    def _worker_thread(self) -> _LoopThread:
        with self._lock:
            if self._worker is None:
                self._worker = _LoopThread()
            return self._worker

    def _take_worker(self) -> _LoopThread | None:
        with self._lock:
            worker, self._worker = self._worker, None
            return worker

    def _take_session(self, loop: asyncio.AbstractEventLoop) -> _Session | None:
        with self._lock:
            return self._sessions.pop(loop, None)

    def _stop_worker(self, worker: _LoopThread) -> None:
        session = self._take_session(worker.loop)
        if session is not None:
            worker.run(session.aclose())
        worker.stop()


class _Session:
    """The judge opened on one event loop (an HTTP client belongs to the loop it runs on)."""

    def __init__(self, settings: Settings, given: Judge | None) -> None:
        self._settings = settings
        self._judge = given
        self._stack = contextlib.AsyncExitStack()
        self._opening = asyncio.Lock()

    async def judge(self) -> Judge:
        async with self._opening:
            if self._judge is None:
                from judge.pipeline.entail.connect import open_judge

                self._judge = await self._stack.enter_async_context(open_judge(self._settings))
            return self._judge

    async def aclose(self) -> None:
        await self._stack.aclose()


class _LoopThread:
    """An event loop running forever on a daemon thread; ``run`` blocks on one coroutine."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="grounding-judge-verifier", daemon=True
        )
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result()
        except BaseException:
            future.cancel()
            raise

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()


def stream_limits(settings: Settings, *, sentence_timeout_s: float | None = None) -> StreamLimits:
    """A stream's limits from the settings (the guard adds its request deadline per sentence)."""
    return StreamLimits(
        max_sentence_chars=settings.stream_max_sentence_chars,
        max_pending_sentences=settings.stream_max_pending_sentences,
        sentence_timeout_s=sentence_timeout_s,
        first_text_timeout_s=settings.stream_first_text_timeout_s,
        text_gap_timeout_s=settings.stream_text_gap_timeout_s,
        deadline_s=settings.stream_deadline_s,
    )


async def _text_chunks(chunks: AsyncIterable[Any]) -> AsyncIterator[str]:
    """The text of each chunk: a string, an openai chat-completion chunk, or anything with a
    string ``content`` (a LangChain message chunk). Anything else is refused by the stream."""
    async for chunk in chunks:
        yield _text_of(chunk)


def _text_of(chunk: Any) -> Any:
    if isinstance(chunk, str):
        return chunk
    content = getattr(chunk, "content", None)
    if isinstance(content, str):
        return content
    choices = getattr(chunk, "choices", None)
    if isinstance(choices, list):
        if not choices:
            return ""
        delta = getattr(choices[0], "delta", None)
        text = getattr(delta, "content", None)
        return text if isinstance(text, str) else ""
    return chunk  # not text: the stream ends with a fault naming it


def _run_blocking(coro: Coroutine[Any, Any, T]) -> T:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    # asyncio.run refuses to nest in a running loop: give the call a loop of its own.
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="grounding-judge") as pool:
        return pool.submit(asyncio.run, coro).result()


def _request(
    request: RequestLike | None,
    answer: str | None,
    evidence: Iterable[EvidenceItem] | None,
    question: str | None,
    claims: Iterable[ClaimItem] | None,
) -> VerifyRequest:
    if request is None:
        return build_request(answer=answer, evidence=evidence, question=question, claims=claims)
    if any(value is not None for value in (answer, evidence, question, claims)):
        raise InputError("give a whole request or answer/evidence/claims, not both", "request")
    return parse_request(dict(request) if isinstance(request, Mapping) else request)


def _items(values: Iterable[T], field: str = "evidence") -> Iterable[tuple[int, T]]:
    if isinstance(values, str | bytes | Mapping):
        raise InputError("must be a list", field)
    return enumerate(values)


def _passage(item: EvidenceItem, index: int, field: str = "evidence") -> Any:
    if isinstance(item, str):
        return {"id": f"S{index + 1}", "text": item}
    if isinstance(item, Passage):
        return item.model_dump()
    if isinstance(item, Mapping):
        return dict(item)
    raise InputError(
        f"expected a string, a dict or a Passage, not {type(item).__name__}", f"{field}[{index}]"
    )


def _claim(item: ClaimItem, index: int) -> Any:
    if isinstance(item, str):
        return {"text": item}
    if isinstance(item, StructuredClaim):
        return item.model_dump(exclude_none=True)
    if isinstance(item, Mapping):
        return dict(item)
    raise InputError(
        f"expected a string, a dict or a StructuredClaim, not {type(item).__name__}",
        f"claims[{index}]",
    )
