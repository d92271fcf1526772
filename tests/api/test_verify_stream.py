"""``Verifier.verify_stream``: any async iterator of text chunks, as LLM SDKs stream them."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import pytest

import judge
from tests.support.fake_judge import FakeJudgeServer, fake_settings
from tests.support.fake_stream import tokens

EVIDENCE = [
    "Customers may return any unopened item within 30 days of delivery for a full refund.",
    "Refunds are issued to the original payment method within 5 to 7 business days.",
]
GOOD = "Customers may return any unopened item within 30 days of delivery for a full refund [S1]."
SECOND = "Refunds are issued to the original payment method within 5 to 7 business days [S2]."
PIGEON = "Refund requests are also accepted by carrier pigeon [S2]."


def openai_chunk(text: str | None) -> Any:
    """The shape of an openai ``ChatCompletionChunk``: choices[0].delta.content."""
    return SimpleNamespace(choices=[SimpleNamespace(delta=SimpleNamespace(content=text))])


async def source(text: str, wrap: Any = str) -> AsyncIterator[Any]:
    yield wrap(None) if wrap is openai_chunk else wrap("")  # a role chunk: no text
    for piece in tokens(text):
        await asyncio.sleep(0)
        yield wrap(piece)


def verifier() -> judge.Verifier:
    settings = fake_settings()
    return judge.Verifier(settings, judge=FakeJudgeServer().judge(settings))


@pytest.mark.parametrize(
    "wrap", [str, openai_chunk, lambda text: SimpleNamespace(content=text or "")]
)
async def test_sentences_come_as_they_are_decided_then_the_result(wrap: Any) -> None:
    events = []
    async with verifier() as checker:
        async for event in checker.verify_stream(
            source(f"{GOOD} {PIGEON} {SECOND}", wrap),
            evidence=EVIDENCE,
            question="How do refunds work?",
        ):
            events.append(event)
    *decided, result = events
    sentences = [e for e in decided if isinstance(e, judge.StreamedSentence)]
    assert len(sentences) == len(decided) == 3
    assert [s.release for s in sentences] == [
        judge.Release.RELEASED, judge.Release.WITHHELD, judge.Release.RELEASED
    ]  # fmt: skip
    assert [v.label.value for s in sentences for v in s.verdicts] == [
        "supported", "unsupported", "supported"
    ]  # fmt: skip
    assert isinstance(result, judge.StreamResult)
    assert result.outcome == "repaired" and result.released_text == f"{GOOD} {SECOND}"
    assert result.response.action is judge.Action.REPAIR


async def test_bad_evidence_raises_before_any_chunk_is_read() -> None:
    read = False

    async def chunks() -> AsyncIterator[str]:
        nonlocal read
        read = True
        yield GOOD

    async with verifier() as checker:
        with pytest.raises(judge.InputError) as caught:
            async for _ in checker.verify_stream(chunks(), evidence=["fine", {"id": "S2"}]):
                pass
    assert caught.value.field == "evidence[1].text" and not read


async def test_without_a_judge_claims_stop_the_stream_unverified() -> None:
    async with judge.Verifier(fake_settings(), use_judge=False) as checker:
        events = [e async for e in checker.verify_stream(source(GOOD), evidence=EVIDENCE)]
    result = events[-1]
    assert isinstance(result, judge.StreamResult)
    assert result.outcome == "refused" and result.released_text == ""
    assert result.response.verdicts[0].label is judge.Label.UNVERIFIED
