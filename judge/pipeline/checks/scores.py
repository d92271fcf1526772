"""Scores and tallies: two counts joined by a dash ("won 3-1", "a 52-48 vote", "a 5-4 ruling").

The number check finds each count somewhere in the evidence, so "beat Liverpool 3-2" passes
against "beat Liverpool 3-1" when a 2 stands elsewhere in the passage. A claim's pair whose first
count is not below its second (a range runs upwards: "3-5 days") is read as a score, and fails
when the evidence writes a pair that shares a count with it but none that holds both of its
counts, in either order ("Liverpool lost 1-3"). Evidence with no such pair says nothing here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Two counts of up to three digits joined by a dash, not part of a date, code, decimal, amount
# or percentage ("2019-20", "A-1", "1.5-2", "$3-4", "5-10%").
_PAIR = re.compile(
    r"(?<![\w.,/$€£-])(\d{1,3})\s?-\s?(\d{1,3})(?![\w/%-]|[.,]\d)(?!\s?(?:percent|per cent)\b)"
)


@dataclass(frozen=True)
class Score:
    text: str
    counts: tuple[int, int]  # in ascending order, so "3-1" and "1-3" are one score


def _ordered(first: int, second: int) -> tuple[int, int]:
    return (first, second) if first <= second else (second, first)


def find_scores(text: str) -> list[Score]:
    """The dash-joined pairs of counts of ``text`` (already normalised)."""
    return [
        Score(m.group(0), _ordered(int(m.group(1)), int(m.group(2)))) for m in _PAIR.finditer(text)
    ]


def score_conflicts(claim: str, evidence: str) -> list[str]:
    """Each score of ``claim`` the evidence states otherwise, with the evidence's score."""
    stated = find_scores(evidence)
    if not stated:
        return []
    held = {score.counts for score in stated}
    conflicts: list[str] = []
    for match in _PAIR.finditer(claim):
        first, second = int(match.group(1)), int(match.group(2))
        counts = _ordered(first, second)
        if first < second or counts in held:
            continue
        rival = next((s for s in stated if set(s.counts) & set(counts)), None)
        if rival is not None:
            conflicts.append(f"{match.group(0)} (the evidence says {rival.text})")
    return conflicts
