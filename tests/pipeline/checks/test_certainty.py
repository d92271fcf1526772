"""The certainty check: a claim that states as fact what the evidence clause restating it
hedges is ``hedge_added``; permission and ability ("may be returned", "can"), a claim that
hedges too, and negation are left alone."""

from __future__ import annotations

import pytest

from judge.pipeline.checks.certainty import CertaintyCheck
from judge.schemas import CheckStatus, Label

CHECK = CertaintyCheck()


@pytest.mark.parametrize(
    ("claim", "evidence", "hedge"),
    [
        ("The drug is effective.", "The drug may be effective.", "may be effective"),
        ("The drug reduces deaths in older patients.",
         "Early data suggest the drug reduces deaths in older patients.", "suggest"),
        ("Smoking is linked to cancer in adults.", "Smoking may be linked to cancer in adults.",
         "may be linked"),
        ("The storm caused damage on the coast.", "The storm could cause damage on the coast.",
         "could cause"),
        ("Masks cut transmission in schools.", "Masks probably cut transmission in schools.",
         "probably"),
        ("The virus spreads through the air.", "The virus appears to spread through the air.",
         "appears to"),
    ],
)  # fmt: skip
def test_a_hedged_finding_stated_as_fact_is_flagged(claim: str, evidence: str, hedge: str) -> None:
    outcome = CHECK(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.FAILED and outcome.label is Label.HEDGE_ADDED
    assert f"the evidence hedges ({hedge!r})" in outcome.detail
    assert outcome.evidence_sentence == evidence


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # Permission and ability are no hedges.
        ("Unopened items are returnable within 30 days.",
         "Unopened items may be returned within 30 days."),
        ("Members are allowed to cancel at any time.", "Members may cancel at any time."),
        # The claim hedges as well, in its own words.
        ("The drug may reduce deaths.", "The drug might reduce deaths."),
        ("The study indicates the drug reduces deaths.", "The study suggests the drug reduces "
         "deaths."),
        # A negation on one side is the polarity check's.
        ("The drug reduces deaths.", "The drug may not reduce deaths."),
        # The evidence states it plainly.
        ("The drug reduces deaths.", "The drug reduces deaths."),
        # The hedge is in another clause than the one restating the claim.
        ("The drug reduces deaths in older patients.",
         "The drug reduces deaths in older patients; it might also shorten stays."),
    ],
)  # fmt: skip
def test_permission_hedged_claims_and_plain_evidence_pass(claim: str, evidence: str) -> None:
    assert CHECK(claim, evidence) is None
