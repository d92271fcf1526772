"""The one normalisation before the checks: look-alikes read as what they show, hidden
characters removed and recorded; and the checks that use it, before and after."""

from __future__ import annotations

import pytest

from judge.pipeline.checks import LookalikeCheck, NumberCheck
from judge.reading.normalise import for_checking, normalise
from judge.schemas import CheckStatus, Label

EVIDENCE = "Returns are accepted within 30 days. The fee is 15% of the price."


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("within \u01bc0 days", "within 50 days"),  # LATIN CAPITAL LETTER TONE FIVE
        ("within 3\u13ce days", "within 34 days"),  # CHEROKEE LETTER SE
        ("within \u2160\u2164 days", "within 15 days"),  # ROMAN NUMERALS ONE, FIVE
        ("within \u2164 days", "within 5 days"),
        ("within 3O days", "within 30 days"),
        ("fee is l5%", "fee is 15%"),
        ("it is 4O7 units", "it is 407 units"),
        ("within \u0417\u041e days", "within \u0417O days"),  # no digit: letters only
        ("within \u0663\u0660 days", "within 30 days"),  # Arabic-Indic digits
        ("within \uff13\uff10 days", "within 30 days"),  # full-width
        ("within \U0001d7d1\U0001d7ce days", "within 30 days"),  # mathematical bold
    ],
)
def test_digits_and_look_alikes_read_as_the_digit_they_show(written: str, read: str) -> None:
    assert normalise(written) == read


@pytest.mark.parametrize("word", ["CO2", "COVID-19", "Oslo", "l'hotel", "10^2"])
def test_words_with_letters_next_to_digits_are_left_alone(word: str) -> None:
    assert normalise(word) == word


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("aged &#8805;60 years", "aged \u226560 years"),
        ("aged &#x2264;18 years", "aged \u226418 years"),
        ("the Irish&rsquo;s first win", "the Irish's first win"),
        ("fees are n&#111;t refunded", "fees are not refunded"),
        ("a &unknownname; stays", "a &unknownname; stays"),
        ("Fees &amp taxes", "Fees &amp taxes"),  # no semicolon: not a reference
    ],
)
def test_character_references_read_as_the_characters_they_stand_for(
    written: str, read: str
) -> None:
    assert normalise(written) == read


def test_a_reference_to_an_invisible_character_is_recorded_as_one() -> None:
    assert for_checking("within 3&#8203;0 days").hidden_inside


def test_letters_drawn_like_latin_letters_read_as_them() -> None:
    assert normalise("\u041e\u0420\u0414-88213") == "OPД-88213"
    assert normalise("ORD-88213") == "ORD-88213"


def test_bidi_and_invisible_characters_are_removed_and_recorded() -> None:
    read = for_checking("within \u202e03\u202c days")
    assert read.text == "within 03 days" and read.bidi
    assert "RIGHT-TO-LEFT OVERRIDE" in read.hidden
    inside = for_checking("within 3\u200b0 days")
    assert inside.text == "within 30 days" and inside.hidden_inside and not inside.bidi
    assert not for_checking("within 30 days\u200b").hidden_inside


# Before this normalisation each of these passed the exact checks (the number check saw no
# number, or the wrong one); now each is a number mismatch or sent to review.
LOOKALIKE_CASES = [
    ("Returns are accepted within \u01bc0 days.", Label.NUMBER_MISMATCH),
    ("Returns are accepted within \u13ce0 days.", Label.NUMBER_MISMATCH),
    ("Returns are accepted within \u2164\u2160 days.", Label.NUMBER_MISMATCH),
    ("Returns are accepted within 5O days.", Label.NUMBER_MISMATCH),
    ("The fee is l6% of the price.", Label.NUMBER_MISMATCH),
    ("Returns are accepted within \u202e03\u202c days.", Label.NUMBER_MISMATCH),
    ("Returns are accepted within 3O days.", Label.NEEDS_REVIEW),  # right value, disguised
    ("Returns are accepted within 3\u200b0 days.", Label.NEEDS_REVIEW),
    ("Returns are accepted \u202ewithin\u202c 30 days.", Label.NEEDS_REVIEW),
]


@pytest.mark.parametrize(("claim", "label"), LOOKALIKE_CASES)
def test_look_alike_values_do_not_pass(claim: str, label: Label) -> None:
    outcomes = [NumberCheck()(claim, EVIDENCE), LookalikeCheck()(claim, EVIDENCE)]
    failing = [o for o in outcomes if o is not None and o.status is not CheckStatus.PASSED]
    assert failing and failing[0].label is label


def test_the_clean_claim_passes_both_checks() -> None:
    claim = "Returns are accepted within 30 days."
    number = NumberCheck()(claim, EVIDENCE)
    assert number is not None and number.status is CheckStatus.PASSED
    assert LookalikeCheck()(claim, EVIDENCE) is None


def test_a_disguise_the_evidence_also_uses_is_not_the_claims_doing() -> None:
    evidence = "Returns are accepted within 3O days."
    assert LookalikeCheck()("Returns are accepted within 3O days.", evidence) is None


def test_percent_is_not_matched_to_percentage_points_of_the_sentence_it_restates() -> None:
    evidence = "The margin rose 3 percentage points to 14%. Revenue grew 3% to $2.1 billion."
    wrong = NumberCheck()("The margin rose 3% to 14%.", evidence)
    assert wrong is not None and wrong.label is Label.NUMBER_MISMATCH
    assert "percentage points" in wrong.detail
    for claim in ("The margin rose 3 percentage points to 14%.", "Revenue grew 3%."):
        right = NumberCheck()(claim, evidence)
        assert right is not None and right.status is CheckStatus.PASSED
