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
from functools import lru_cache

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


@lru_cache(maxsize=16)
def _evidence_scores(evidence: str) -> tuple[Score, ...]:
    """The scores of an evidence text, read once per text rather than once per claim."""
    return tuple(find_scores(evidence))


def score_conflicts(claim: str, evidence: str) -> list[str]:
    """Each score of ``claim`` the evidence states otherwise, with the evidence's score."""
    stated = _evidence_scores(evidence)
    if not stated:
        return []
    held = {score.counts for score in stated}
    conflicts: list[str] = []
    for score in find_scores(claim):
        if score.first < score.second or score.counts in held:
            continue
        rival = next((s for s in stated if set(s.counts) & set(score.counts)), None)
        if rival is not None:
            conflicts.append(f"{score.text} (the evidence says {rival.text})")
    return conflicts
