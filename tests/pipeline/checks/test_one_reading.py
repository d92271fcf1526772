"""One reading of each word and value for every check: the cases where copies of a rule used
to disagree, each read the same way wherever it is read."""

from __future__ import annotations

import pytest

from judge.pipeline.checks import IdentifierCheck, NumberCheck, PolarityCheck, default_checks
from judge.reading import read
from judge.reading.words import word_form
from judge.schemas import CheckOutcome, CheckStatus, Label


def _first_failure(claim: str, evidence: str) -> CheckOutcome | None:
    for check in default_checks():
        outcome = check(claim, evidence)
        if outcome is not None and outcome.status is not CheckStatus.PASSED:
            return outcome
    return None


def test_dis_negates_only_in_the_listed_words() -> None:
    # "discovered" is no negated "covered"; "disapproved" is a negated "approved".
    evidence = "The auditors discovered the missing invoices during the review."
    assert (
        _first_failure("The auditors covered the missing invoices during the review.", evidence)
        is None
    )
    flipped = PolarityCheck()(
        "The board approved the merger plan.", "The board disapproved the merger plan."
    )
    assert flipped is not None and flipped.label is Label.CONTRADICTED


@pytest.mark.parametrize("code", ["USD", "CAD", "AUD", "EUR", "CHF", "SEK", "ZAR"])
def test_every_currency_code_reads_as_money_glued_or_spaced(code: str) -> None:
    family = {"USD": "dollars", "CAD": "dollars", "AUD": "dollars", "EUR": "euros",
              "CHF": "francs", "SEK": "kronor", "ZAR": "ZAR"}[code]  # fmt: skip
    evidence = f"The fee is 250 {family}."
    for claim in (f"The fee is {code}250.", f"The fee is {code} 250."):
        assert IdentifierCheck()(claim, evidence) is None  # money, not a code
        outcome = NumberCheck()(claim, evidence)
        assert outcome is not None and outcome.status is CheckStatus.PASSED, (claim, outcome)
    wrong = NumberCheck()(f"The fee is {code}260.", evidence)
    assert wrong is not None and wrong.label is Label.NUMBER_MISMATCH


@pytest.mark.parametrize("season", ["autumn", "fall"])
def test_a_season_is_one_word_for_the_polarity_check(season: str) -> None:
    claim = f"The course starts in the {season}."
    flipped = PolarityCheck()(claim, "The course starts in the spring.")
    assert flipped is not None and flipped.label is Label.CONTRADICTED
    kept = PolarityCheck()("Prices fall in winter.", "Prices fall in winter.")
    assert kept is None or kept.status is CheckStatus.PASSED


def test_one_word_form_for_every_rule() -> None:
    assert word_form("refundable") == word_form("refunded") == word_form("refunds")
    assert word_form("met") == word_form("meets")


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("The warranty runs for III years.", "The warranty runs for 2 years."),
        ("It took IV weeks.", "It took three weeks."),
    ],
)
def test_a_roman_numeral_where_a_value_stands_is_that_value(claim: str, evidence: str) -> None:
    outcome = NumberCheck()(claim, evidence)
    assert outcome is not None and outcome.label is Label.NUMBER_MISMATCH
    right = evidence.replace("2 years", "3 years").replace("three", "four")
    same = NumberCheck()(claim, right)
    assert same is not None and same.status is CheckStatus.PASSED


@pytest.mark.parametrize(
    "claim",
    [
        "Louis XIV ruled France for decades.",
        "World War II ended in Europe in May.",
        "Henry VIII had six wives.",
    ],
)
def test_a_roman_numeral_in_a_name_is_no_number(claim: str) -> None:
    values = [q.value for q in read(claim).numbers]
    assert all(value not in {14, 2, 8} for value in values)


def test_a_roman_numeral_after_a_counting_word_still_counts() -> None:
    outcome = NumberCheck()("It is a phase III trial.", "It is a phase 2 trial.")
    assert outcome is not None and outcome.label is Label.NUMBER_MISMATCH
    same = NumberCheck()("It is a phase III trial.", "It is a phase 3 trial.")
    assert same is not None and same.status is CheckStatus.PASSED


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # the number of a passage or source an answer names
        (
            "Identify the sub-text, as stated in passage 2.",
            "Divide your role into units and identify the sub-text.",
        ),
        (
            "The authors of Passage ID 3 declare no conflict of interest.",
            "The authors declare no conflict of interest.",
        ),
        # an enumerator left at the end of a sentence cut from a list
        ("You can improve it by following these steps: 1.", "You can improve it in steps."),
        # an ordinal that orders the answer's points
        ("Third, tariffs may act as barriers to trade.", "Tariffs may act as barriers to trade."),
        # a name that holds a number
        (
            "Closed rooms help transmit coronavirus disease 2019.",
            "Closed rooms help transmit COVID-19.",
        ),
    ],
)
def test_references_and_numbered_names_are_no_values(claim: str, evidence: str) -> None:
    assert _first_failure(claim, evidence) is None


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("Source 3 says refunds take 30 days.", "Refunds take 60 days."),
        ("The team scored 16.", "The team scored 15."),
        ("Coronavirus disease 2019 reached Spain in 2021.", "COVID-19 reached Spain in 2020."),
    ],
)
def test_values_beside_references_and_names_are_still_read(claim: str, evidence: str) -> None:
    outcome = _first_failure(claim, evidence)
    assert outcome is not None and outcome.label in {Label.NUMBER_MISMATCH, Label.DATE_MISMATCH}
