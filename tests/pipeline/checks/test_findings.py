"""What kind of failure an exact check reports: the evidence states another value for the
claim's slot (conflict), states none (absent), or gives one the claim computes (derived)."""

from __future__ import annotations

import pytest

from judge.pipeline.checks import (
    ArithmeticCheck,
    DateCheck,
    IdentifierCheck,
    LinkCheck,
    NumberCheck,
    TimeCheck,
)
from judge.protocols import Check
from judge.schemas import CheckStatus, Finding, Label


@pytest.mark.parametrize(
    ("check", "claim", "evidence", "mine", "theirs"),
    [
        (
            NumberCheck(),
            "Unopened items can be returned within 60 days.",
            "Customers may return any unopened item within 30 days of delivery.",
            "60 days",
            "30 days",
        ),
        (
            NumberCheck(),
            "The hall seats 400 students.",
            "The lecture hall seats 250 students and 30 staff.",
            "400",
            "250",
        ),
        (
            NumberCheck(),
            "95 percent of the town had been infected.",
            "Three-quarters of the town had been infected by October.",
            "95 percent",
            "Three-quarters",
        ),
        (
            NumberCheck(),
            "Refunds take at most 5 days.",
            "Refunds take at least 5 days.",
            "at most 5 days",
            "at least 5 days",
        ),
        (
            DateCheck(),
            "The contract was signed on 3 May 2019.",
            "The contract was signed on 1 May 2019 in Berlin.",
            "3 May 2019",
            "1 May 2019",
        ),
        (
            TimeCheck(),
            "The store opens at 9 am on Sundays.",
            "The store opens at 10 am on Sundays.",
            "9 am",
            "10 am",
        ),
        (
            IdentifierCheck(),
            "Your order ORD-88213 has shipped.",
            "Order ORD-88214 shipped on Monday.",
            "ORD-88213",
            "ORD-88214",
        ),
        (
            LinkCheck(),
            "Start a return at acme.com/refunds.",
            "Start a return at https://www.acme.com/returns.",
            "acme.com/refunds",
            "https://www.acme.com/returns",
        ),
    ],
)
def test_another_value_in_the_claims_place_is_a_conflict_naming_both(
    check: Check, claim: str, evidence: str, mine: str, theirs: str
) -> None:
    outcome = check(claim, evidence)
    assert outcome is not None and outcome.status is CheckStatus.FAILED
    assert outcome.finding is Finding.CONFLICT
    assert f"{mine!r} where the evidence says {theirs!r}" in outcome.detail
    # the claim's value as its text has it, which the detail may describe with its limit
    assert any(value in mine for value in outcome.missing)


@pytest.mark.parametrize(
    ("check", "claim", "evidence"),
    [
        (NumberCheck(), "The hall seats 500 people.", "Refunds take 5 days."),
        (DateCheck(), "The museum opened in 1998.", "The museum is old and much visited."),
        (IdentifierCheck(), "See ticket INC-2041.", "The outage was fixed on Friday."),
    ],
)
def test_a_value_the_evidence_does_not_state_is_absent(
    check: Check, claim: str, evidence: str
) -> None:
    outcome = check(claim, evidence)
    assert outcome is not None and outcome.status is CheckStatus.FAILED
    assert outcome.finding is Finding.ABSENT
    assert "not found in the cited evidence" in outcome.detail


@pytest.mark.parametrize(
    ("claim", "evidence", "derivation"),
    [
        (
            "The deal closed in 2020.",
            "Talks began in 2019. A year later the deal closed.",
            "2020 = 2019 + 1 year ('A year later')",
        ),
        (
            "The firm was founded in 2011.",
            "In 2010 the founders met; the following year they set up the firm.",
            "2011 = 2010 + 1 year ('the following year')",
        ),
        (
            "The first store opened in March 2016.",
            "The company was founded in March 2015 and opened its first store a year later.",
            "March 2016 = March 2015 + 1 year ('a year later')",
        ),
        (
            "The talks began in 2017.",
            "The deal closed in 2019; talks had begun two years earlier.",
            "2017 = 2019 − 2 years ('two years earlier')",
        ),
    ],
)
def test_a_date_the_evidence_gives_a_year_later_is_computed_and_shown(
    claim: str, evidence: str, derivation: str
) -> None:
    outcome = DateCheck()(claim, evidence)
    assert outcome is not None and outcome.status is CheckStatus.PASSED
    assert outcome.derivations == (derivation,)
    assert derivation in outcome.detail


def test_a_date_computed_at_more_precision_than_the_evidence_gives_is_no_derivation() -> None:
    outcome = DateCheck()(
        "The first store opened in April 2016.",
        "The company was founded in March 2015 and opened its first store a year later.",
    )
    assert outcome is not None and outcome.status is CheckStatus.FAILED


def test_a_year_counted_from_another_the_words_do_not_orient_goes_to_review() -> None:
    """ "three years after it opened" counts back from 2018 (the opening came first): "after"
    and "before" say which way only with what they are said of, so a person checks."""
    outcome = DateCheck()(
        "The plant opened in 2015.", "The plant closed in 2018, three years after it opened."
    )
    assert outcome is not None
    assert outcome.status is CheckStatus.NEEDS_REVIEW
    assert outcome.label is Label.NEEDS_REVIEW
    assert outcome.finding is Finding.DERIVED


def test_a_year_relative_to_another_but_wrong_is_no_derivation() -> None:
    outcome = DateCheck()(
        "The deal closed in 2021.", "Talks began in 2019. A year later the deal closed."
    )
    assert outcome is not None and outcome.status is CheckStatus.FAILED
    assert outcome.finding is not Finding.DERIVED


def test_a_computation_no_restating_sentence_gives_is_derived() -> None:
    outcome = ArithmeticCheck()(
        "The firms employ 150 staff in total.",
        "One employs 75 staff. The market is large. The other firm employs 75 staff.",
    )
    assert outcome is not None and outcome.finding is Finding.DERIVED
    assert outcome.status is CheckStatus.NEEDS_REVIEW


def test_a_conversion_or_a_computation_that_holds_passes_with_no_finding() -> None:
    converted = ArithmeticCheck()(
        "Returns are accepted for 3 weeks.", "Returns are accepted for 21 days."
    )
    computed = ArithmeticCheck()(
        "The firms employ 150 staff in total.", "One employs 75 staff, the other 75."
    )
    for outcome in (converted, computed):
        assert outcome is not None and outcome.finding is None
        assert outcome.status is CheckStatus.PASSED and outcome.derivations


def test_a_passing_check_reports_no_finding() -> None:
    outcome = NumberCheck()("Returns within 30 days.", "Customers may return items within 30 days.")
    assert outcome is not None and outcome.status is CheckStatus.PASSED
    assert outcome.finding is None
