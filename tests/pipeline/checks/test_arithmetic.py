import pytest

from judge.pipeline.checks import ArithmeticCheck, NumberCheck
from judge.schemas import CheckStatus, Label

check = ArithmeticCheck()


@pytest.mark.parametrize(
    ("claim", "evidence", "missing"),
    [
        ("In total 150 patients enrolled.", "75 patients got the drug and 75 a placebo.", "150"),
        ("Sites A and B had 40 staff combined.", "Site A has 25 staff; site B has 15.", "40"),
        ("Sales rose by 25% in 2023.", "Sales went from 100 units in 2022 to 125 in 2023.", "25%"),
        ("The walk takes 3 weeks.", "The walk takes 21 days.", "3 weeks"),
        ("The virus was found 16 feet away.", "Virus was isolated 4.8 m away.", "16 feet"),
        ("67 percent were either not working or on reduced hours.",
         "45.2% worked reduced hours and 22.3% were not working.", "67 percent"),
    ],
)  # fmt: skip
def test_computed_number_needs_review(claim: str, evidence: str, missing: str) -> None:
    outcome = check(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.NEEDS_REVIEW
    assert outcome.label is Label.NEEDS_REVIEW
    assert outcome.missing == (missing,)
    # The number check leaves a derivable number to this check rather than calling it wrong.
    numbers = NumberCheck()(claim, evidence)
    assert numbers is not None
    assert numbers.status is CheckStatus.PASSED


def test_total_stated_by_the_evidence_passes() -> None:
    outcome = check("In total 150 patients enrolled.", "A total of 150 patients enrolled.")
    assert outcome is not None
    assert outcome.status is CheckStatus.PASSED


def test_total_that_no_arithmetic_explains_still_needs_review_and_fails_numbers() -> None:
    claim, evidence = "In total 999 patients enrolled.", "75 patients got the drug, 75 a placebo."
    outcome = check(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.NEEDS_REVIEW
    numbers = NumberCheck()(claim, evidence)
    assert numbers is not None
    assert numbers.status is CheckStatus.FAILED


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("The walk takes 21 days.", "The walk takes 21 days."),  # no computation
        ("Marr summed up the risk of 5 cases.", "There were 5 cases."),  # "summed up" is a phrase
        ("In total, it was a good year.", "It was a good year."),  # nothing computed
    ],
)
def test_claims_without_computed_numbers_are_not_reviewed(claim: str, evidence: str) -> None:
    assert check(claim, evidence) is None


def test_sums_are_not_tried_without_a_cue() -> None:
    # 7 = 3 + 4, but nothing in the claim says it adds: a plain mismatch, not a review.
    numbers = NumberCheck()("The team has 7 players.", "There are 3 forwards and 4 backs.")
    assert numbers is not None
    assert numbers.status is CheckStatus.FAILED
    assert check("The team has 7 players.", "There are 3 forwards and 4 backs.") is None
