"""Judging one claim over its evidence windows through the HTTP judge."""

from __future__ import annotations

from typing import Any

import pytest

from judge.entail import judge_claim
from judge.errors import JudgeUnavailable
from judge.schemas import Claim, Label, Passage
from judge.windows import build_premises
from tests.fakes import FakeJudgeServer, fenced, http_error, rule_based_judge, verdict_response

FILLER = " ".join(f"Section {i} describes the packaging rules for region {i}." for i in range(60))
KEY_FACT = "Express orders ship within 2 business days."
LONG = Passage(id="L1", text=f"{FILLER} {KEY_FACT} {FILLER}")
CLAIM = Claim(id="c1", text="Express orders ship within 2 business days.", citations=("L1",))


def _windows() -> list[Any]:
    premises = build_premises([LONG], window_tokens=200, overlap_tokens=30)
    assert len(premises) > 3
    return premises


async def test_supported_in_one_window_is_supported_with_exact_span() -> None:
    premises = _windows()
    fake = FakeJudgeServer()
    judgement = await judge_claim(fake.judge(), CLAIM, premises, None, 0.5, 0.5)
    assert judgement.label is Label.SUPPORTED
    window = premises[judgement.window]
    assert KEY_FACT in window.text
    assert judgement.trace.window == judgement.window
    assert judgement.trace.calls == len(premises) == len(fake.requests)
    assert judgement.p_supported == pytest.approx(0.9)
    (span,) = judgement.evidence
    assert span.passage_id == "L1"
    assert LONG.text[span.start : span.end] == KEY_FACT == span.text


async def test_contradiction_in_any_window_wins_and_stops() -> None:
    premises = _windows()
    calls = {"n": 0}

    def script(request: dict[str, Any]) -> Any:
        calls["n"] += 1
        evidence = fenced(request)["EVIDENCE"]
        if "region 5." in evidence:
            quote = "Section 5 describes the packaging rules for region 5."
            return verdict_response(
                "contradicted",
                quote=quote,
                ids=["L1"],
                scores={"supported": 0.1, "unsupported": 0.1, "contradicted": 0.8},
            )
        return rule_based_judge(request)

    judgement = await judge_claim(FakeJudgeServer(script).judge(), CLAIM, premises, None, 0.5, 0.5)
    assert judgement.label is Label.CONTRADICTED
    assert judgement.window == 0
    assert calls["n"] == 1
    assert judgement.p_contradicted == pytest.approx(0.8)
    (span,) = judgement.evidence
    assert LONG.text[span.start : span.end] == span.text


async def test_unsupported_everywhere_is_unsupported() -> None:
    claim = Claim(id="c2", text="Gift cards never expire.", citations=("L1",))
    premises = _windows()
    judgement = await judge_claim(FakeJudgeServer().judge(), claim, premises, None, 0.5, 0.5)
    assert judgement.label is Label.UNSUPPORTED
    assert judgement.evidence == []
    assert len(judgement.results) == len(premises)


async def test_a_fault_in_any_window_propagates() -> None:
    premises = _windows()
    fake = FakeJudgeServer([verdict_response("unsupported"), http_error(500)])
    with pytest.raises(JudgeUnavailable):
        await judge_claim(fake.judge(), CLAIM, premises, None, 0.5, 0.5)


async def test_multi_passage_claim_points_into_the_right_passage() -> None:
    s1 = Passage(id="S1", text="Opened items can be returned within 14 days.")
    s2 = Passage(id="S2", text="Shipping fees are refunded only when the item arrived damaged.")
    premises = build_premises([s1, s2], window_tokens=700, overlap_tokens=50)
    assert len(premises) == 1 and premises[0].passage_ids == ["S1", "S2"]
    claim = Claim(
        id="c3",
        text="Shipping fees are refunded only when the item arrived damaged.",
        citations=("S1", "S2"),
    )
    judgement = await judge_claim(FakeJudgeServer().judge(), claim, premises, "q", 0.5, 0.5)
    assert judgement.label is Label.SUPPORTED
    (span,) = judgement.evidence
    assert span.passage_id == "S2"
    assert (span.start, span.end) == (0, len(s2.text))


async def test_no_premise_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        await judge_claim(FakeJudgeServer().judge(), CLAIM, [], None, 0.5, 0.5)
