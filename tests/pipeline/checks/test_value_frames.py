"""Values read with what they are of: a value the evidence states of another fact does not
pass, even with a judge that says yes to everything; the same value restated in other words
does; every finding names the passage and the offsets of both spans."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from judge.pipeline.checks import ValueFrameCheck
from judge.pipeline.runner import verify
from judge.reading import read, syntax
from judge.reading.values.frames import Role, frames_in, sentence_of, values_of
from judge.schemas import Action, CheckStatus, Finding, Label
from tests.support.fake_judge import (
    FakeJudgeServer,
    fake_settings,
    requested_variant,
    verdict_response,
)

check = ValueFrameCheck()

MARGIN = (
    "Revenue grew 12% to $4.8 billion. The operating margin improved from 16.1% to 18.5%, and "
    "free cash flow reached $610 million."
)
NORTHWIND = (
    "Northwind Industries reported revenue of $35.1 billion for the third quarter of 2024, up "
    "8% from $32.5 billion in the third quarter of 2023."
)
EPS = (
    "Excluding special items, net income per diluted share was $1.42 for the fourth quarter "
    "of fiscal 2023. On a GAAP basis, net income per diluted share was $1.18 for the quarter."
)
PLANS = (
    "The Basic plan costs $12 per user per month and includes 100 GB of storage. The Premium "
    "plan costs $25 per user per month and includes 2 TB of storage."
)
SALES = "Sales rose 6% on a reported basis and 9% in constant currency, to EUR 12.3 billion."
INCOME = "Net income for the quarter was $2.1 billion, compared with $1.4 billion a year earlier."
RETURNS = (
    "Unopened items can be returned within 30 days. Opened items can be returned within 14 "
    "days and are charged a fee."
)


@pytest.mark.parametrize(
    ("claim", "evidence", "reason"),
    [
        # Another metric: 12% is the revenue growth, the margin rose 2.4 points.
        ("The operating margin improved by 12%.", MARGIN, "for that it gives '16.1%'"),
        # Another period.
        (
            "Northwind's revenue was $35.1 billion in the second quarter of 2024.",
            NORTHWIND,
            "for third quarter of 2024, not second quarter of 2024",
        ),
        # Another basis, fronted before the sentence's values.
        (
            "GAAP net income per diluted share was $1.42 for the fourth quarter of fiscal 2023.",
            EPS,
            "figure Excluding special items, not GAAP",
        ),
        ("Sales rose 9% on a reported basis.", SALES, "figure constant currency"),
        # Another tier.
        ("The Basic plan costs $25 per user per month.", PLANS, "for that it gives '$12'"),
        # A year earlier's figure for the sentence's own.
        ("Net income for the quarter was $1.4 billion.", INCOME, "for a year earlier"),
        # Another group of items.
        ("Opened items can be returned within 30 days.", RETURNS, "gives '14 days'"),
    ],
)
def test_a_value_stated_of_another_fact_is_contradicted(
    claim: str, evidence: str, reason: str
) -> None:
    outcome = check(claim, evidence)
    assert outcome is not None and outcome.status is CheckStatus.FAILED, outcome
    assert outcome.label is Label.CONTRADICTED
    assert outcome.finding is Finding.CONFLICT
    assert reason in outcome.detail


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("Northwind reported 3Q24 revenue of $35.1 billion.", NORTHWIND),
        (
            "Net income per diluted share excluding special items was $1.42 in Q4 FY2023.",
            EPS,
        ),
        ("Under GAAP, diluted earnings per share came to $1.18.", EPS),
        ("In constant currency, sales grew 9%.", SALES),
        ("The Premium plan, at $25 per user each month, comes with 2 TB of storage.", PLANS),
        ("A year earlier, net income for the quarter was $1.4 billion.", INCOME),
        ("Revenue grew 12 percent to $4.8 billion.", MARGIN),
        ("Unopened items can be returned within 30 days.", RETURNS),
    ],
)
def test_a_value_restated_of_its_own_fact_passes(claim: str, evidence: str) -> None:
    outcome = check(claim, evidence)
    assert outcome is None or outcome.status is CheckStatus.PASSED, outcome


def test_frames_read_period_basis_and_role_from_the_parse() -> None:
    reading = read(EPS + " " + SALES)
    frames = {
        f.value.text: f
        for v in values_of(reading)
        for f in frames_in(reading, sentence_of(reading, v.start))
    }
    assert frames["$1.42"].bases["adjustment"][0] == "adjusted"  # fronted: governs the value
    assert frames["$1.18"].bases["adjustment"][0] == "unadjusted"
    assert frames["$1.42"].period is not None and frames["$1.42"].period.fiscal
    assert frames["9%"].bases["currency"][0] == "constant"
    assert frames["6%"].bases["currency"][0] == "reported"
    assert frames["6%"].role is Role.CHANGE


def test_other_languages_are_skipped_with_the_reason() -> None:
    """English first: the value frames read English only, and say so elsewhere."""
    assert check.lexicon == ("frames", "bases")


def _yes_judge(body: dict[str, Any]) -> Any:
    return verdict_response(
        "supported", "the evidence says so", "", ["S1"], variant=requested_variant(body)
    )


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("The operating margin improved by 12%.", MARGIN),
        ("Northwind's revenue was $35.1 billion in the second quarter of 2024.", NORTHWIND),
        ("GAAP net income per diluted share was $1.42.", EPS),
        ("The Basic plan costs $25 per user per month.", PLANS),
        ("Sales rose 9% on a reported basis.", SALES),
    ],
)
async def test_with_a_judge_that_says_yes_a_value_of_another_fact_never_passes(
    claim: str, evidence: str
) -> None:
    request = {"evidence": [{"id": "S1", "text": evidence}], "answer": f"{claim[:-1]} [S1]."}
    fake = FakeJudgeServer(_yes_judge)
    settings = fake_settings(check_conclusion=False)
    response = await verify(request, settings, judge=fake.judge(settings))
    [verdict] = response.verdicts
    assert verdict.label not in {Label.SUPPORTED, Label.UNVERIFIED}
    assert verdict.finding is Finding.CONFLICT
    assert response.action is Action.BLOCK
    assert not fake.requests  # decided by a check: the judge was never asked


async def test_a_finding_names_the_passage_and_the_offsets_of_both_spans() -> None:
    second = "Revenue in the second quarter of 2024 was $33.4 billion."
    request = {
        "evidence": [{"id": "Q3", "text": NORTHWIND}, {"id": "Q2", "text": second}],
        "answer": "Northwind's revenue was $35.1 billion in the second quarter of 2024 [Q3][Q2].",
    }
    fake = FakeJudgeServer(_yes_judge)
    settings = fake_settings(check_conclusion=False)
    response = await verify(request, settings, judge=fake.judge(settings))
    [verdict] = response.verdicts
    [outcome] = [c for c in verdict.checks if c.check == "value_frames"]
    assert outcome.claim_span is not None and outcome.evidence_span is not None
    span = outcome.claim_span
    assert verdict.claim.text[span.start : span.end] == "$35.1 billion"
    found = outcome.evidence_span
    assert found.passage_id == "Q3"
    assert NORTHWIND[found.start : found.end] == found.text == "$35.1 billion"


async def test_a_parser_model_that_does_not_match_its_digests_fails_the_claim_closed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    digests = tmp_path / "digests.sha256"
    digests.write_text("0" * 64 + "  config.cfg\n", "utf-8")
    monkeypatch.setattr(syntax, "DIGESTS", digests)
    monkeypatch.setattr(syntax, "_loaded", [])
    syntax.parse.cache_clear()
    request = {
        "evidence": [{"id": "S1", "text": "Crestline shipped 7,312 units in the fourth quarter."}],
        "answer": "Crestline shipped 7,312 units in the fourth quarter [S1].",
    }
    fake = FakeJudgeServer(_yes_judge)
    settings = fake_settings(check_conclusion=False)
    response = await verify(request, settings, judge=fake.judge(settings))
    [verdict] = response.verdicts
    assert verdict.label is Label.VERIFIER_ERROR
    assert "parser model file changed" in (verdict.error or "")
    assert response.action is Action.BLOCK
