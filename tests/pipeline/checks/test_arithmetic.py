import pytest

from judge.pipeline.checks import ArithmeticCheck, NumberCheck
from judge.schemas import CheckStatus, Label

check = ArithmeticCheck()


@pytest.mark.parametrize(
    ("claim", "evidence", "derivation"),
    [
        ("In total 150 patients enrolled.", "75 patients got the drug and 75 a placebo.",
         "150 = 75 + 75"),
        ("Sites A and B had 40 staff combined.", "Site A has 25 staff; site B has 15.",
         "40 = 25 + 15"),
        ("Sales rose by 25% in 2023.", "Sales went from 100 units in 2022 to 125 units in 2023.",
         "25% = (125 − 100) / 100"),
        ("The walk takes 3 weeks.", "The walk takes 21 days.", "3 weeks = 21 days"),
        ("The virus was found 16 feet away.", "Virus was isolated 4.8 m away.",
         "16 feet = 4.8 m"),
        ("67 percent were either not working or on reduced hours.",
         "45.2% worked reduced hours and 22.3% were not working.", "67 percent = 45.2% + 22.3%"),
        ("The operating margin widened by 2.4 percentage points, to 18.5%.",
         "Revenue grew 12% to $4.8 billion. The operating margin improved from 16.1% to 18.5%.",
         "2.4 percentage points = 18.5% − 16.1%"),
        ("Net income rose 50% from a year earlier, to $2.1 billion.",
         "Net income was $2.1 billion, compared with $1.4 billion a year earlier.",
         "50% = ($2.1 billion − $1.4 billion) / $1.4 billion"),
        ("Severe infections were three times as common in the treatment arm.",
         "Severe infection occurred in 6.3% of the treatment arm and 2.1% of the control arm.",
         "three times = 6.3% / 2.1%"),
        ("Shipments were 400,000 units higher than in fiscal 2022.",
         "In fiscal 2022 the company shipped 1.9 million units; in fiscal 2023 2.3 million.",
         "400,000 = 2.3 million − 1.9 million"),
        ("Symptom relief took a median of 150 minutes.",
         "The median time to symptom relief was 2.5 hours.", "150 minutes = 2.5 hours"),
        ("The plan costs $144 a year.", "The plan costs $12 a month.", "$144 = $12 × 12"),
    ],
)  # fmt: skip
def test_a_computed_number_that_holds_passes_with_its_computation(
    claim: str, evidence: str, derivation: str
) -> None:
    outcome = check(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.PASSED
    assert outcome.derivations == (derivation,)
    assert derivation in outcome.detail
    # The number check leaves a derivable number to this check rather than calling it wrong.
    numbers = NumberCheck()(claim, evidence)
    assert numbers is not None
    assert numbers.status is CheckStatus.PASSED


@pytest.mark.parametrize(
    ("claim", "evidence", "missing"),
    [
        # Some pair of the evidence's numbers gives it, but not of the sentence restating it.
        ("In total 150 patients enrolled.",
         "75 patients got the drug. Sales were flat. The plant employs 75 people.", "150"),
        # "percentage points" computes, but 3 is no difference of the margin's two levels.
        ("The operating margin widened by 3 percentage points.",
         "The operating margin improved from 16.1% to 18.5%. It was 13.1% in 2019.",
         "3 percentage points"),
    ],
)  # fmt: skip
def test_a_computed_number_no_restating_sentence_gives_needs_review(
    claim: str, evidence: str, missing: str
) -> None:
    outcome = check(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.NEEDS_REVIEW
    assert outcome.label is Label.NEEDS_REVIEW
    assert outcome.missing == (missing,)


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
