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


RELEASE = (
    "Python 3.9 is no longer supported; Tessera now requires Python 3.10 or later. "
    "The default request timeout changed from 30 to 60 seconds."
)
COLLAPSE = (
    "The mine collapsed on Wednesday, killing at least two people and leaving more than 50 "
    "missing. Rescuers brought out three people, two of whom showed no signs of life."
)


@pytest.mark.parametrize(
    ("claim", "evidence", "moved", "instead"),
    [
        # Both versions are in the sentence; "requires" is said of the other one.
        ("Tessera now requires Python 3.9 or later.", RELEASE, "3.9", "3.10"),
        ("The default request timeout changed from 60 to 30 seconds.", RELEASE, "60", "30"),
        # "three people" is in the evidence, but not killed; the claim's other words differ
        # too much for any sentence to restate it.
    ],
)
def test_a_number_given_the_words_of_another_value_fails(
    claim: str, evidence: str, moved: str, instead: str
) -> None:
    outcome = CHECK(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.FAILED and outcome.label is Label.NUMBER_MISMATCH
    assert outcome.missing == (moved,)
    assert f"{moved!r} where the evidence gives {instead!r} with the same words" in outcome.detail


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("Tessera now requires Python 3.10 or later.", RELEASE),
        ("Python 3.9 is no longer supported.", RELEASE),
        ("The default request timeout changed from 30 to 60 seconds.", RELEASE),
        ("The collapse killed at least two people.", COLLAPSE),
        ("Rescuers brought out three people.", COLLAPSE),
        # Said the other way round, the words are still the number's own.
        ("The collapse killed three people.", "Three people were killed, and two were hurt."),
        # As many shared words for both values: not read as moved.
        ("Sales rose 5% in 2020, while profit rose 3%.", "Profit rose 3%. Sales rose 5%."),
    ],
)
def test_a_number_with_its_own_words_is_not_moved(claim: str, evidence: str) -> None:
    outcome = CHECK(claim, evidence)
    assert outcome is None or outcome.status is CheckStatus.PASSED, outcome
