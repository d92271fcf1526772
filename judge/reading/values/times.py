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
_TWENTY_FOUR_HOUR = re.compile(r"(?<![\w:.,])(?:0\d|1[3-9]|2[0-3]):[0-5]\d(?![\d:])")
# Languages that write the hour on a 24-hour dial with a word or letter after it: "15 Uhr",
# "15.30 Uhr", "8 h 30", "10h", "15 horas"; Chinese and Japanese after the hour's character,
# with the half of the day before it ("下午3点", "午後3時半"). ``hl`` is such an hour.
_LOCAL_HOUR = r"(?P<hl>[01]?\d|2[0-3])"
_MINUTES = r"(?P<m>[0-5]\d)"


# The hour and minutes joined by a dot, or the hour with the word for hours, read only after a
# word that says a time of day follows ("alle 18.05", "в 23.15", "à 14 heures", "a las 15
# horas"): elsewhere "18.05" is a number and "14 heures" a duration.
_DOTTED = rf"{_LOCAL_HOUR}\.{_MINUTES}(?![\d.,]\d)"


def _after_cue(cues: tuple[str, ...], time: str) -> str:
    after = "|".join(rf"(?<=\b{re.escape(cue)}\s)" for cue in cues)
    return rf"(?:{after}){time}"


def _hours(word: str) -> str:
    return rf"{_LOCAL_HOUR}(?:[.:]{_MINUTES})?\s?{word}\b"


_NL_PART = r"(?:\s+'s\s+(?:(?P<am>ochtends)|(?P<pm>middags|avonds)))?"
# The first hour of a range whose second carries the word for the hour: "17 bis 19 Uhr",
# "de 8.30 a 14.30 h", "van 9 tot 17 uur".
_RANGE_START: dict[str, re.Pattern[str]] = {
    language: re.compile(
        rf"(?<![\w:.,]){_LOCAL_HOUR}(?:[.:]{_MINUTES})?(?=\s*(?:-|–|{joins})\s*\Z)",
        re.IGNORECASE,
    )
    for language, joins in {
        "de": "bis", "nl": "tot", "fr": "à|au", "es": "a|hasta", "pt": "a|às|até",
        "it": "a|alle", "ru": "до",
    }.items()
}  # fmt: skip


_LOCAL_PATTERNS: dict[str, tuple[re.Pattern[str], ...]] = {
    language: tuple(re.compile(pattern, re.IGNORECASE) for pattern in patterns)
    for language, patterns in {
        "de": (rf"(?<![\w:.,]){_LOCAL_HOUR}(?:[.:]{_MINUTES})?\s?Uhr\b",),
        "nl": (rf"(?<![\w:.,]){_LOCAL_HOUR}(?:[.:]{_MINUTES})?\s?uur\b{_NL_PART}",
               # "half vijf" is half past four: half an hour before the hour named.
               rf"\bhalf\s+(?P<before_hour>1[0-2]|[1-9])\b{_NL_PART}"),
        "fr": (rf"(?<![\w:.,]){_LOCAL_HOUR}\s?h\s?{_MINUTES}?(?!\w)",
               _after_cue(("à", "vers", "dès", "jusqu'à"), _hours("heures?"))),
        "es": (rf"(?<![\w:.,]){_LOCAL_HOUR}(?:[.:]{_MINUTES})?\s?h(?!\w)",
               _after_cue(("las", "la"), _hours("horas?"))),
        "pt": (rf"(?<![\w:.,]){_LOCAL_HOUR}\s?h\s?{_MINUTES}?(?!\w)",
               _after_cue(("às", "as", "das", "até"), _hours("horas?"))),
        "it": (_after_cue(("alle", "dalle", "le", "ore"), _DOTTED),),
        "ru": (_after_cue(("в", "до", "с", "к"), _DOTTED),),
        "zh": (rf"(?P<pm>下午|晚上|傍晚|午后)?(?P<am>上午|早上|凌晨)?{_LOCAL_HOUR}"
               rf"(?:\s?[点點时時](?:(?P<m>[0-5]?\d)分|(?P<half_hour>半))?|:(?P<mc>[0-5]\d))",),
        "ja": (rf"(?P<pm>午後)?(?P<am>午前)?{_LOCAL_HOUR}"
               rf"(?:\s?時(?:(?P<m>[0-5]?\d)分|(?P<half_hour>半))?|:(?P<mc>[0-5]\d))",),
    }.items()
}  # fmt: skip


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


def find_times(text: str, language: str = "en") -> list[ClockTime]:
    """Every time of day in ``text`` (already normalised), in reading order, no overlaps;
    the 24-hour dial of the colon ("19:00") is read in every language, the words around an
    hour in the text's own ("7 pm" in English, "19 Uhr" in German)."""
    taken = bytearray(len(text))
    found: list[ClockTime] = []
    english = language in {"en", "und"}
    patterns = _PATTERNS if english else _PATTERNS[1:2]
    # A text that writes "20:00" or "07:30" tells the time on a 24-hour dial: its "9:00" is
    # nine in the morning.
    twelve_hour = english and not _TWENTY_FOUR_HOUR.search(text)
    # A language's own patterns first: "下午5:30" is half past five in the afternoon.
    for pattern in (*_LOCAL_PATTERNS.get(language, ()), *patterns):
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(taken[start:end]):
                continue
            taken[start:end] = b"\x01" * (end - start)
            found.append(_read(match, twelve_hour=twelve_hour))
            if (first := _range_start(text, start, language)) is not None and not any(
                taken[first.start() : first.end()]
            ):
                taken[first.start() : first.end()] = b"\x01" * (first.end() - first.start())
                found.append(_read(first, twelve_hour=False))
    return sorted(found, key=lambda t: t.start)


def _range_start(text: str, start: int, language: str) -> re.Match[str] | None:
    pattern = _RANGE_START.get(language)
    if pattern is None:
        return None
    return pattern.search(text, max(0, start - 16), start)


def _read(match: re.Match[str], twelve_hour: bool = True) -> ClockTime:
    groups = match.groupdict()
    text, start, end = match.group(0).rstrip("."), match.start(), match.end()
    if groups.get("noon"):
        at = 0 if groups["noon"].casefold() == "midnight" else 12 * 60
        return ClockTime(text, start, end, frozenset({at}), 12)
    written = groups.get("m") or groups.get("mc")
    minute = int(written) if written else 30 if groups.get("half_hour") else 0
    if groups.get("before_hour") is not None:
        hour = int(groups["before_hour"]) - 1
        hour += 12 if groups.get("pm") and hour < 12 else 0
        return ClockTime(text, start, end, frozenset({hour * 60 + 30}), hour % 12 or 12)
    if groups.get("hl") is not None:
        hour = int(groups["hl"])
        if groups.get("pm") and hour < 12:
            hour += 12
        return ClockTime(text, start, end, frozenset({hour * 60 + minute}), hour % 12 or 12)
    if groups.get("h24") is not None:
        hour = int(groups["h24"])
        # "7:30" in English running text may be either half of the day; "19:30" and "07:30"
        # not, nor any hour in a language that tells the time on a 24-hour dial.
        readings = {hour * 60 + minute}
        if twelve_hour and 1 <= hour <= 12 and not groups["h24"].startswith("0"):
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
