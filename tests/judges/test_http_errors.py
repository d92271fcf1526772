"""Every failure of the judge raises the right VerifierFault and never becomes a label."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from judge.errors import JudgeOutputInvalid, JudgeUnavailable, VerifierFault
from judge.judges.cache import VerdictCache
from judge.pipeline.entail.windows import build_premises
from judge.schemas import Claim, Passage
from tests.support.fake_judge import (
    FakeJudgeServer,
    chat_completion,
    connection_refused,
    fake_settings,
    http_error,
    invalid_json_response,
    read_timeout,
    truncated_response,
    verdict_json,
    verdict_response,
)

EVIDENCE = "Refunds are issued within 5 to 7 business days. Shipping fees are non-refundable."
QUOTE = "Refunds are issued within 5 to 7 business days."
PREMISE = build_premises([Passage(id="S2", text=EVIDENCE)], window_tokens=700, overlap_tokens=0)[0]
CLAIM = Claim(id="c1", text="Refunds take 5 to 7 business days.", citations=("S2",))


async def _entail(fake: FakeJudgeServer, **settings: Any) -> None:
    judge = fake.judge(fake_settings(**settings))
    await judge.entail(CLAIM, PREMISE)


async def test_refused_connection_is_unavailable_at_once() -> None:
    fake = FakeJudgeServer([connection_refused()])
    with pytest.raises(JudgeUnavailable, match="connect"):
        await _entail(fake, http_retries=2, reasks=2)
    assert len(fake.requests) == 1


async def test_timeout_is_unavailable_at_once() -> None:
    fake = FakeJudgeServer([read_timeout()])
    with pytest.raises(JudgeUnavailable, match="timed out"):
        await _entail(fake, http_retries=2, reasks=2)
    assert len(fake.requests) == 1


async def test_refused_connection_through_a_plain_client_is_unavailable() -> None:
    fake = FakeJudgeServer([connection_refused()])
    judge = fake.judge(fake_settings(http_retries=0), fail_fast=False)
    with pytest.raises(JudgeUnavailable):
        await judge.entail(CLAIM, PREMISE)
    assert len(fake.requests) == 1


async def test_server_error_is_retried_by_the_http_layer_only() -> None:
    # Two retry layers must not multiply: 1 + http_retries requests, never re-asked.
    fake = FakeJudgeServer([http_error(500)] * 3)
    with pytest.raises(JudgeUnavailable, match="HTTP 500"):
        await _entail(fake, http_retries=1, reasks=2)
    assert len(fake.requests) == 2


async def test_server_error_then_success_passes() -> None:
    fake = FakeJudgeServer([http_error(503), verdict_response("supported", quote=QUOTE)])
    judge = fake.judge(fake_settings(http_retries=1))
    result = await judge.entail(CLAIM, PREMISE)
    assert result.label == "supported"
    assert len(fake.requests) == 2


@pytest.mark.parametrize("status", [400, 401, 404, 422])
async def test_client_errors_are_unavailable_without_retry(status: int) -> None:
    fake = FakeJudgeServer([http_error(status, "nope")] * 3)
    with pytest.raises(JudgeUnavailable, match=f"HTTP {status}"):
        await _entail(fake, http_retries=2, reasks=2)
    assert len(fake.requests) == 1


async def test_invalid_json_is_reasked_then_invalid() -> None:
    fake = FakeJudgeServer([invalid_json_response()] * 3)
    with pytest.raises(JudgeOutputInvalid, match="after 3 attempt"):
        await _entail(fake, reasks=2)
    assert len(fake.requests) == 3
    # A re-ask repeats the conversation with the bad answer and the error.
    reask = fake.requests[1]["messages"]
    assert [m["role"] for m in reask] == ["system", "user", "assistant", "user"]
    assert reask[:2] == fake.requests[0]["messages"]
    assert "Correct your JSON" in reask[3]["content"]


async def test_invalid_then_valid_counts_both_calls_and_tokens() -> None:
    fake = FakeJudgeServer([invalid_json_response(), verdict_response("supported", quote=QUOTE)])
    judge = fake.judge(fake_settings(reasks=1))
    result = await judge.entail(CLAIM, PREMISE)
    assert result.label == "supported"
    assert result.trace.calls == 2
    assert result.trace.prompt_tokens == 240 and result.trace.completion_tokens == 60
    assert judge.usage.calls == 2


async def test_no_reasks_means_one_attempt() -> None:
    fake = FakeJudgeServer([invalid_json_response()] * 2)
    with pytest.raises(JudgeOutputInvalid):
        await _entail(fake, reasks=0)
    assert len(fake.requests) == 1


async def test_truncated_output_is_invalid_and_not_reasked() -> None:
    fake = FakeJudgeServer([truncated_response()] * 3)
    with pytest.raises(JudgeOutputInvalid, match="truncated"):
        await _entail(fake, reasks=2)
    assert len(fake.requests) == 1


async def test_valid_json_cut_by_length_is_still_invalid() -> None:
    # finish_reason=length fails even when the text happens to parse.
    fake = FakeJudgeServer([verdict_response("supported", quote=QUOTE, finish_reason="length")])
    with pytest.raises(JudgeOutputInvalid, match="truncated"):
        await _entail(fake)


def _content(obj: dict[str, Any]) -> dict[str, Any]:
    return chat_completion(json.dumps(obj))


BAD_OUTPUTS = {
    "label outside the schema": _content(
        {"label": "mostly_supported", "reason": "r", "evidence_quote": QUOTE, "evidence_ids": []}
    ),
    "missing field": _content({"label": "supported", "reason": "r", "evidence_quote": QUOTE}),
    "extra field": _content(
        {
            "label": "supported",
            "reason": "r",
            "evidence_quote": QUOTE,
            "evidence_ids": [],
            "confidence": 0.99,
        }
    ),
    "quote not in evidence": chat_completion(
        verdict_json("supported", quote="Refunds are issued within 2 business days.", ids=["S2"])
    ),
    "unknown evidence id": chat_completion(verdict_json("supported", quote=QUOTE, ids=["S9"])),
    "supported without a quote": chat_completion(verdict_json("supported", quote="", ids=[])),
    "contradicted without a quote": chat_completion(verdict_json("contradicted", quote="")),
    "reason too long": chat_completion(verdict_json("unsupported", reason="x" * 301)),
    "not an object": chat_completion('["supported"]'),
    "empty content": chat_completion(""),
}


@pytest.mark.parametrize("case", sorted(BAD_OUTPUTS))
async def test_out_of_schema_output_is_invalid_after_reasks(case: str) -> None:
    fake = FakeJudgeServer([BAD_OUTPUTS[case]] * 2)
    with pytest.raises(JudgeOutputInvalid):
        await _entail(fake, reasks=1)
    assert len(fake.requests) == 2


async def test_quote_matching_tolerates_whitespace_and_curly_quotes() -> None:
    passage = Passage(id="S1", text='The policy says "no refunds"\n  after   30 days.')
    premise = build_premises([passage], window_tokens=700, overlap_tokens=0)[0]
    quote = "The policy says “no refunds” after 30 days."
    fake = FakeJudgeServer([verdict_response("supported", quote=quote, ids=["[S1]"])])
    result = await fake.judge().entail(CLAIM, premise)
    assert result.label == "supported"
    assert result.evidence_ids == ["S1"]


async def test_errors_are_never_cached(tmp_path: Any) -> None:
    cache = VerdictCache(tmp_path / "cache")
    fake = FakeJudgeServer(
        [invalid_json_response(), http_error(500), verdict_response("supported", quote=QUOTE)]
    )
    judge = fake.judge(fake_settings(reasks=0), cache=cache)
    with pytest.raises(JudgeOutputInvalid):
        await judge.entail(CLAIM, PREMISE)
    with pytest.raises(JudgeUnavailable):
        await judge.entail(CLAIM, PREMISE)
    result = await judge.entail(CLAIM, PREMISE)
    assert result.label == "supported" and not result.trace.cached
    assert len(fake.requests) == 3


@pytest.mark.parametrize(
    "body",
    [
        httpx.Response(200, text="<html>busy</html>"),
        httpx.Response(200, json={"unexpected": True}),
        httpx.Response(200, json={"choices": []}),
        httpx.Response(200, content=b"{broken", headers={"content-type": "application/json"}),
    ],
    ids=["html", "no-choices-key", "empty-choices", "broken-json-body"],
)
async def test_malformed_response_bodies_are_invalid_output(body: httpx.Response) -> None:
    fake = FakeJudgeServer([body] * 2)
    with pytest.raises(JudgeOutputInvalid):
        await _entail(fake)


async def test_faults_share_one_base_class() -> None:
    fake = FakeJudgeServer([httpx.Response(502, text="bad gateway")])
    with pytest.raises(VerifierFault):
        await _entail(fake)
