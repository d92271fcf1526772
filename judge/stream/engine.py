"""Verification of an answer as it is written: sentence by sentence, released in order.

The chunks are read by a task of their own, so generation goes on while sentences are judged.
Each sentence is cut (:mod:`judge.stream.cutter`) as soon as it is complete and its
verification starts at once: alignment, the injection screen and the exact checks in that
step, then the judge. Judge calls share the request's judge view (one fence nonce: the
evidence prefix is byte-identical), its verdict cache and ledger; they run concurrently up to
``settings.concurrency``, and sentences judged against the same passages one after another, as
the buffered pipeline does, so each call after the first finds the evidence prefix cached.

Sentences are released strictly in order, each only after its verdict (:mod:`.policy`):

* every claim passes: released;
* a failure a repair would cut (unsupported, uncited, added hedge, a gap in coverage):
  withheld, and the stream goes on;
* a failure that blocks (contradiction, failed number, date, identifier, name or quote check,
  bad citation, review, verifier error, markup hiding text anywhere in the text so far):
  the stream stops; the generator is cancelled and pending verifications with it.

At the end the answer-level rules run on what was decided (citation stuffing, the main
conclusion, the answer threshold), with the buffered pipeline's policy: the same verdicts give
the same action. What a stream cannot do is take back text already released; so sentences
whose release those rules may still forbid are held back, in order, until they are decided:
from a bare reply to the question on ("Yes.", whose meaning is the reply's main conclusion),
to the end; and while every citation so far covers more than half the evidence (citation
stuffing may follow), until a sentence cites less. Held sentences go out once the hold ends,
at the latest after the last decision when the reply passed or was repaired; otherwise they
are withheld. For the rest, those rules can only add a notice
(:class:`~judge.stream.events.StreamResult`).

Bounded: at most ``max_pending_sentences`` sentences are cut and not yet taken by the consumer;
past that the chunks are not read until it catches up (a slow client slows the generator, it
does not fill memory). Bounded in time (:class:`StreamLimits`): the first text must come within
``first_text_timeout_s`` of the start, each later text chunk within ``text_gap_timeout_s`` of
the one before (an empty chunk does not count), and the whole stream ends within
``deadline_s``. Every fault fails closed: a generator error, stall or malformed chunk, a judge
fault or timeout, the deadline, a bug, all end the stream with nothing further released.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from judge.config import ConclusionPolicy, Extractor, ProbePolicy, Settings
from judge.errors import GeneratorStalled, InputError, VerifierFault, fault_text
from judge.judges.binding import bind_request
from judge.judges.wrappers import UnavailableJudge
from judge.pipeline.claim_stage import ClaimStage, claim_stage
from judge.pipeline.claims.decompose import facts_to_claims
from judge.pipeline.claims.extract import Extraction
from judge.pipeline.context import ClaimContext, RequestContext
from judge.pipeline.entail.stage import Entailed, entail_all, error_verdict, probe_pending
from judge.pipeline.entail.thresholds import Thresholds, active_thresholds
from judge.pipeline.ledger import freeze_ledger
from judge.pipeline.runner import RunFrame, conclude
from judge.pipeline.screens.answer import answer_rules
from judge.pipeline.screens.stuffing import may_become_stuffing
from judge.protocols import Check, Decomposer, Judge, Metered
from judge.reading.answer import is_factual, read_answer
from judge.reading.markup import hidden_markup
from judge.reading.words import is_bare_reply
from judge.schemas import (
    Action,
    Claim,
    ClaimVerdict,
    Passage,
    VerifyRequest,
    VerifyResponse,
)
from judge.stream.cutter import CutSentence, SentenceCutter
from judge.stream.events import Release, StreamedSentence, StreamEnd, StreamResult
from judge.stream.policy import final_outcome, sentence_release

log = logging.getLogger("judge.stream")

__all__ = ["StreamLimits", "StreamVerification"]


@dataclass(frozen=True)
class StreamLimits:
    """How much a stream holds back, and for how long. A time left ``None`` is not bounded
    here (the settings give every bound: :func:`judge.api.stream_limits`)."""

    # The longest sentence, and the longest run of text held back waiting for its end: past
    # it the stream stops, none of the run released.
    max_sentence_chars: int = 2000
    # Sentences cut and not yet taken by the consumer; past this the chunks wait.
    max_pending_sentences: int = 8
    # Seconds from a sentence's completion to its verdict (None: the judge's own timeouts).
    sentence_timeout_s: float | None = None
    # Seconds from the start to the first text, and from one text chunk to the next.
    first_text_timeout_s: float | None = None
    text_gap_timeout_s: float | None = None
    # Seconds from the start to the result, whatever is under way.
    deadline_s: float | None = None

    def __post_init__(self) -> None:
        if self.max_sentence_chars < 2:
            raise ValueError("max_sentence_chars must be at least 2")
        if self.max_pending_sentences < 1:
            raise ValueError("max_pending_sentences must be at least 1")
        for name in (
            "sentence_timeout_s",
            "first_text_timeout_s",
            "text_gap_timeout_s",
            "deadline_s",
        ):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ValueError(f"{name} must be positive")


@dataclass
class _Slot:
    """One cut sentence and its verification in flight."""

    cut: CutSentence
    completed_at: float
    notes: list[str] = field(default_factory=list)
    calls: int = 0  # judge calls spent decomposing it
    task: asyncio.Task[list[ClaimVerdict]] = field(init=False)


@dataclass
class _Halt:
    ended: StreamEnd
    reason: str


class StreamVerification:
    """One streamed answer against one ledger. Iterate :meth:`events` once."""

    def __init__(
        self,
        evidence: Sequence[Passage],
        settings: Settings,
        *,
        question: str | None = None,
        judge: Judge | None = None,
        use_judge: bool = True,
        checks: Sequence[Check] | None = None,
        thresholds: Thresholds | None = None,
        limits: StreamLimits | None = None,
        request_id: str | None = None,
        started: float | None = None,
    ) -> None:
        """``started``: the ``time.perf_counter()`` the stream's time bounds count from (the
        request's arrival; default: when the reading starts)."""
        self.settings = settings
        self.question = question
        self.limits = limits or StreamLimits()
        self.request_id = request_id or uuid.uuid4().hex
        self.evidence = list(evidence)
        self.ledger = freeze_ledger(self.evidence, settings)  # InputError before any chunk
        self.thresholds = thresholds or active_thresholds(settings)
        if use_judge and judge is None:
            raise ValueError("give the judge to use, or use_judge=False")
        self.judge = bind_request(judge, self.ledger.ledger_hash) if judge and use_judge else None
        context = RequestContext(self.ledger, question, settings, self.thresholds)
        self.stage: ClaimStage = claim_stage(context, checks, "")
        self.cutter = SentenceCutter(
            self.ledger.ids, max_sentence_chars=self.limits.max_sentence_chars
        )
        self._slots: list[_Slot] = []
        self._changed = asyncio.Event()
        self._taken = asyncio.Event()
        self._halted = asyncio.Event()
        self._halt: _Halt | None = None
        self._reading_done = False
        self._consumed = 0
        self._claims = 0
        self._semaphore = asyncio.Semaphore(settings.concurrency)
        self._groups: dict[tuple[str, ...], asyncio.Lock] = {}
        self._blocked = False
        self._started = time.perf_counter() if started is None else started
        self._given_start = started is not None
        self._decided: list[StreamedSentence] = []
        self._reader: asyncio.Task[None] | None = None
        self._held: list[StreamedSentence] = []  # decided, released once the answer is
        self._awaits_conclusion = False
        self._first_text = asyncio.Event()
        self._last_text = self._started
        self._deadline: asyncio.TimerHandle | None = None

    @property
    def received(self) -> str:
        """The answer text received so far."""
        return self.cutter.text

    @property
    def decided(self) -> list[StreamedSentence]:
        """The sentences decided so far, in order."""
        return list(self._decided)

    @property
    def verified_request(self) -> VerifyRequest:
        """The request the result verified: the evidence, the question and the answer text up
        to the end of the last sentence decided (what an audit record replays)."""
        end = self._decided[-1].span.end if self._decided else 0
        return _request(self.evidence, self.cutter.text[:end], self.question)

    def start(self, chunks: AsyncIterable[str]) -> None:
        """Start reading ``chunks`` (:meth:`events` does, when it has not been): the time
        bounds run from here, or from ``started``."""
        if self._reader is not None:
            raise RuntimeError("a stream is read once")
        if not self._given_start:
            self._started = time.perf_counter()
        self._reader = asyncio.create_task(self._read(chunks), name="stream-reader")
        deadline = self.limits.deadline_s
        if deadline is not None:
            loop = asyncio.get_running_loop()
            at = loop.time() + deadline - (time.perf_counter() - self._started)
            self._deadline = loop.call_at(
                at, self.halt, StreamEnd.DEADLINE, f"it was not finished within {deadline:g} s"
            )

    async def first_text(self) -> tuple[StreamEnd, str] | None:
        """Wait for the first chunk of text; None once it came, else how the stream ended
        before any (a generator fault or stall, unreadable text, a halt)."""
        if self._reader is None:
            raise RuntimeError("start the stream first")
        halted = asyncio.ensure_future(self._halted.wait())
        arrived = asyncio.ensure_future(self._first_text.wait())
        try:
            await asyncio.wait({halted, arrived}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            halted.cancel()
            arrived.cancel()
        if self._first_text.is_set():
            return None
        assert self._halt is not None
        return self._halt.ended, self._halt.reason

    def halt(self, ended: StreamEnd, reason: str) -> None:
        """End the stream from outside (a deadline, the service shutting down): nothing more
        is released, and the result says ``ended`` with ``reason``."""
        self._halt_with(ended, reason)

    async def events(
        self, chunks: AsyncIterable[str] | None = None
    ) -> AsyncGenerator[StreamedSentence | StreamResult, None]:
        """Each sentence as it is decided, in order, then one :class:`StreamResult`. Closing
        the iterator early (a client gone) cancels the reading and every pending judge call.
        ``chunks`` may be left out when :meth:`start` was called."""
        if self._reader is None:
            if chunks is None:
                raise RuntimeError("give the chunks, or start the stream first")
            self.start(chunks)
        reader = self._reader
        assert reader is not None
        decided = self._decided
        stopped_by: StreamedSentence | None = None
        held = self._held
        try:
            position = 0
            while True:
                slot = await self._slot(position)
                if slot is None:
                    break
                verdicts = await self._verdicts(slot)
                if verdicts is None:
                    break  # halted while it was being judged: nothing more goes out
                event = self._decide(slot, verdicts, decided)
                decided.append(event)
                position += 1
                self._consumed = position
                self._taken.set()
                if event.release is Release.STOPPED:
                    yield event
                    stopped_by = event
                    self._blocked = True
                    break
                held.append(event)
                if not self._holding(event, decided):
                    while held:
                        yield held.pop(0)
            await self._stop(reader)
            result = await self._bounded_result(decided, stopped_by)
            if held and result.outcome in ("passed", "repaired"):
                while held:
                    yield held.pop(0)
            elif held:
                result = self._withhold(result, held, stopped_by)
            yield result
        finally:
            if self._deadline is not None:
                self._deadline.cancel()
            await self._stop(reader)

    # --- reading ---------------------------------------------------------------------------

    async def _read(self, chunks: AsyncIterable[str]) -> None:
        iterator = aiter(chunks)
        try:
            while True:
                try:
                    chunk = await self._next_chunk(iterator)
                except StopAsyncIteration:
                    break
                if not isinstance(chunk, str):
                    self._halt_with(StreamEnd.GENERATOR_FAULT, "a chunk was not text")
                    return
                if not chunk:
                    continue
                if len(self.cutter.text) + len(chunk) > self.settings.max_answer_chars:
                    limit = self.settings.max_answer_chars
                    message = f"answer: the answer exceeds the limit of {limit} characters"
                    self._halt_with(StreamEnd.LIMIT, message)
                    return
                self._first_text.set()
                self._last_text = time.perf_counter()
                if not self._started_all(self._cut_feed, chunk):
                    return
                while len(self._slots) - self._consumed >= self.limits.max_pending_sentences:
                    self._taken.clear()
                    await self._taken.wait()
                    self._last_text = time.perf_counter()  # waiting on the reader is not a gap
            self._started_all(self._cut_finish, "")
        except asyncio.CancelledError:
            raise
        except InputError as exc:  # the source says its text is unreadable (not UTF-8, ...)
            self._halt_with(StreamEnd.INVALID, str(exc))
        except Exception as exc:
            self._halt_with(StreamEnd.GENERATOR_FAULT, _fault_of(exc))
        finally:
            self._reading_done = True
            self._changed.set()
            closer = getattr(iterator, "aclose", None)
            if closer is not None:
                with contextlib.suppress(Exception):
                    await closer()

    async def _next_chunk(self, iterator: AsyncIterator[str]) -> str:
        """The next chunk, within the time bound for it: the first text within
        ``first_text_timeout_s`` of the start, each later one within ``text_gap_timeout_s`` of
        the last text (empty chunks and keep-alives do not count as text)."""
        if not self._first_text.is_set():
            limit, since, what = self.limits.first_text_timeout_s, self._started, "no text within"
        else:
            limit, since, what = self.limits.text_gap_timeout_s, self._last_text, "no text for"
        if limit is None:
            return await anext(iterator)
        remaining = since + limit - time.perf_counter()
        try:
            async with asyncio.timeout(max(0.0, remaining)):
                return await anext(iterator)
        except TimeoutError:
            raise GeneratorStalled(f"the generator sent {what} {limit:g} s") from None

    def _cut_feed(self, chunk: str) -> list[CutSentence]:
        return self.cutter.feed(chunk)

    def _cut_finish(self, _: str) -> list[CutSentence]:
        return self.cutter.finish()

    def _started_all(self, step: Callable[[str], list[CutSentence]], chunk: str) -> bool:
        """Run one cutter step and start verifying what it completed; False once halted."""
        try:
            cuts = step(chunk)
        except InputError as exc:
            self._halt_with(StreamEnd.INVALID, str(exc))
            return False
        for cut in cuts:
            self._claims += len(cut.claims)
            if self._claims > self.settings.max_claims:
                self._halt_with(
                    StreamEnd.LIMIT,
                    f"claims: the answer exceeds the limit of {self.settings.max_claims} claims",
                )
                return False
            self._start(cut)
        return True

    def _start(self, cut: CutSentence) -> None:
        slot = _Slot(cut, time.perf_counter())
        slot.task = asyncio.create_task(self._verify(slot), name=f"verify-sentence-{cut.index}")
        self._slots.append(slot)
        self._changed.set()

    def _halt_with(self, ended: StreamEnd, reason: str) -> None:
        if self._halt is None:
            self._halt = _Halt(ended, reason)
            self._halted.set()
            self._changed.set()

    # --- verifying -------------------------------------------------------------------------

    async def _verify(self, slot: _Slot) -> list[ClaimVerdict]:
        claims = list(slot.cut.claims)
        try:
            errors: dict[str, str] = {}
            if self.settings.extractor is Extractor.LLM and self._decomposer() is not None:
                claims = await self._decompose(slot, claims, errors)
            self.stage.screen.answer = self.cutter.text  # the claim spans index into it
            results, pending = self.stage.prejudge(claims, errors)
            if pending:
                judged = await self._judge_pending([context for _, context in pending])
                for (index, _), entailed in zip(pending, judged, strict=True):
                    results[index] = entailed
            entailed_all = [e for e in results if e is not None]
            return await self._probe(entailed_all)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("sentence %d failed unexpectedly", slot.cut.index)
            message = f"unexpected {type(exc).__name__}: {exc}"
            return [error_verdict(claim, [], message) for claim in claims]

    async def _judge_pending(self, contexts: list[ClaimContext]) -> list[Entailed]:
        timeout = self.limits.sentence_timeout_s
        results: list[Entailed | None] = [None] * len(contexts)
        try:
            async with asyncio.timeout(timeout):
                for position, context in enumerate(contexts):
                    results[position] = await self._judge_one(context)
        except TimeoutError:
            message = f"RequestDeadlineExceeded: the sentence was not verified within {timeout:g} s"
            for position, context in enumerate(contexts):
                if results[position] is None:
                    claim = context.alignment.claim
                    results[position] = Entailed(error_verdict(claim, context.outcomes, message))
        return [r for r in results if r is not None]

    async def _judge_one(self, context: ClaimContext) -> Entailed:
        group = self._groups.setdefault(tuple(context.alignment.passage_ids), asyncio.Lock())
        async with group, self._semaphore:
            [entailed] = await entail_all([context], self.judge)
        return entailed

    async def _probe(self, entailed: list[Entailed]) -> list[ClaimVerdict]:
        policy = self.settings.contradiction_probe
        judge = self.judge
        wanted = policy is ProbePolicy.ALWAYS or (
            policy is ProbePolicy.UNLESS_BLOCKED and not self._blocked
        )
        if judge is None or not wanted or not any(e.pending for e in entailed):
            return [e.verdict for e in entailed]
        async with self._semaphore:
            return await probe_pending(entailed, judge)

    def _decomposer(self) -> Decomposer | None:
        judge = self.judge
        if judge is None or isinstance(judge, UnavailableJudge):
            return None
        return judge if isinstance(judge, Decomposer) else None

    async def _decompose(
        self, slot: _Slot, claims: list[Claim], errors: dict[str, str]
    ) -> list[Claim]:
        """Each factual sentence claim as its atomic facts (``extractor = llm``), with the text
        before it as context, as the buffered pipeline decomposes it."""
        decomposer = self._decomposer()
        assert decomposer is not None
        out: list[Claim] = []
        for claim in claims:
            if not is_factual(claim.text) or claim.span is None:
                out.append(claim)
                continue
            context = self.cutter.text[: claim.span.start]
            before = _calls(decomposer)
            try:
                async with self._semaphore:
                    facts = await decomposer.decompose(claim.text, context, self.question)
            except VerifierFault as exc:
                out.append(claim)
                if self.settings.decompose_fallback:
                    slot.notes.append(
                        f"decomposition of {claim.id} failed ({fault_text(exc)}): judged as a "
                        "sentence"
                    )
                else:
                    errors[claim.id] = f"decomposition failed: {fault_text(exc)}"
                continue
            slot.calls += _calls_since(decomposer, before)
            out.extend(facts_to_claims(claim, facts))
        return out

    # --- releasing -------------------------------------------------------------------------

    async def _slot(self, position: int) -> _Slot | None:
        while position >= len(self._slots):
            if self._reading_done or self._halt is not None:
                return None
            self._changed.clear()
            await self._changed.wait()
        if self._halt is not None and self._halt.ended is not StreamEnd.LIMIT:
            # A generator fault, unreadable text or a bug: nothing more goes out. Over a limit,
            # the sentences cut before it are still decided.
            return None
        return self._slots[position]

    async def _verdicts(self, slot: _Slot) -> list[ClaimVerdict] | None:
        halted = asyncio.ensure_future(self._halted.wait())
        try:
            done, _ = await asyncio.wait({slot.task, halted}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            halted.cancel()
        if slot.task in done:
            return slot.task.result()
        if self._halt is not None and self._halt.ended is StreamEnd.LIMIT:
            return await slot.task
        return None

    def _decide(
        self, slot: _Slot, verdicts: list[ClaimVerdict], decided: list[StreamedSentence]
    ) -> StreamedSentence:
        sentence = slot.cut.sentence
        release = sentence_release(sentence, verdicts, self.thresholds.t_answer)
        markup = hidden_markup(self.cutter.text)
        if markup and release is not Release.STOPPED:
            release = Release.STOPPED
            slot.notes.append("markup hides text from a reader: " + markup[0].describe())
        delta = ""
        if release is Release.RELEASED:
            shown = [e for e in decided if e.release is Release.RELEASED]
            delta = sentence.text
            if shown:
                previous_end = decided[-1].span.end if decided else sentence.span.start
                delta = self.cutter.text[previous_end : sentence.span.start] + sentence.text
        now = time.perf_counter()
        return StreamedSentence(
            index=slot.cut.index,
            text=sentence.text,
            span=sentence.span,
            release=release,
            delta=delta,
            verdicts=verdicts,
            delay_s=round(now - slot.completed_at, 4),
            elapsed_s=round(now - self._started, 4),
        )

    def _holding(self, event: StreamedSentence, decided: list[StreamedSentence]) -> bool:
        """Whether the sentences decided so far must wait for the answer-level rules: from a
        bare reply to the question on (its meaning is the main conclusion, judged at the end),
        and for as long as the citations so far could still become citation stuffing."""
        conclusion = self.settings.check_conclusion is not ConclusionPolicy.NEVER
        if event.release is Release.RELEASED and conclusion and self.question:
            self._awaits_conclusion = self._awaits_conclusion or is_bare_reply(event.text)
        claims = [v.claim for e in decided for v in e.verdicts]
        return self._awaits_conclusion or (
            self.settings.detect_stuffing
            and may_become_stuffing(
                [c.citations for c in claims if is_factual(c.text)],
                self.ledger.ids,
                min_passages=self.settings.stuffing_min_passages,
            )
        )

    def _withhold(
        self,
        result: StreamResult,
        held: list[StreamedSentence],
        stopped_by: StreamedSentence | None,
    ) -> StreamResult:
        """The result once the held sentences are withheld: the answer did not verify."""
        indexes = {event.index for event in held}
        self._decided[:] = [
            e.model_copy(update={"release": Release.WITHHELD, "delta": ""})
            if e.index in indexes
            else e
            for e in self._decided
        ]
        decided = self._decided
        released = [e.index for e in decided if e.release is Release.RELEASED]
        outcome, notice = final_outcome(
            result.response,
            result.ended,
            result.stop_reason,
            released=bool(released),
            withheld=True,
            question=self.question,
            evidence=self.evidence,
            stopped_by=stopped_by,
        )
        first = next((e.elapsed_s for e in decided if e.release is Release.RELEASED), None)
        return result.model_copy(
            update={
                "outcome": outcome,
                "notice": notice,
                "released_text": "".join(e.delta for e in decided),
                "released": released,
                "withheld": [e.index for e in decided if e.release is Release.WITHHELD],
                "first_release_s": first,
            }
        )

    # --- ending ----------------------------------------------------------------------------

    async def abandoned(self, reason: str) -> StreamResult:
        """The result of a stream whose consumer went away before its end (a client gone or too
        slow): what was decided up to then, blocked, with ``reason``. Call it after closing
        :meth:`events`; it makes no judge call."""
        return await self.ended_early(StreamEnd.ABANDONED, reason)

    async def ended_early(self, ended: StreamEnd, reason: str) -> StreamResult:
        """The result of a stream that ended before :meth:`events` gave one (its reader gone,
        a failure before the first text): what was decided up to then, blocked, with
        ``reason``. It stops the reading and makes no judge call."""
        if self._deadline is not None:
            self._deadline.cancel()
        if self._reader is not None:
            await self._stop(self._reader)
        self._halt = None
        self._halt_with(ended, reason)
        result = await self._result(self._decided, None)
        return self._withhold(result, self._held, None) if self._held else result

    async def _bounded_result(
        self, decided: list[StreamedSentence], stopped_by: StreamedSentence | None
    ) -> StreamResult:
        """The result within what is left of the deadline: past it, the judge calls of the
        answer-level rules are dropped and the stream ends as past its deadline."""
        deadline = self.limits.deadline_s
        if deadline is None:
            return await self._result(decided, stopped_by)
        remaining = self._started + deadline - time.perf_counter()
        try:
            async with asyncio.timeout(max(0.0, remaining)):
                return await self._result(decided, stopped_by)
        except TimeoutError:
            self._halt = None
            self._halt_with(StreamEnd.DEADLINE, f"it was not finished within {deadline:g} s")
            return await self._result(decided, None)

    async def _stop(self, reader: asyncio.Task[None]) -> None:
        """Cancel the reading (which closes the chunks) and every verification not taken."""
        tasks: list[asyncio.Task[Any]] = [reader]
        tasks += [s.task for s in self._slots[self._consumed :] if not s.task.done()]
        for task in tasks:
            if not task.done() and not task.cancelling():
                task.cancel()  # once: a second cancel would cut short its own clean-up
        pending = [task for task in tasks if not task.done()]
        if pending:
            # Not ``await task``: cancelling the awaiting task would cancel the awaited one
            # again, in the middle of its clean-up (closing the generator's connection).
            await asyncio.wait(pending)
        for task in tasks:
            if task.done() and not task.cancelled():
                task.exception()  # retrieved: a fault there is already the stream's

    async def _result(
        self, decided: list[StreamedSentence], stopped_by: StreamedSentence | None
    ) -> StreamResult:
        halt = self._halt
        if stopped_by is not None:
            ended, reason = StreamEnd.STOPPED, _stop_reason(stopped_by)
        elif halt is not None:
            ended, reason = halt.ended, halt.reason
        else:
            ended, reason = StreamEnd.COMPLETED, None
        verdicts = [v for event in decided for v in event.verdicts]
        notes = [note for slot in self._slots[: len(decided)] for note in slot.notes]
        calls = sum(slot.calls for slot in self._slots[: len(decided)])
        response = await self._response(decided, verdicts, ended, reason, notes, calls)
        released = [e.index for e in decided if e.release is Release.RELEASED]
        withheld = [e.index for e in decided if e.release is Release.WITHHELD]
        outcome, notice = final_outcome(
            response,
            ended,
            reason,
            released=bool(released),
            withheld=bool(withheld),
            question=self.question,
            evidence=self.evidence,
            stopped_by=stopped_by,
        )
        first = next((e.elapsed_s for e in decided if e.release is Release.RELEASED), None)
        return StreamResult(
            response=response,
            outcome=outcome,
            ended=ended,
            released_text="".join(e.delta for e in decided),
            notice=notice,
            stop_reason=reason,
            released=released,
            withheld=withheld,
            stopped=stopped_by.index if stopped_by is not None else None,
            not_verified=[s.cut.index for s in self._slots[len(decided) :]],
            received_chars=len(self.cutter.text),
            first_release_s=first,
        )

    async def _response(
        self,
        decided: list[StreamedSentence],
        verdicts: list[ClaimVerdict],
        ended: StreamEnd,
        reason: str | None,
        notes: list[str],
        calls: int,
    ) -> VerifyResponse:
        """The verification of what was decided, concluded as the buffered pipeline concludes."""
        answer = self.cutter.text[: decided[-1].span.end] if decided else ""
        run = RunFrame(
            self.request_id,
            self.ledger,
            _request(self.evidence, answer, self.question),
            self.settings,
            self.thresholds,
            self._started,
        )
        sentences = [slot.cut.sentence for slot in self._slots[: len(decided)]]
        claims = [v.claim for v in verdicts]
        reading = read_answer(answer, known_ids=self.ledger.ids, strict=False, sentences=sentences)
        extraction = Extraction(claims, reading, notes=notes, calls=calls)
        report, screens = answer_rules(extraction, self.ledger.ids, self.settings)
        response = await conclude(
            run,
            extraction,
            verdicts,
            self.judge,
            self.stage.judging(extraction.errors, self.judge),
            report,
            screens,
            limits=[reason] if ended is StreamEnd.LIMIT and reason else [],
            complete=ended is StreamEnd.COMPLETED,
        )
        kinds = {
            StreamEnd.GENERATOR_FAULT: "verifier error",
            StreamEnd.ABANDONED: "verifier error",
            StreamEnd.DEADLINE: "verifier error",
            StreamEnd.SHUTDOWN: "verifier error",
            StreamEnd.INVALID: "unreadable answer",
            StreamEnd.STOPPED: "stream stopped",
        }
        kind = kinds.get(ended)
        if kind is None or (ended is StreamEnd.STOPPED and response.action is Action.BLOCK):
            return response
        return response.model_copy(
            update={
                "action": Action.BLOCK,
                "reasons": [*response.reasons, f"{kind}: {reason}"],
                "repaired_answer": None,
                "repair_edits": [],
            }
        )


def _request(evidence: list[Passage], answer: str, question: str | None) -> VerifyRequest:
    if answer.strip():
        return VerifyRequest(evidence=evidence, answer=answer, question=question)
    # Nothing was decided: the record holds the ledger and no answer text.
    return VerifyRequest.model_construct(
        evidence=evidence, answer="", claims=None, question=question, first_tier=None
    )


def _stop_reason(event: StreamedSentence) -> str:
    failing = [v for v in event.verdicts if v.label.value not in ("supported", "not_factual")]
    if not failing:
        return f"sentence {event.index + 1}: markup hides text from a reader"
    first = failing[0]
    return f"{first.claim.id} {first.label.value}: {first.reason or first.error or ''}".strip()


def _fault_of(exc: Exception) -> str:
    """What went wrong, for the result and the audit log: a fault of this package says it in
    its own words; anything else by its type alone, since its message may quote the text."""
    if isinstance(exc, VerifierFault):
        return fault_text(exc)
    return type(exc).__name__


def _calls(judge: object) -> int | None:
    return judge.usage.calls if isinstance(judge, Metered) else None


def _calls_since(judge: object, before: int | None) -> int:
    if before is None or not isinstance(judge, Metered):
        return 1
    return judge.usage.calls - before
