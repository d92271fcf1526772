"""Converses ("before" / "after", "won" / "lost") flip a sentence only with everything else in
place; with the parties swapped they say the same thing."""

from __future__ import annotations

import pytest

from judge.pipeline.checks.polarity import PolarityCheck
from judge.pipeline.checks.polarity.converses import converse_flip
from judge.schemas import CheckStatus, Label

CHECK = PolarityCheck()


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("The drug was given before surgery.", "The drug was given after surgery."),
        (
            "The level stayed above the limit all week.",
            "The level stayed below the limit all week.",
        ),
        ("Prices were higher in Paris than in Rome.", "Prices were lower in Paris than in Rome."),
        (
            "The vaccine is more effective in older adults.",
            "The vaccine is less effective in older adults.",
        ),
        ("The team won the final.", "The team lost the final."),
        ("The market gained 3% on Friday.", "The market lost 3% on Friday."),
        ("The treatment improved survival.", "The treatment worsened survival."),
        ("The city lies north of the river.", "The city lies south of the river."),
        ("The results support the hypothesis.", "The results contradict the hypothesis."),
        ("The model overestimates the effect.", "The model underestimates the effect."),
        ("More than half of the staff left.", "Less than half of the staff left."),
        ("United lost to Liverpool at home.", "United beat Liverpool at home."),
        ("United are two points ahead of Arsenal.", "United are two points behind Arsenal."),
        # a bound on no number is read as the words say
        (
            "The team will play at the arena at most through next season.",
            "The team will play at the arena at least through next season.",
        ),
        (
            "Refunds reach your card within 5 days before the warehouse receives the item.",
            "Refunds are issued to your card within 5 days after the item is received at our "
            "warehouse.",
        ),
    ],
)
def test_a_converse_with_everything_else_in_place_contradicts(claim: str, evidence: str) -> None:
    outcome = CHECK(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.FAILED, outcome.detail
    assert outcome.label is Label.CONTRADICTED


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # the parties swapped: the same fact
        ("Spain won against Italy in the final.", "Italy lost against Spain in the final."),
        ("Liverpool lost to United at home.", "United beat Liverpool at home."),
        ("Symptoms appeared before the test.", "The test came after the symptoms appeared."),
        ("The rally was held after the vote.", "The vote was held before the rally."),
        ("Prices were higher in Paris than in Rome.", "Prices were lower in Rome than in Paris."),
        ("The risk is higher for men than for women.", "The risk is lower for women than for men."),
        # idioms and bounds on a number, which the number check reads
        ("Refunds take no more than 5 days.", "Refunds take less than 5 days."),
        ("Refunds take at most 5 days.", "Refunds take at least 5 days."),
        ("The results were more or less the same.", "The results were less the same."),
        # two converses that each keep their place
        (
            "The new model is more accurate and less expensive.",
            "The new model is less expensive and more accurate.",
        ),
        # the evidence writes the claim's word too: two things, not a flip
        ("Sales rose before the launch.", "Sales rose before the launch and fell after it."),
    ],
)
def test_converses_that_keep_the_meaning_pass(claim: str, evidence: str) -> None:
    assert converse_flip(claim, evidence) is None
    outcome = CHECK(claim, evidence)
    assert outcome is None or outcome.status is CheckStatus.PASSED, outcome.detail


def test_the_flip_names_both_words() -> None:
    flip = converse_flip("The drug was given before surgery.", "The drug was given after surgery.")
    assert flip is not None
    assert (flip.said, flip.instead) == ("before", "after")
