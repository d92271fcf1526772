"""Scores and tallies: two counts joined by a dash ("won 3-1", "a 52-48 vote", "a 5-4
ruling"). A pair whose first count is not below its second reads as a score; one that runs
upwards ("3-5 days") is a range."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Score", "find_scores"]

# Two counts of up to three digits joined by a dash, not part of a date, code, decimal, amount
# or percentage ("2019-20", "A-1", "1.5-2", "$3-4", "5-10%").
_PAIR = re.compile(
    r"(?<![\w.,/$€£-])(\d{1,3})\s?-\s?(\d{1,3})(?![\w/%-]|[.,]\d)(?!\s?(?:percent|per cent)\b)"
)


@dataclass(frozen=True)
class Score:
    text: str
    first: int
    second: int

    @property
    def counts(self) -> tuple[int, int]:
        """The two counts in ascending order, so "3-1" and "1-3" are one score."""
        return (min(self.first, self.second), max(self.first, self.second))


def find_scores(text: str) -> list[Score]:
    """The dash-joined pairs of counts of ``text`` (already normalised)."""
    return [Score(m.group(0), int(m.group(1)), int(m.group(2))) for m in _PAIR.finditer(text)]
