"""The clock-time check: every time of day in the claim must be in the evidence.

Times compare as minutes of the day, so "7 pm", "7:00 p.m.", "19:00" and "seven in the
evening" agree. A time without a half of the day ("at 7:30") may be either half. The evidence
may state a time less precisely than the claim only where it names the hour alone ("at 7",
"seven o'clock", "let's make it 7"): dialogue and notices often do, and "7 pm" for "see you at
7" is no mismatch. Without this check a time glued to its letters ("10am") or written with a
colon ("10:00") was read by no check, so a changed hour passed unseen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from judge.pipeline.checks.outcome import missing, passed
from judge.pipeline.checks.quantities import evidence_quantities
from judge.pipeline.checks.text import normalise
from judge.schemas import CheckOutcome, Label

_HOUR_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
               "eleven", "twelve")  # fmt: skip
_HOUR_WORD = r"(?P<hw>" + "|".join(_HOUR_WORDS) + r")"
_HALF = r"(?P<half>a\.?\s?m\b\.?|p\.?\s?m\b\.?)"
_PART_OF_DAY = r"(?P<part>in\s+the\s+(?:morning|afternoon|evening)|at\s+night|tonight)"
# Most specific first: a span taken by one pattern is not read again by a later one.
_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        # "7 pm", "7:30pm", "7.30 p.m."
        rf"(?<![\w:.,])(?P<h>1[0-2]|0?[1-9])(?:[:.](?P<m>[0-5]\d))?\s?{_HALF}",
        # "19:00", "07:30"; not a timestamp ("00:12:34") nor a ratio of longer numbers
        r"(?<![\w:.,])(?P<h24>[01]?\d|2[0-3]):(?P<m>[0-5]\d)(?![\d:]|[.,]\d)",
        r"\b(?P<noon>noon|midday|midnight)\b",
        rf"\b(?:(?P<h>1[0-2]|0?[1-9])|{_HOUR_WORD})\s+o'?\s?clock\b(?:\s+{_PART_OF_DAY})?",
        rf"\b{_HOUR_WORD}(?:\s+{_HALF}|\s+{_PART_OF_DAY})",
    )
)
# Where a bare hour is a time: "at 7", "until 9", "from 8 to 10".
_BARE_HOUR = re.compile(
    r"\b(?:at|by|until|till|from|to|before|after|around|about|past)\s+"
    r"(?:(?P<h>1[0-2]|0?[1-9])(?![\w%:.,]|\s*(?:[%$€£]|per\b|percent\b|times\b))|"
    + _HOUR_WORD
    + r"\b)",
    re.IGNORECASE,
)
_EVENING = ("afternoon", "evening", "night", "tonight")


@dataclass(frozen=True)
class ClockTime:
    """A time of day as written: ``minutes`` after midnight for each reading it allows, or
    the hour on a 12-hour dial only (``minutes`` empty) where the half and minutes are not
    given."""

    text: str
    start: int
    end: int
    minutes: frozenset[int]
    dial_hour: int  # 1-12


def find_times(text: str) -> list[ClockTime]:
    """Every time of day in ``text`` (already normalised), in reading order, no overlaps."""
    taken = bytearray(len(text))
    found: list[ClockTime] = []
    for pattern in _PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(taken[start:end]):
                continue
            taken[start:end] = b"\x01" * (end - start)
            found.append(_read(match))
    return sorted(found, key=lambda t: t.start)


def _read(match: re.Match[str]) -> ClockTime:
    groups = match.groupdict()
    text, start, end = match.group(0).rstrip("."), match.start(), match.end()
    if groups.get("noon"):
        at = 0 if groups["noon"].casefold() == "midnight" else 12 * 60
        return ClockTime(text, start, end, frozenset({at}), 12)
    minute = int(groups["m"]) if groups.get("m") else 0
    if groups.get("h24") is not None:
        hour = int(groups["h24"])
        # "7:30" in running text may be either half of the day; "19:30" and "07:30" not.
        readings = {hour * 60 + minute}
        if 1 <= hour <= 12 and not groups["h24"].startswith("0"):
            readings.add((hour % 12 + 12) * 60 + minute)
            readings.add((hour % 12) * 60 + minute)
        return ClockTime(text, start, end, frozenset(readings), hour % 12 or 12)
    hour = _hour(groups.get("h"), groups.get("hw"))
    half = (groups.get("half") or "").casefold()
    part = (groups.get("part") or "").casefold()
    if not (half or groups.get("m") or part):
        return ClockTime(text, start, end, frozenset(), hour)  # "seven o'clock": the hour only
    morning, evening = (hour % 12) * 60 + minute, (hour % 12 + 12) * 60 + minute
    if half.startswith("p") or any(word in part for word in _EVENING):
        readings = {evening}
    elif half.startswith("a") or "morning" in part:
        readings = {morning}
    else:
        readings = {morning, evening}
    return ClockTime(text, start, end, frozenset(readings), hour)


def _hour(digits: str | None, word: str | None) -> int:
    """The hour on the dial, written in digits or as a word."""
    return int(digits) if digits else _HOUR_WORDS.index(str(word).casefold()) + 1


@dataclass(frozen=True)
class _Evidence:
    minutes: frozenset[int]
    dial_hours: frozenset[int]  # hours given without minutes or half: "at 7", "7 o'clock"


@lru_cache(maxsize=16)
def _evidence(evidence: str) -> _Evidence:
    """The times of a cited evidence text, found once per text, not once per claim."""
    text = normalise(evidence)
    times = find_times(text)
    minutes = frozenset(m for t in times for m in t.minutes)
    dial = {t.dial_hour for t in times if not t.minutes}

    def in_a_time(offset: int) -> bool:
        # The hour of "at 9 pm" is that time's, not a bare hour that either half may take.
        return any(t.start <= offset < t.end for t in times)

    dial.update(
        _hour(bare.group("h"), bare.group("hw"))
        for bare in _BARE_HOUR.finditer(text)
        if not in_a_time(bare.start("h") if bare.group("h") else bare.start("hw"))
    )
    # A plain number of the dial counts too ("Let's make it 7."), as it did for the number
    # check before times were read apart: not a measure, a count of things, an ordinal.
    dial.update(
        int(q.value)
        for q in evidence_quantities(evidence)
        if not in_a_time(q.start)
        and q.checkable
        and q.unit is None
        and not (q.counts or q.ordinal or q.scale)
        and q.value == q.value.to_integral_value()
        and 1 <= q.value <= 12
    )
    return _Evidence(minutes, frozenset(dial))


def _holds(time: ClockTime, evidence: _Evidence) -> bool:
    if not time.minutes:
        return time.dial_hour in evidence.dial_hours or any(
            (m // 60) % 12 == time.dial_hour % 12 for m in evidence.minutes
        )
    if time.minutes & evidence.minutes:
        return True
    # An hour the evidence gives bare ("at 7") bears out "7 pm", not "7:30 pm".
    return all(m % 60 == 0 for m in time.minutes) and time.dial_hour in evidence.dial_hours


class TimeCheck:
    """Fails a claim naming a time of day the evidence does not."""

    name: str = "times"

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None:
        times = find_times(normalise(claim))
        if not times:
            return None
        context = _evidence(evidence)
        absent = [t.text for t in times if not _holds(t, context)]
        if absent:
            return missing(
                self.name, Label.DATE_MISMATCH, "Times", absent, how="compared as times of day"
            )
        return passed(self.name, "Every time of the claim was")
