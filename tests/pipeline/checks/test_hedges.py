import pytest

from judge.pipeline.checks import HedgeCheck
from judge.schemas import CheckStatus, Label

check = HedgeCheck()


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("Refunds always take 5 days.", "Refunds invariably take 5 days."),
        ("Refunds usually take 5 days.", "Refunds typically take 5 days."),
        ("All staff were tested.", "100% of staff were tested."),
        ("None of the staff were infected.", "0% of staff were infected."),
        ("It always rains in May.", "It rains in May every year."),
        ("It is only sold online.", "It is sold exclusively online."),
        ("All rooms have a view.", "Every room has a view."),
        ("Delivery is guaranteed.", "We guarantee delivery."),
        ("Adversarial examples are often invalid.", "Many of these examples are invalid."),
        ("People touch their lips frequently.", "The average contact rate per hour was 15.7."),
        ("Patients often take it.", "Patients take it three times a day."),
        ("Refunds usually take 5 days.", "Refunds often take 5 days."),
        ("Most customers renewed.", "62% of customers renewed."),
        ("Most of the staff left.", "The majority of staff left."),
        ("Few patients died.", "Only 2 of 300 patients died."),
        ("Few voters agreed.", "1.5% of voters agreed."),
        # A weakening hedge says less than a flat statement, which bears it out.
        ("Refunds usually take 5 days.", "Refunds take 5 days."),
        ("Refunds often take 5 days.", "Refunds take 5 days."),
        ("The drug sometimes causes nausea.", "The drug causes nausea."),
        ("Most exports are mostly grain.", "Most exports are grain."),
    ],
)
def test_hedge_carried_by_evidence_passes(claim: str, evidence: str) -> None:
    outcome = check(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.PASSED, outcome.detail


@pytest.mark.parametrize(
    "claim",
    [
        "Only 5% of patients relapsed.",
        "The album only sold about 100,000 copies.",
        "Only a third of patients had a fever.",
        "It only costs $5.",
    ],
)
def test_only_before_an_amount_weighs_it_and_is_not_read(claim: str) -> None:
    assert check(claim, "Patients relapsed; the album sold copies; it costs money.") is None


@pytest.mark.parametrize(
    ("claim", "evidence", "missing"),
    [
        ("Refunds always take 5 days.", "Refunds take 5 days.", "always"),
        ("Refunds never take longer than 5 days.", "Refunds take 5 days.", "never"),
        ("It is only sold online.", "It is sold online.", "only"),
        ("All rooms have a view.", "The rooms have a view.", "all"),
        ("Delivery is guaranteed.", "Delivery is expected.", "guaranteed"),
        # Quantifiers flipped, or a share on the other side of half.
        ("Most customers renewed.", "Few customers renewed.", "most"),
        ("Few customers renewed.", "Most customers renewed.", "few"),
        ("Most customers renewed.", "12% of customers renewed.", "most"),
        ("Few customers renewed.", "62% of customers renewed.", "few"),
        ("Most of the staff left.", "Half of the staff left.", "most"),
    ],
)
def test_hedge_absent_from_evidence_fails(claim: str, evidence: str, missing: str) -> None:
    outcome = check(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.FAILED
    assert outcome.label is Label.HEDGE_ADDED
    assert outcome.missing == (missing,)
    assert "cited evidence" in outcome.detail


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("Orders usually ship in a day.", "Orders rarely ship in a day."),
        ("Users often report crashes.", "Users seldom report crashes."),
        ("The drug sometimes causes nausea.", "The drug never causes nausea."),
        ("Flights are rarely delayed.", "Flights are often delayed."),
    ],
)
def test_a_weakening_hedge_against_the_frequency_the_evidence_states_is_contradicted(
    claim: str, evidence: str
) -> None:
    outcome = check(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.FAILED, outcome
    assert outcome.label is Label.CONTRADICTED
    assert outcome.evidence_sentence == evidence


def test_a_conflicting_frequency_elsewhere_in_the_evidence_is_no_conflict() -> None:
    evidence = "Orders usually ship in a day. Returns are rarely refunded in cash."
    outcome = check("Orders usually ship in a day.", evidence)
    assert outcome is not None and outcome.status is CheckStatus.PASSED


@pytest.mark.parametrize(
    "claim",
    [
        "The overall result was good.",  # "all" inside a word
        "It was not bad at all.",
        "After all, it worked.",
        "The all-time record stands.",
        "The answer is all of the above.",
        "Keep the list up to date.",
        "It is not always open.",  # negated hedges weaken the claim
        "Not only cats but dogs too.",
        "The shop opens at nine.",
        "It is the most popular sport.",  # superlatives, not quantifiers
        "The most famous paintings hang here.",
        "It will most likely rain.",
        "Most of all, it was cheap.",
        "A few customers renewed.",  # "a few" is some
        "Recovery takes a few days.",
        "As few as 100 copies were found.",
        "It holds up to 10 people.",  # limits before numbers are the number check's
        "It holds at least 10 people.",
    ],
)
def test_words_that_are_not_hedges_are_not_checked(claim: str) -> None:
    assert check(claim, "Unrelated evidence.") is None
