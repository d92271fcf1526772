"""The stream's verification against the buffered pipeline, with the scripted fake judge (its
default script decides as the rule-based judge does), and its faults, limits and clean-up."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any

import pytest

from judge.api import evidence_passages
from judge.config import Settings
from judge.pipeline.runner import verify
from judge.schemas import Action, Claim, JudgeTrace, Label, VerifyRequest
from judge.schemas.judging import EntailmentResult, Premise
from judge.stream import (
    Release,
    StreamedSentence,
    StreamEnd,
    StreamLimits,
    StreamResult,
    StreamVerification,
)
from tests.support.fake_judge import (
    FakeJudgeServer,
    conclusion_response,
    fake_settings,
    rule_based_judge,
)
from tests.support.fake_stream import tokens

EVIDENCE = [
    "Customers may return any unopened item within 30 days of delivery for a full refund.",
    "Refunds are issued to the original payment method within 5 to 7 business days.",
]
GOOD = "Customers may return any unopened item within 30 days of delivery for a full refund [S1]."
SECOND = "Refunds are issued to the original payment method within 5 to 7 business days [S2]."
WRONG = "Customers may return any unopened item within 60 days of delivery for a full refund [S1]."
PIGEON = "Refund requests are also accepted by carrier pigeon [S2]."
QUESTION = "How do returns and refunds work?"


async def chunks_of(text: str, *, fail_after: int | None = None) -> AsyncIterator[str]:
    for index, piece in enumerate(tokens(text)):
        if fail_after is not None and index == fail_after:
            raise ConnectionResetError("generator connection reset")
        await asyncio.sleep(0)
        yield piece


async def run_stream(
    text: str | AsyncIterator[str],
    settings: Settings | None = None,
    *,
    server: FakeJudgeServer | None = None,
    limits: StreamLimits | None = None,
    judge: Any = None,
) -> tuple[list[StreamedSentence], StreamResult]:
    settings = settings or fake_settings()
    if judge is None:
        judge = (server or FakeJudgeServer()).judge(settings)
    verification = StreamVerification(
        evidence_passages(EVIDENCE), settings, question=QUESTION, judge=judge, limits=limits
    )
    source = chunks_of(text) if isinstance(text, str) else text
    events = [event async for event in verification.events(source)]
    result = events[-1]
    assert isinstance(result, StreamResult)
    sentences = [e for e in events[:-1] if isinstance(e, StreamedSentence)]
    assert len(sentences) == len(events) - 1
    return sentences, result


@pytest.mark.parametrize(
    ("answer", "action"),
    [
        (f"{GOOD} {SECOND}", Action.PASS),
        (f"{GOOD} {PIGEON} {SECOND}", Action.REPAIR),
        (f"{PIGEON} Refunds arrive by carrier pigeon [S1].", Action.REGENERATE),
        (f"{GOOD} {SECOND} {WRONG}", Action.BLOCK),
        (f"Sure! {GOOD}\n\n- {SECOND}", Action.PASS),
    ],
)
async def test_the_same_verdicts_and_action_as_the_buffered_pipeline(
    answer: str, action: Action
) -> None:
    settings = fake_settings()
    request = VerifyRequest(evidence=evidence_passages(EVIDENCE), answer=answer, question=QUESTION)
    buffered = await verify(request, settings, judge=FakeJudgeServer().judge(settings))
    sentences, result = await run_stream(answer, settings)
    streamed = result.response
    assert buffered.action is streamed.action is action
    assert [(v.claim.id, v.label) for v in streamed.verdicts] == [
        (v.claim.id, v.label) for v in buffered.verdicts
    ]
    assert [v.claim.text for v in streamed.verdicts] == [v.claim.text for v in buffered.verdicts]
    if action is Action.REPAIR:
        assert result.released_text == buffered.repaired_answer
    if action is Action.PASS:
        assert result.released_text == answer and result.outcome == "passed"
    assert [s.index for s in sentences] == list(range(len(sentences)))


async def test_released_text_is_only_what_passed_in_order() -> None:
    sentences, result = await run_stream(f"{GOOD} {PIGEON} {SECOND}")
    assert [s.release for s in sentences] == [Release.RELEASED, Release.WITHHELD, Release.RELEASED]
    assert [s.delta for s in sentences] == [GOOD, "", f" {SECOND}"]
    assert result.released == [0, 2] and result.withheld == [1]
    assert result.first_release_s is not None and result.notice is None


async def test_a_blocking_failure_stops_the_stream_and_names_it_without_quoting() -> None:
    sentences, result = await run_stream(f"{GOOD} {WRONG} {SECOND}")
    assert [s.release for s in sentences] == [Release.RELEASED, Release.STOPPED]
    assert result.ended is StreamEnd.STOPPED and result.outcome == "refused"
    assert result.released_text == GOOD and result.stopped == 1
    assert result.notice is not None and "states a number" in result.notice
    assert "60" not in result.notice
    assert result.response.action is Action.BLOCK


async def test_a_regenerated_answer_refuses_and_names_the_failures() -> None:
    _, result = await run_stream(f"{PIGEON} Refunds arrive by carrier pigeon [S1].")
    assert result.outcome == "refused" and result.released_text == ""
    assert result.notice == (
        "No verified answer can be given: the reply failed verification against the evidence "
        "(2 statements are not supported by the evidence)."
    )


async def test_a_failed_conclusion_can_only_add_a_notice() -> None:
    def script(request: dict[str, Any]) -> Any:
        schema = request.get("response_format", {}).get("json_schema", {}).get("name")
        if schema == "Conclusion":
            return conclusion_response("Every purchase is refunded in gold bars.")
        return rule_based_judge(request)

    sentences, result = await run_stream(f"{GOOD} {SECOND}", server=FakeJudgeServer(script))
    assert all(s.release is Release.RELEASED for s in sentences)
    assert result.response.action is Action.REGENERATE
    assert result.outcome == "partial" and result.released_text == f"{GOOD} {SECOND}"
    assert result.notice is not None and "conclusion" in result.notice


async def test_a_generator_fault_mid_stream_ends_it_closed() -> None:
    sentences, result = await run_stream(chunks_of(f"{GOOD} {SECOND}", fail_after=20))
    assert result.ended is StreamEnd.GENERATOR_FAULT and result.outcome == "verifier_error"
    assert result.response.action is Action.BLOCK
    assert "ConnectionResetError" in (result.stop_reason or "")
    assert "SECOND" not in result.released_text and SECOND not in result.released_text
    assert all(s.release is Release.RELEASED for s in sentences)


async def test_text_that_is_not_a_string_is_a_fault() -> None:
    async def objects() -> AsyncIterator[Any]:
        yield GOOD
        yield 42

    _, result = await run_stream(objects())
    assert result.ended is StreamEnd.GENERATOR_FAULT and "not text" in (result.stop_reason or "")


async def test_the_answer_limit_stops_the_stream() -> None:
    settings = fake_settings(max_answer_chars=120)
    sentences, result = await run_stream(f"{GOOD} {SECOND} {GOOD}", settings)
    assert result.ended is StreamEnd.LIMIT and result.outcome == "refused"
    assert result.response.limits_exceeded and result.response.action is Action.BLOCK
    assert [s.release for s in sentences] == [Release.RELEASED]


async def test_the_claim_limit_stops_the_stream() -> None:
    settings = fake_settings(max_claims=2)
    _, result = await run_stream(f"{GOOD} {SECOND} {GOOD}", settings)
    assert result.ended is StreamEnd.LIMIT
    assert "claims" in result.response.limits_exceeded[0]


async def test_markup_that_hides_text_stops_the_stream() -> None:
    hidden = "Shipping fees are <del>not</del> refunded [S2]."
    sentences, result = await run_stream(f"{GOOD} {hidden}")
    assert sentences[-1].release is Release.STOPPED
    assert result.response.action is Action.BLOCK and "del" not in result.released_text


class HeldJudge:
    """Answers the first claim at once; holds every later one until cancelled."""

    model_id = "held"

    def __init__(self) -> None:
        self.calls = 0
        self.cancelled = 0
        self.holding = asyncio.Event()

    async def entail(
        self, claim: Claim, premise: Premise, question: str | None = None
    ) -> EntailmentResult:
        self.calls += 1
        if self.calls > 1:
            self.holding.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                self.cancelled += 1
                raise
        return EntailmentResult(
            label="supported",
            reason="held judge",
            p_supported=0.9,
            p_contradicted=None,
            evidence_quote=None,
            evidence_ids=[piece.passage_id for piece in premise.pieces],
            trace=JudgeTrace(model="held", template="held", template_hash="held", calls=1),
        )


async def test_closing_the_stream_cancels_pending_judge_calls_and_the_source() -> None:
    judge = HeldJudge()
    closed = asyncio.Event()

    async def source() -> AsyncIterator[str]:
        try:
            for piece in tokens(f"{GOOD} {SECOND} {GOOD}"):
                await asyncio.sleep(0)
                yield piece
            await asyncio.Event().wait()  # a generator that never finishes
        finally:
            closed.set()

    verification = StreamVerification(
        evidence_passages(EVIDENCE), fake_settings(), judge=judge, question=QUESTION
    )
    events = verification.events(source())
    first = await anext(events)
    assert isinstance(first, StreamedSentence) and first.release is Release.RELEASED
    await judge.holding.wait()
    await events.aclose()
    assert closed.is_set()
    assert judge.cancelled >= 1
    abandoned = await verification.abandoned("the reader went away")
    assert abandoned.ended is StreamEnd.ABANDONED and abandoned.outcome == "verifier_error"
    assert abandoned.released == [0] and abandoned.response.action is Action.BLOCK


async def test_a_sentence_not_judged_in_time_is_a_verifier_error() -> None:
    limits = StreamLimits(sentence_timeout_s=0.05)
    sentences, result = await run_stream(f"{GOOD} {SECOND}", judge=HeldJudge(), limits=limits)
    assert [s.release for s in sentences] == [Release.RELEASED, Release.STOPPED]
    assert sentences[1].verdicts[0].label is Label.VERIFIER_ERROR
    assert result.outcome == "verifier_error"


async def test_a_slow_reader_holds_the_source_back() -> None:
    pulled = 0
    text = " ".join([SECOND] * 20)

    async def source() -> AsyncIterator[str]:
        nonlocal pulled
        for piece in tokens(text):
            pulled += 1
            await asyncio.sleep(0)
            yield piece

    settings = fake_settings()
    verification = StreamVerification(
        evidence_passages(EVIDENCE),
        settings,
        judge=FakeJudgeServer().judge(settings),
        limits=StreamLimits(max_pending_sentences=2),
    )
    events = verification.events(source())
    await anext(events)
    for _ in range(500):  # let the reader run as far as it may
        await asyncio.sleep(0)
    per_sentence = len(tokens(SECOND))
    assert pulled <= per_sentence * 4 < len(tokens(text))
    rest: Sequence[Any] = [event async for event in events]
    assert isinstance(rest[-1], StreamResult) and rest[-1].outcome == "passed"
    assert pulled == len(tokens(text))
