"""Ranges: two numbers that state one interval ("3-5%", "3% to 5%", "between 3 and 5
percent", "$6.10 to $6.30"), read as one value.

A range is not its maximum: "adjusted EPS of $6.10 to $6.30" does not state "$6.30", and a
range of the claim is borne out only by a range of the evidence with the same two ends (at the
claim's precision). Two numbers joined by "to" after a verb of change ("improved from 16.1% to
18.5%") are two levels, not a range; nor is a score ("won 3-1"), whose first number is the
larger.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from judge.reading import lexicon
from judge.reading.values.quantities import Quantity
from judge.reading.words import word_form

__all__ = ["Range", "find_ranges"]

# Between the two ends: a hyphen or dash, "to", "through"; "and" after "between".
_JOIN = re.compile(r"^\s*(?:[-–]|to|through|thru)\s*(?:[$€£¥]\s*)?$", re.IGNORECASE)
_AND = re.compile(r"^\s*and\s*(?:[$€£¥]\s*)?$", re.IGNORECASE)
_BETWEEN = re.compile(r"\bbetween\s+(?:[$€£¥]\s*)?$", re.IGNORECASE)
_FROM = re.compile(r"\bfrom\s+(?:[$€£¥]\s*)?$", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z]+")
_CURRENCY = re.compile(r"[$€£¥]\s?$")


@dataclass(frozen=True)
class Range:
    """The two ends of one range, as the text writes it."""

    low: Quantity
    high: Quantity
    text: str
    start: int
    end: int

    def holds(self, quantity: Quantity) -> bool:
        return quantity is self.low or quantity is self.high


def _change_forms() -> frozenset[str]:
    return frozenset(word_form(w) for w in lexicon.words("frames", name="change"))


_CHANGES = _change_forms()


def find_ranges(text: str, quantities: Sequence[Quantity]) -> list[Range]:
    """The ranges among ``quantities`` (the numbers of ``text``, in order)."""
    ordered = sorted(quantities, key=lambda q: q.start)
    found: list[Range] = []
    for low, high in itertools.pairwise(ordered):
        if low.end > high.start or (not low.checkable and not high.checkable):
            continue
        between = text[low.end : high.start]
        before = text[max(0, low.start - 40) : low.start]
        if _AND.match(between):
            if not _BETWEEN.search(before):
                continue
        elif not _JOIN.match(between):
            continue
        elif _FROM.search(before) and _after_change(before):
            continue  # "rose from 3% to 5%": two levels
        if low.unit != high.unit and low.unit is not None and high.unit is not None:
            continue
        if low.value >= high.value or low.negative or high.negative:
            continue  # a score ("3-1"), or no interval
        start = low.start
        if between_match := _BETWEEN.search(before):
            start = max(0, low.start - 40) + between_match.start()
        elif currency := _CURRENCY.search(before):
            start = low.start - len(currency.group(0))
        found.append(Range(low, high, text[start : high.end], start, high.end))
    return found


def _after_change(before: str) -> bool:
    """Whether a verb of change stands in the few words before "from"."""
    words = _WORD.findall(before)[-5:-1]
    return any(word_form(word) in _CHANGES for word in words)
