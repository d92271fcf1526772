"""Finding times of day in normalised text: "7 pm", "7:30 p.m.", "19:00", "noon", "seven
o'clock in the evening"; and the bare hours a text gives where an hour is meant ("at 7")."""

from __future__ import annotations

import re
from dataclasses import dataclass

from judge.reading import lexicon

__all__ = ["BARE_HOUR", "ClockTime", "find_times", "hour_of"]

# The hours of the dial in words: the number words for one to twelve, in order.
_HOUR_WORDS = tuple(
    word
    for hour in range(1, 13)
    for entry in lexicon.entries("number_words")
    if entry.name == "unit" and entry.value == str(hour)
    for word in entry.words
)
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
BARE_HOUR = re.compile(
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
    hour = hour_of(groups.get("h"), groups.get("hw"))
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


def hour_of(digits: str | None, word: str | None) -> int:
    """The hour on the dial, written in digits or as a word."""
    return int(digits) if digits else _HOUR_WORDS.index(str(word).casefold()) + 1
