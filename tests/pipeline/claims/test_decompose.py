"""Decomposition into atomic facts and main-conclusion extraction through the HTTP judge."""

from __future__ import annotations

import json

import pytest

from judge.errors import JudgeOutputInvalid, JudgeUnavailable
from judge.pipeline.claims.decompose import Conclusion, Facts, facts_to_claims
from judge.schemas import CharSpan, Claim, ClaimOrigin
from tests.support.fake_judge import (
    FakeJudgeServer,
    chat_completion,
    conclusion_response,
    connection_refused,
    facts_response,
    fenced,
    invalid_json_response,
    truncated_response,
)

SENTENCE = "It can be returned within 30 days and refunds take a week [S1]."
CONTEXT = "The blender comes with a warranty."
QUESTION = "Can I return my blender?"


async def test_decompose_sends_fenced_context_and_returns_facts() -> None:
    facts = ["The blender can be returned within 30 days.", "Refunds take a week."]
    fake = FakeJudgeServer([facts_response(facts)])
    judge = fake.judge()
    assert await judge.decompose(SENTENCE, CONTEXT, QUESTION) == facts

    (request,) = fake.requests
    assert request["response_format"]["json_schema"]["name"] == "Facts"
    assert request["response_format"]["json_schema"]["schema"] == Facts.model_json_schema()
    assert "logprobs" not in request
    assert request["max_tokens"] == 256
    assert [m["role"] for m in request["messages"]] == ["system", "user"]
    assert "data, never instructions" in request["messages"][0]["content"]
    blocks = fenced(request)
    assert blocks == {"QUESTION": QUESTION, "PRECEDING": CONTEXT, "SENTENCE": SENTENCE}
    user = request["messages"][1]["content"]
    assert user.index("QUESTION") < user.index("PRECEDING") < user.index("SENTENCE")
    assert judge.usage.calls == 1


async def test_decompose_without_context_or_question() -> None:
    fake = FakeJudgeServer([facts_response(["Refunds take a week."])])
    assert await fake.judge().decompose("Refunds take a week.", "", None) == [
        "Refunds take a week."
    ]
    assert set(fenced(fake.requests[0])) == {"SENTENCE"}


async def test_repeated_facts_are_kept_once() -> None:
    fake = FakeJudgeServer([facts_response(["A is B.", " A is B. ", "C is D."])])
    assert await fake.judge().decompose("A is B and C is D.", "", None) == ["A is B.", "C is D."]


@pytest.mark.parametrize(
    "answer",
    [
        facts_response([]),
        facts_response([f"Fact {i}." for i in range(9)]),
        facts_response(["x" * 301]),
        facts_response(["   "]),
        chat_completion(json.dumps({"facts": ["A."], "notes": "extra"})),
        chat_completion(json.dumps(["A.", "B."])),
        invalid_json_response(),
    ],
    ids=["none", "nine", "too-long", "blank", "extra-field", "bare-list", "invalid-json"],
)
async def test_invalid_decomposition_is_output_invalid(answer: dict[str, object]) -> None:
    fake = FakeJudgeServer([answer] * 2)
    with pytest.raises(JudgeOutputInvalid):
        await fake.judge().decompose(SENTENCE, CONTEXT, QUESTION)
    assert len(fake.requests) == 2


async def test_truncated_decomposition_is_output_invalid() -> None:
    fake = FakeJudgeServer([truncated_response()])
    with pytest.raises(JudgeOutputInvalid, match="truncated"):
        await fake.judge().decompose(SENTENCE, CONTEXT, QUESTION)


async def test_unreachable_decomposer_is_unavailable() -> None:
    fake = FakeJudgeServer([connection_refused()])
    with pytest.raises(JudgeUnavailable):
        await fake.judge().decompose(SENTENCE, CONTEXT, QUESTION)


async def test_rule_based_fake_decomposes_on_and() -> None:
    facts = await FakeJudgeServer().judge().decompose(SENTENCE, CONTEXT, QUESTION)
    assert facts == ["It can be returned within 30 days.", "refunds take a week."]


async def test_main_conclusion() -> None:
    answer = "Unopened items can be returned within 30 days [S1]. So you can get a refund [S1]."
    fake = FakeJudgeServer([conclusion_response("You can get a refund for an unopened item.")])
    text = await fake.judge().main_conclusion(answer, QUESTION)
    assert text == "You can get a refund for an unopened item."
    (request,) = fake.requests
    assert request["response_format"]["json_schema"]["schema"] == Conclusion.model_json_schema()
    assert fenced(request) == {"QUESTION": QUESTION, "ANSWER": answer}


@pytest.mark.parametrize("bad", [conclusion_response(""), conclusion_response("x" * 501)])
async def test_invalid_conclusion_is_output_invalid(bad: dict[str, object]) -> None:
    fake = FakeJudgeServer([bad] * 2)
    with pytest.raises(JudgeOutputInvalid):
        await fake.judge().main_conclusion("An answer.", None)


def test_facts_become_decomposed_claims_of_the_sentence() -> None:
    parent = Claim(
        id="s2",
        text=SENTENCE,
        span=CharSpan(start=40, end=104),
        sentence_index=1,
        citations=("S1",),
    )
    claims = facts_to_claims(parent, ["A.", "B."])
    assert [c.id for c in claims] == ["s2.1", "s2.2"]
    for claim in claims:
        assert claim.origin is ClaimOrigin.DECOMPOSED
        assert claim.parent_id == "s2"
        assert claim.span == parent.span and claim.citations == ("S1",)
        assert claim.sentence_index == 1
