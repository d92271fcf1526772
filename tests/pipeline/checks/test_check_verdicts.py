"""Verdicts the exact checks decide inside the pipeline: a judge that says yes to everything
cannot pass the refund example's shipping-fee claim (the polarity check reads "non-refundable"
against "refunded" before the judge is asked), and each check-decided verdict points at the
evidence sentence the check read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judge.pipeline.entail.windows import build_premises
from judge.pipeline.runner import verify
from judge.schemas import Action, Claim, EvidenceSpan, Label, Passage
from tests.support.fake_judge import (
    FakeJudgeServer,
    fake_settings,
    fenced,
    requested_variant,
    rule_based_judge,
    verdict_response,
)

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _yes_to_shipping(body: dict[str, Any]) -> Any:
    if "Shipping fees" not in fenced(body).get("CLAIM", ""):
        return rule_based_judge(body)
    return verdict_response(
        "supported",
        "the evidence mentions shipping fees",
        "Shipping fees are non-refundable, except when the item arrived damaged.",
        ["S2"],
        variant=requested_variant(body),
        scores={"supported": 0.97, "unsupported": 0.02, "contradicted": 0.01},
    )


async def test_shipping_fee_claim_is_contradicted_even_when_the_judge_says_yes() -> None:
    request = json.loads((EXAMPLES / "refund_policy.json").read_text("utf-8"))
    fake = FakeJudgeServer(_yes_to_shipping)
    settings = fake_settings(check_conclusion=False)
    response = await verify(request, settings, judge=fake.judge(settings))
    shipping = next(v for v in response.verdicts if v.claim.text.startswith("Shipping fees"))
    assert shipping.label is Label.CONTRADICTED
    assert any(c.check == "polarity" and c.label is Label.CONTRADICTED for c in shipping.checks)
    assert response.action is Action.BLOCK
    # Decided by the check: the claim never reached the judge.
    assert not any("Shipping fees" in fenced(r).get("CLAIM", "") for r in fake.requests)
    # It points at the passage sentence it was read against, by offsets into that passage.
    passages = {p["id"]: p["text"] for p in request["evidence"]}
    [pointer] = shipping.evidence
    assert pointer.passage_id == "S2"
    assert passages["S2"][pointer.start : pointer.end] == pointer.text
    assert pointer.text == "Shipping fees are non-refundable, except when the item arrived damaged."


async def _blocked_pointer(evidence: dict[str, str], answer: str, label: Label) -> EvidenceSpan:
    """The one claim of ``answer``, verified against ``evidence`` (id -> text) with the
    rule-based judge: it must come out ``label`` and block; its one pointer, checked against
    its passage's text, is returned."""
    request: dict[str, Any] = {
        "evidence": [{"id": pid, "text": text} for pid, text in evidence.items()],
        "answer": answer,
    }
    fake = FakeJudgeServer(rule_based_judge)
    settings = fake_settings(check_conclusion=False)
    response = await verify(request, settings, judge=fake.judge(settings))
    [verdict] = response.verdicts
    assert verdict.label is label
    assert response.action is Action.BLOCK
    [pointer] = verdict.evidence
    passage = evidence[pointer.passage_id]
    assert passage[pointer.start : pointer.end] == pointer.text
    return pointer


async def test_a_swapped_name_points_at_the_sentence_that_names_another() -> None:
    text = (
        "Revenue rose 8%. Its largest customer, Nordvik Energy, accounted for 14% of revenue. "
        "The yard delivered four vessels."
    )
    answer = "Halvard Shipping accounted for 14% of revenue [F3]."
    pointer = await _blocked_pointer({"F3": text}, answer, Label.NAME_MISMATCH)
    assert pointer.text == "Its largest customer, Nordvik Energy, accounted for 14% of revenue."


async def test_a_name_moved_from_another_cited_passage_points_where_it_does_not_belong() -> None:
    evidence = {
        "R2": "Return labels are free for members of the Plus programme.",
        "R3": "Gift cards cannot be exchanged for cash. Store credit from returns does not "
        "expire and can be used in any Brightline store.",
    }
    answer = "Store credit can be used in any Plus store [R3, R2]."
    pointer = await _blocked_pointer(evidence, answer, Label.NAME_MISMATCH)
    assert pointer.passage_id == "R3"
    assert pointer.text.startswith("Store credit from returns") and "Brightline" in pointer.text


async def test_a_moved_number_points_at_the_sentence_that_gives_the_fact_its_value() -> None:
    text = (
        "Unopened items can be returned within 30 days. Opened items can be returned within "
        "14 days and are charged a fee."
    )
    answer = "Opened items can be returned within 30 days [S1]."
    pointer = await _blocked_pointer({"S1": text}, answer, Label.CONTRADICTED)
    assert pointer.text == "Opened items can be returned within 14 days and are charged a fee."


async def test_without_the_polarity_check_the_yes_judge_would_pass_it() -> None:
    """The same judge, asked about the claim directly: it says supported, so the check is what
    stops the claim (this test fails if the fake stops saying yes)."""
    request = json.loads((EXAMPLES / "refund_policy.json").read_text("utf-8"))
    request["answer"] = "Shipping fees are refunded as well [S2]."
    fake = FakeJudgeServer(_yes_to_shipping)
    settings = fake_settings(check_conclusion=False)
    judge = fake.judge(settings)
    claim = Claim(id="c1", text="Shipping fees are refunded as well.", citations=("S2",))
    premise = build_premises(
        [Passage(id="S2", text=request["evidence"][1]["text"])], window_tokens=700, overlap_tokens=0
    )[0]
    result = await judge.entail(claim, premise)
    assert result.label == "supported"


async def test_a_fault_finding_the_pointer_fails_the_claim_closed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(sentence: str, passages: object) -> list[object]:
        raise RuntimeError("index gone")

    monkeypatch.setattr("judge.pipeline.checks.runner.check_pointer", broken)
    request = json.loads((EXAMPLES / "refund_policy.json").read_text("utf-8"))
    fake = FakeJudgeServer(rule_based_judge)
    settings = fake_settings(check_conclusion=False)
    response = await verify(request, settings, judge=fake.judge(settings))
    shipping = next(v for v in response.verdicts if v.claim.text.startswith("Shipping fees"))
    assert shipping.label is Label.VERIFIER_ERROR
    assert shipping.error is not None and "index gone" in shipping.error
    assert response.action is Action.BLOCK
