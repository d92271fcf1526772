"""Parties swapped: two names traded around the same words contradict the evidence, unless
the relation holds both ways or the evidence also states the claim's order."""

from __future__ import annotations

import pytest

from judge.pipeline.checks.polarity import PolarityCheck
from judge.pipeline.checks.polarity.role_swaps import parties_swapped
from judge.schemas import CheckStatus, Label

CHECK = PolarityCheck()


@pytest.mark.parametrize(
    ("claim", "evidence", "first", "second"),
    [
        ("Spain beat Italy in the final.", "Italy beat Spain in the final.", "Spain", "Italy"),
        ("Pfizer acquired Seagen for $43 billion.", "Seagen acquired Pfizer for $43 billion.",
         "Pfizer", "Seagen"),
        ("The court ruled that Apple owes Samsung damages.",
         "The court ruled that Samsung owes Apple damages.", "Apple", "Samsung"),
        ("Maria will bring Branwell from the station.",
         "Branwell will bring Maria from the station.", "Maria", "Branwell"),
    ],
)  # fmt: skip
def test_names_traded_around_the_same_words_are_contradicted(
    claim: str, evidence: str, first: str, second: str
) -> None:
    outcome = CHECK(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.FAILED and outcome.label is Label.CONTRADICTED
    assert f"the claim says {first} " in outcome.detail and f" {second}, the evidence" in (
        outcome.detail
    )
    assert outcome.evidence_sentence == evidence


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # Relations that hold both ways round.
        ("Spain met Italy in the final.", "Italy met Spain in the final."),
        ("Germany borders France to the east.", "France borders Germany to the east."),
        ("Spain and Italy signed the treaty.", "Italy and Spain signed the treaty."),
        # The evidence states the claim's order too.
        ("Spain beat Italy in 1990.", "Italy beat Spain in 2000. Spain beat Italy in 1990."),
        # Said the other way round in other words: the judge's to read.
        ("Pfizer acquired Seagen.", "Seagen was acquired by Pfizer."),
        # The same order.
        ("Spain beat Italy in the final.", "Spain beat Italy in the final."),
    ],
)
def test_symmetric_relations_and_orders_the_evidence_states_pass(claim: str, evidence: str) -> None:
    outcome = CHECK(claim, evidence)
    assert outcome is None or outcome.status is CheckStatus.PASSED, outcome.detail


def test_a_long_stretch_between_two_names_is_no_relation() -> None:
    claim = "Acme said on Monday that after months of talks it would not sue Brightline."
    evidence = "Brightline said on Monday that after months of talks it would not sue Acme."
    assert parties_swapped(claim, evidence, evidence) is None
