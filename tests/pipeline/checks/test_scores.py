"""Scores and tallies are read as pairs: "3-2" is not borne out by a 3-1 score and a 2 elsewhere."""

from __future__ import annotations

import pytest

from judge.pipeline.checks import NumberCheck
from judge.pipeline.checks.numbers import score_conflicts
from judge.reading import read
from judge.reading.values.scores import find_scores
from judge.schemas import CheckStatus, Finding, Label

CHECK = NumberCheck()
MATCH = "United beat Liverpool 3-1 at home and sit two points behind Arsenal."


@pytest.mark.parametrize(
    ("claim", "evidence", "missing"),
    [
        ("United beat Liverpool 3-2.", MATCH, ("3-2", "3-1")),
        ("The Senate voted 52-48.", "The Senate voted 51-49 on Tuesday.", None),
        (
            "The court ruled 6-3.",
            "In a 5-3 ruling, the court agreed.",
            ("6-3", "5-3"),
        ),
    ],
)
def test_a_score_the_evidence_states_otherwise_fails(
    claim: str, evidence: str, missing: tuple[str, str] | None
) -> None:
    outcome = CHECK(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.FAILED
    assert outcome.label is Label.NUMBER_MISMATCH
    if missing is not None:
        mine, theirs = missing
        assert mine in outcome.missing
        assert f"{mine!r} where the evidence says {theirs!r}" in outcome.detail
        assert outcome.finding is Finding.CONFLICT


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("United won 3-1 against Liverpool.", MATCH),
        ("Liverpool lost 1-3 to United.", MATCH),  # the same score, read from the loser's side
        ("The vote was 52-48.", "The vote was 52 to 48."),  # no pair in the evidence: counts
        ("They drew 1-1.", "They drew 2-2 after leading 1-1 at half-time."),
        ("The court ruled 5-4.", "In a 5-4 ruling, the court agreed."),
    ],
)
def test_the_same_score_passes(claim: str, evidence: str) -> None:
    outcome = CHECK(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.PASSED, outcome.detail


@pytest.mark.parametrize(
    "text",
    [
        "The 2019-20 season ended early.",  # a season, not a score
        "The dose is 1.5-2 mg.",  # decimals
        "Prices fell 5-10%.",  # a range of percentages
        "It costs $3-4.",  # amounts
        "Code A-12 was used.",  # a code
    ],
)
def test_pairs_that_are_no_scores_are_not_read(text: str) -> None:
    assert find_scores(text) == []


def test_a_range_runs_upwards_and_is_left_to_the_number_check() -> None:
    assert score_conflicts(read("Recovery took 3-4 days."), read("Recovery took 3-5 days.")) == []
