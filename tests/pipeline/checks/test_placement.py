import pytest

from judge.pipeline.checks import NumberPlacementCheck, default_checks
from judge.schemas import CheckStatus, Label

CHECK = NumberPlacementCheck()
POLICY = (
    "Customers may return any unopened item within 30 days of delivery for a full refund. "
    "Opened items can be returned within 14 days of delivery and receive store credit only. "
    "Refunds are issued within 5 to 7 business days."
)
HALLS = " The main hall seats 300 people. The small hall seats 80 people and 12 staff."


@pytest.mark.parametrize(
    ("claim", "moved", "instead"),
    [
        ("Opened items can be returned within 30 days for store credit.", "30 days", "14 days"),
        ("Unopened items can be returned within 14 days for a full refund.", "14 days", "30 days"),
        ("The main hall seats 80 people.", "80", "300"),
    ],
)
def test_a_number_moved_to_another_fact_of_the_passage_fails(
    claim: str, moved: str, instead: str
) -> None:
    outcome = CHECK(claim, POLICY + HALLS)
    assert outcome is not None
    assert outcome.status is CheckStatus.FAILED and outcome.label is Label.NUMBER_MISMATCH
    assert outcome.missing == (moved,)
    assert f"{moved!r} where the sentence that restates the claim gives {instead!r}" in (
        outcome.detail
    )


@pytest.mark.parametrize(
    "claim",
    [
        "Opened items can be returned within 14 days for store credit.",
        "Unopened items can be returned within 30 days for a full refund.",
        # Both restating sentences are read: the number is in one of them.
        "Items can be returned within 30 days of delivery.",
        # A count is compared only with counts of the same thing: 40 volunteers is no 300 people.
        "The main hall seats 300 people and 40 volunteers.",
    ],
)
def test_a_number_where_the_evidence_puts_it_passes(claim: str) -> None:
    outcome = CHECK(claim, POLICY + HALLS)
    assert outcome is not None and outcome.status is CheckStatus.PASSED, outcome


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # No evidence sentence restates the claim: left to the judge.
        ("The warehouse ships within 30 days.", POLICY),
        # A bare number that counts nothing named is not read.
        ("Opened items can be returned, 30 in all.", POLICY),
        # No number with a unit.
        ("Opened items can be returned for store credit.", POLICY),
    ],
)
def test_claims_it_cannot_place_are_left_alone(claim: str, evidence: str) -> None:
    assert CHECK(claim, evidence) is None


def test_the_default_checks_place_numbers_after_finding_them() -> None:
    names = [check.name for check in default_checks()]
    assert names.index("numbers") < names.index("number_placement") < names.index("polarity")
