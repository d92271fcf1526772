"""Deterministic checks of a claim against the text of its cited evidence. Pure: no I/O."""

from __future__ import annotations

from judge.checks.arithmetic import ArithmeticCheck
from judge.checks.dates import DateCheck
from judge.checks.hedges import HedgeCheck
from judge.checks.identifiers import IdentifierCheck
from judge.checks.lookalikes import LookalikeCheck
from judge.checks.numbers import NumberCheck
from judge.checks.quotes import QuoteCheck
from judge.checks.stuffing import detect_citation_stuffing, over_cap
from judge.protocols import Check

__all__ = [
    "ArithmeticCheck",
    "DateCheck",
    "HedgeCheck",
    "IdentifierCheck",
    "LookalikeCheck",
    "NumberCheck",
    "QuoteCheck",
    "default_checks",
    "detect_citation_stuffing",
    "over_cap",
]


def default_checks() -> list[Check]:
    """The checks in pipeline order; the first that does not pass decides the claim's label.

    Exact string matches come first (they cannot misread), then dates before numbers (a date's
    digits are not a count), then the computed-number review, and the word-level hedge check,
    the least certain, last.
    """
    return [
        QuoteCheck(),
        IdentifierCheck(),
        LookalikeCheck(),
        DateCheck(),
        NumberCheck(),
        ArithmeticCheck(),
        HedgeCheck(),
    ]
