"""Deterministic checks of a claim against the text of its cited evidence. Pure: no I/O."""

from __future__ import annotations

from judge.pipeline.checks.arithmetic import ArithmeticCheck
from judge.pipeline.checks.certainty import CertaintyCheck
from judge.pipeline.checks.dates import DateCheck
from judge.pipeline.checks.hedges import HedgeCheck
from judge.pipeline.checks.identifiers import IdentifierCheck
from judge.pipeline.checks.links import LinkCheck
from judge.pipeline.checks.lookalikes import LookalikeCheck
from judge.pipeline.checks.markup import MarkupCheck
from judge.pipeline.checks.names import NameCheck
from judge.pipeline.checks.number_placement import NumberPlacementCheck
from judge.pipeline.checks.numbers import NumberCheck
from judge.pipeline.checks.polarity import PolarityCheck
from judge.pipeline.checks.quotes import QuoteCheck
from judge.pipeline.checks.times import TimeCheck
from judge.pipeline.checks.value_frames import ValueFrameCheck
from judge.pipeline.screens.stuffing import detect_citation_stuffing, over_cap
from judge.protocols import Check

__all__ = [
    "ArithmeticCheck",
    "CertaintyCheck",
    "DateCheck",
    "HedgeCheck",
    "IdentifierCheck",
    "LinkCheck",
    "LookalikeCheck",
    "MarkupCheck",
    "NameCheck",
    "NumberCheck",
    "NumberPlacementCheck",
    "PolarityCheck",
    "QuoteCheck",
    "TimeCheck",
    "ValueFrameCheck",
    "default_checks",
    "detect_citation_stuffing",
    "over_cap",
]


def default_checks() -> list[Check]:
    """The checks in pipeline order; the first that does not pass decides the claim's label.

    Exact string matches come first (they cannot misread: quotes, identifiers, web and e-mail
    addresses), then dates and times of day before numbers (their digits are not a count),
    then the review of values written with look-alike or hidden characters and of markup that
    hides text (after the value checks, so a wrong value is reported as wrong), then the
    computed-number review, then whether each number sits where the evidence sentence the
    claim restates puts it and whether a name does, the word-level hedge check, the least
    certain, then the polarity check, which reads negation against that sentence too, and
    last whether the claim states as fact what that sentence hedges.
    """
    return [
        QuoteCheck(),
        IdentifierCheck(),
        LinkCheck(),
        DateCheck(),
        TimeCheck(),
        NumberCheck(),
        LookalikeCheck(),
        MarkupCheck(),
        ArithmeticCheck(),
        ValueFrameCheck(),
        NumberPlacementCheck(),
        NameCheck(),
        HedgeCheck(),
        PolarityCheck(),
        CertaintyCheck(),
    ]
