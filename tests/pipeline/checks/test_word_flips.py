"""Flips read word by word: an opposite, a negating prefix or an opposite hyphen prefix said of
the same neighbours as in the evidence, inside a sentence that restates several clauses."""

from __future__ import annotations

import pytest

from judge.pipeline.checks.polarity import PolarityCheck
from judge.pipeline.checks.polarity.word_flips import word_flip
from judge.reading import read
from judge.reading.normalise import normalise
from judge.schemas import CheckStatus, Label

CHECK = PolarityCheck()


@pytest.mark.parametrize(
    ("claim", "evidence", "said", "instead"),
    [
        (
            "The agency proposed new labels for plant-based milk in response to their "
            "decreased market availability and popularity among young buyers in cities.",
            "The draft guidance is a response to the increased market availability and "
            "consumption of plant-based milk alternatives over the last decade.",
            "decreased",
            "increased",
        ),
        (
            "They discuss their personal philosophies on indoor education and the benefits "
            "of technology for children who grow up in cities.",
            "Ross, what is your personal philosophy of outdoor education?",
            "indoor",
            "outdoor",
        ),
        (
            "We extended multi-trial space-by-time tensor decomposition to discount baseline "
            "activity, which improves decoding of retinal responses.",
            "In particular, we extended previously used single-trial space-by-time tensor "
            "decomposition based on matrix factorization.",
            "multi-trial",
            "single-trial",
        ),
        (
            "The commissioner's appointment can be renewed for a further term by the House.",
            "The office of Parliamentary Commissioner for Standards is held for a "
            "non-renewable term of five years.",
            "renewed",
            "non-renewable",
        ),
    ],
)
def test_a_flip_inside_a_long_sentence_is_read(
    claim: str, evidence: str, said: str, instead: str
) -> None:
    flip = word_flip(normalise(claim), read(evidence))
    assert flip is not None
    assert (flip.said, flip.instead) == (said, instead)
    outcome = CHECK(claim, evidence)
    assert outcome is not None
    assert outcome.status is not CheckStatus.PASSED
    assert outcome.label in {Label.CONTRADICTED, Label.NEEDS_REVIEW}


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # the evidence writes the claim's word too: it speaks of both
        (
            "Prices fell after the storm, which hit the coast in May.",
            "Prices rose before the storm and fell after it.",
        ),
        # different neighbours: another thing altered
        ("Exports decreased in the north.", "Imports increased in the south of the country."),
        # a negation on one side only: "did not rise" is not "fell"
        ("Sales did not rise sharply in the second quarter.", "Sales fell sharply in the quarter."),
        # converses and comparatives may swap their parties
        ("Spain won against Italy in the final.", "Italy lost against Spain in the final."),
        ("The risk is higher for men than for women.", "The risk is lower for women than for men."),
        # a sentence that makes an exception restates it
        (
            "Shipping fees are refunded when the item arrived damaged.",
            "Shipping fees are non-refundable, except when the item arrived damaged.",
        ),
        # "in" before a verb negates nothing; "dis" is left out
        ("The team will form a committee.", "The team will inform a committee."),
        ("They cover the costs of the trip.", "They discover the costs of the trip."),
    ],
)
def test_words_that_keep_the_meaning_pass(claim: str, evidence: str) -> None:
    assert word_flip(normalise(claim), read(evidence)) is None


def test_three_shared_neighbours_contradict_two_need_review() -> None:
    evidence = "The draft is a response to the increased market availability of milk."
    confident = CHECK("It was a response to the decreased market availability of milk.", evidence)
    assert confident is not None
    assert confident.status is CheckStatus.FAILED
    assert confident.label is Label.CONTRADICTED
    weaker = CHECK(
        "The podcast hosts promote Anchor, a paid app for creating podcasts at home.",
        "We are using this space to advertise anchor which is a free app you should download.",
    )
    assert weaker is not None
    assert weaker.status is CheckStatus.NEEDS_REVIEW
