import pytest

from judge.pipeline.checks import DateCheck
from judge.reading.normalise import normalise
from judge.reading.values.dates import find_dates
from judge.schemas import CheckStatus, Label

check = DateCheck()


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("It launched on 3 March 2024.", "Launch date: 2024-03-03."),
        ("It launched on March 3, 2024.", "It launched on 3rd of March 2024."),
        ("It launched on 2024-03-03.", "It launched on March 3rd, 2024."),
        ("It launched on 13/03/2024.", "It launched on 13 March 2024."),
        ("It launched in March 2024.", "It launched on 3 March 2024."),
        ("It launched in 2024.", "It launched on 3 March 2024."),
        ("The study ran on April 19-28, 2020.", "Sampling took place 19-28 April 2020."),
        ("The study ran on April 19-28, 2020.", "Sampling ran from April 19 to 28, 2020."),
        ("The study ran from 19 to 28 April 2020.", "It ran April 19 through 28, 2020."),
        ("It was posted on July 17, 2020.", "Posted July 17. All data are from 2020."),
        ("The style began in the 1940s.", "The style began in 1946."),
        ("Changes run through the 2018-19 academic year.", "In the 2018-2019 year, changes run."),
        ("They won in 2019.", "### Date Fri 15 Feb 19 They won the cup."),
        ("It was announced on Wednesday.", "On Wednesday the bank announced it."),
        ("It was announced on Wednesday.", "It was announced on 3 January 2024."),
        ("They meet for a beer on Friday night.", "Alex: Wanna grab some beer? TGIF"),
        ("The first debate is in June 2019.", "Debates run in 2019, the first planned for June."),
        ("yes, it was released on september 17, 1991", "Released 17 September 1991."),
        ("Revenue rose in FY2021.", "Revenue rose in fiscal year 2021."),
        ("Revenue rose in fiscal 2021.", "Revenue rose in FY21."),
        ("Revenue rose in FY'24.", "Revenue rose in FY 2024."),
        # Quarters and halves in words and in shorthand, fiscal or not.
        ("Revenue rose in the third quarter of 2020.", "Revenue rose in Q3 2020."),
        ("Northwind reported 3Q24 revenue.", "Revenue for the third quarter of 2024 rose."),
        ("Revenue rose in Q3'24.", "Revenue rose in the third quarter of 2024."),
        ("EPS was $1.42 in Q4 FY2023.", "EPS was $1.42 for the fourth quarter of fiscal 2023."),
        ("Sales rose in the third quarter.", "Sales rose in Q3 2024."),
        ("Sales rose in Q3 2024.", "Sales rose in the third quarter. All figures are for 2024."),
        ("Sales rose in Q3 2024.", "Sales rose on August 5, 2024."),
        ("Margin was 44.1% in H1 2024.", "Margin was 44.1% in the first half of 2024."),
        ("Margin was 44.1% in 1H24.", "Margin was 44.1% in the first half of 2024."),
        # Seasons however their two years are joined, or named by one of them.
        ("He scored 36 goals in 2022/2023.", "He scored 36 goals in the 2022-23 season."),
        ("He scored 36 goals in the 2022–23 season.", "He scored 36 goals in the 2023 season."),
        # Dates without the comma, dotted year-first, day-first with dots, an era year.
        ("It has applied since May 25 2018.", "It shall apply from 25 May 2018."),
        ("The treaty was signed on 1994.06.12.", "The treaty was signed on 12 June 1994."),
        ("It entered into force on 24.05.2016.", "It entered into force on 24 May 2016."),
        ("The museum opened in Heisei 1.", "The museum opened on 3 November 1989."),
        ("It took effect in 2020.", "It took effect in Reiwa 2."),
        # Parts of a decade, and a decade's years.
        ("The style flourished in the early 1920s.", "The style flourished in 1921."),
        ("It declined by the late '30s.", "It had declined by the late 1930s."),
        ("It began in the mid-1950s.", "It began in the mid 1950s."),
    ],
)
def test_same_date_written_differently_passes(claim: str, evidence: str) -> None:
    outcome = check(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.PASSED, outcome.detail


@pytest.mark.parametrize(
    ("claim", "evidence", "missing"),
    [
        ("It launched on 3 March 2024.", "It launched on 4 March 2024.", "3 March 2024"),
        ("It launched on 3 March 2024.", "It launched on 3 March 2023.", "3 March 2024"),
        ("It launched in March 2024.", "It launched in 2024.", "March 2024"),
        ("It launched in 2023.", "It launched on 3 March 2024.", "2023"),
        ("It launched on 2024-03-04.", "It launched on 3 March 2024.", "2024-03-04"),
        ("The style began in 1946.", "The style began in the 1940s.", "1946"),
        ("It was announced on Tuesday.", "On Wednesday the bank announced it.", "Tuesday"),
        ("It was announced on Tuesday.", "It was announced on 3 January 2024.", "Tuesday"),
        ("it came out in 2010", "The film was released in 2009.", "2010"),
        ("The vote is planned for June.", "The vote is planned for July.", "for June"),
        ("Revenue rose in FY2022.", "Revenue rose in fiscal year 2021.", "FY2022"),
        ("Revenue rose in FY24.", "Revenue rose in FY2023.", "FY24"),
        ("Revenue rose in the fourth quarter.", "Revenue rose in Q3.", "fourth quarter"),
        ("Revenue rose in Q2 2024.", "Revenue rose in the third quarter of 2024.", "Q2 2024"),
        ("Revenue rose in 3Q23.", "Revenue rose in the third quarter of 2024.", "3Q23"),
        ("Margin was 41.6% in H2 2024.", "Margin was 41.6% in the first half of 2024.", "H2 2024"),
        ("He scored 36 goals in 2023/24.", "He scored 36 goals in the 2022-23 season.", "2023/24"),
        (
            "He scored 36 goals in the 2019–20 season.",
            "He scored 36 goals in the 2020–21 season.",
            "2019-20",
        ),
        (
            "The style flourished in the late 1920s.",
            "It flourished in the early 1920s.",
            "the late 1920s",
        ),
        (
            "The style flourished in the early 1920s.",
            "It flourished in the 1920s.",
            "the early 1920s",
        ),
        # A day the calendar does not have is a date no evidence bears out.
        ("He leaves on 31 November.", "He leaves on 31 October.", "31 November"),
        ("It was held on April 31, 2018.", "It was held on April 30, 2018.", "April 31, 2018"),
        (
            "The study ran on April 19-29, 2020.",
            "Sampling ran from April 19 to 28, 2020.",
            "April 19-29, 2020",
        ),
    ],
)
def test_date_absent_from_evidence_fails(claim: str, evidence: str, missing: str) -> None:
    outcome = check(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.FAILED
    assert outcome.label is Label.DATE_MISMATCH
    assert outcome.missing == (missing,)
    assert "cited evidence" in outcome.detail


@pytest.mark.parametrize(
    "claim",
    [
        "They may 3 times a week.",
        "The dose is 1200 mg.",
        "No dates at all here.",
    ],
)
def test_no_checkable_date_gives_none(claim: str) -> None:
    assert check(claim, "Evidence from 2024.") is None


def test_ambiguous_numeric_date_in_evidence_allows_both_readings() -> None:
    for claim in ("It opened on 4 March 2024.", "It opened on 3 April 2024."):
        outcome = check(claim, "Opened 03/04/2024.")
        assert outcome is not None
        assert outcome.status is CheckStatus.PASSED


@pytest.mark.parametrize("claim", ["It opened on 03/04/2024.", "It opened on 04.03.2024."])
def test_an_ambiguous_claim_date_passes_when_either_reading_holds(claim: str) -> None:
    for evidence in ("It opened on 4 March 2024.", "It opened on 3 April 2024."):
        outcome = check(claim, evidence)
        assert outcome is not None and outcome.status is CheckStatus.PASSED, evidence


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # Neither 4 May nor 5 April is the 3rd of May: unread before, so the change passed.
        ("It shipped on 4/5/2024.", "It shipped on 3 May 2024."),
        ("It shipped on 3-5-2025.", "It shipped on 3 May 2024."),
        ("It launched on 03/04/2024.", "Evidence from 2024."),  # more precise than the evidence
    ],
)
def test_an_ambiguous_claim_date_fails_when_no_reading_holds(claim: str, evidence: str) -> None:
    outcome = check(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.FAILED and outcome.label is Label.DATE_MISMATCH


def test_both_ends_of_a_claim_range_must_hold() -> None:
    outcome = check("He was chairman (1955-74).", "He was chairman from 1955 to 1975.")
    assert outcome is not None and outcome.status is CheckStatus.FAILED


@pytest.mark.parametrize(
    ("text", "years"),
    [
        ("It was founded in '98.", [1998]),
        ("Sales grew since '05, and then fell.", [2005]),
        ("It launched in May '21.", [2021]),
        # An opening quote before two digits is a title, not a year.
        ("He starred in '12 Angry Men'.", []),
        ("It peaked in the '90s.", [None]),
    ],
)
def test_a_year_cut_to_two_digits_is_read_after_a_year_word(
    text: str, years: list[int | None]
) -> None:
    assert [m.year for m in find_dates(normalise(text))] == years


@pytest.mark.parametrize(
    ("text", "centuries"),
    [
        ("It was built in the 19th century.", [19]),
        ("A twentieth-century painter.", [20]),
        # Not a calendar century: one a firm has lived through, or one before the common era.
        ("The firm entered its second century.", []),
        ("It was built in the 5th century BC.", []),
    ],
)
def test_centuries(text: str, centuries: list[int]) -> None:
    assert [m.century for m in find_dates(normalise(text))] == centuries


def test_mentions_carry_their_precision() -> None:
    mentions = find_dates(normalise("On December 20, 2018 it began; it ends in June 2019."))
    assert [(m.year, m.month, m.day) for m in mentions] == [(2018, 12, 20), (2019, 6, None)]
