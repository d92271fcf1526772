"""Periods: the stretch of time a value is stated for, compared by meaning.

A period is a date the text names (a day, a month, a quarter, a half, a year, a fiscal year,
two consecutive years naming one season, a decade or part of one, a century), or a period
named relative to the one a sentence is about ("a year earlier", "the same period last
year"). Two periods *conflict* when they cannot be the same stretch of time: the second and
third quarters of 2024, the 2022-23 and 2023-24 seasons, the early and the late 1920s. Periods
that may be the same (a year and a quarter of it, a fiscal and a calendar year of the same
number, a season and one of its two years) do not.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from functools import cache

from judge.reading import lexicon
from judge.reading.values.dates import DateMention

__all__ = ["Period", "conflict", "describe", "of_date", "relative_periods"]

_PART_YEARS = {"early": (0, 3), "mid": (3, 6), "late": (6, 9)}


@dataclass(frozen=True)
class Period:
    """A stretch of time, from the first day to the last (ordinals of ``datetime.date``), or
    a number of years before or after the period of the sentence (``relative``)."""

    text: str
    start: int  # offsets of its words in the text read
    end: int
    first: int = 0
    last: int = 0
    fiscal: bool = False
    season: int | None = None  # the first year of a season named by two years
    relative: int | None = None  # years from the sentence's own period ("a year earlier": -1)
    grain: str = "year"
    # A month, quarter or half named without its year ("in November", "the second quarter").
    month: int | None = None
    quarter: int | None = None
    half: int | None = None

    @property
    def yearless(self) -> bool:
        return self.month is not None or self.quarter is not None or self.half is not None

    @property
    def absolute(self) -> bool:
        return self.relative is None


def of_date(date: DateMention) -> Period | None:
    """The period a date names: a stretch of a named year (directly, or through its decade or
    century), or a month, quarter or half named without its year; a weekday names none."""
    bounds = _bounds(date)
    if bounds is None:
        if _yearless(date):
            return Period(
                date.text,
                date.start,
                date.end,
                fiscal=date.fiscal,
                month=None if date.quarter or date.half else date.month,
                quarter=date.quarter,
                half=date.half,
                grain="part of a year",
            )
        return None
    first, last, grain = bounds
    return Period(
        date.text,
        date.start,
        date.end,
        first=first.toordinal(),
        last=last.toordinal(),
        fiscal=date.fiscal,
        season=date.season,
        grain=grain,
    )


def _yearless(date: DateMention) -> bool:
    """A month, quarter or half named without its year (nor a day or a weekday)."""
    if date.year is not None or date.weekday is not None or date.day is not None:
        return False
    return date.quarter is not None or date.half is not None or date.month is not None


def _bounds(date: DateMention) -> tuple[dt.date, dt.date, str] | None:
    if date.decade is not None and date.decade >= 1000:
        low, high = _PART_YEARS.get(date.part or "", (0, 9))
        return (*_years(date.decade + low, date.decade + high), "decade")
    if date.century is not None:
        base = (date.century - 1) * 100
        low, high = _PART_YEARS.get(date.part or "", (0, 9))
        return (*_years(base + 10 * low, base + 10 * high + 9), "century")
    year = date.year
    if year is None or not 1 <= year <= 9998:
        return None
    if date.season is not None:
        return (*_years(date.season, date.season + 1), "season")
    if date.quarter is not None:
        months = (3 * date.quarter - 2, 3 * date.quarter)
        return (*_months(year, *months), "quarter")
    if date.half is not None:
        months = (1, 6) if date.half == 1 else (7, 12)
        return (*_months(year, *months), "half")
    if date.month is None:
        return (*_years(year, year), "year")
    if date.day is None:
        return (*_months(year, date.month, date.month), "month")
    try:
        day = dt.date(year, date.month, date.day)
    except ValueError:
        return None
    return (day, day, "day")


def _years(first: int, last: int) -> tuple[dt.date, dt.date]:
    return dt.date(max(first, 1), 1, 1), dt.date(min(last, 9998), 12, 31)


def _months(year: int, first: int, last: int) -> tuple[dt.date, dt.date]:
    end = dt.date(year + 1, 1, 1) if last == 12 else dt.date(year, last + 1, 1)
    return dt.date(year, first, 1), end - dt.timedelta(days=1)


@cache
def _relative_pattern() -> re.Pattern[str]:
    words = {w: int(e.value) for e in lexicon.entries("frames") if e.name == "relative_period"
             for w in e.words}  # fmt: skip
    return re.compile(rf"\b(?:{lexicon.alternation(words)})\b", re.IGNORECASE)


@cache
def _relative_years() -> dict[str, int]:
    return {
        " ".join(word.casefold().split()): int(entry.value)
        for entry in lexicon.entries("frames")
        if entry.name == "relative_period"
        for word in entry.words
    }


# Words before a relative period that make it the base of a change, not a value's period.
_COMPARED_FROM = re.compile(
    r"\b(?:from|over|than|versus|vs\.?|since|compared\s+(?:with|to))\s+$", re.IGNORECASE
)


def relative_periods(text: str, offset: int = 0) -> list[Period]:
    """The periods ``text`` names relative to its own ("compared with $1.05 a year earlier",
    "the prior-year quarter"), with offsets shifted by ``offset``."""
    years = _relative_years()
    found = []
    for match in _relative_pattern().finditer(text):
        if _COMPARED_FROM.search(text[max(0, match.start() - 20) : match.start()]):
            continue  # "rose 50% from a year earlier": what a change is taken from
        key = " ".join(match.group(0).casefold().replace("-", " ").split())
        step = years.get(key, years.get(" ".join(match.group(0).casefold().split()), -1))
        found.append(
            Period(
                match.group(0),
                offset + match.start(),
                offset + match.end(),
                relative=step,
                grain="relative",
            )
        )
    return found


def resolved(period: Period, reference: Period | None) -> Period:
    """A relative period made absolute against the sentence's own (a year earlier than the
    third quarter of 2024 is the third quarter of 2023); unchanged when it cannot be."""
    if period.absolute or reference is None or not reference.absolute:
        return period
    years = period.relative or 0
    first, last = dt.date.fromordinal(reference.first), dt.date.fromordinal(reference.last)
    try:
        first, last = first.replace(year=first.year + years), last.replace(year=last.year + years)
    except ValueError:  # 29 February
        first, last = (
            first.replace(day=28, year=first.year + years),
            last.replace(day=28, year=last.year + years),
        )
    return Period(
        period.text,
        period.start,
        period.end,
        first=first.toordinal(),
        last=last.toordinal(),
        fiscal=reference.fiscal,
        season=None if reference.season is None else reference.season + years,
        grain=reference.grain,
    )


def conflict(claim: Period, evidence: Period) -> bool:
    """Whether two periods cannot be the same stretch of time. A relative period conflicts
    with an absolute one only once resolved (:func:`resolved`); two relative ones when they
    count a different number of years back; a fiscal period is compared only with a fiscal
    one (a fiscal year need not start in January)."""
    if claim.yearless or evidence.yearless:
        # A month, quarter or half named without its year: another one of the year, or none
        # to compare.
        return _part_conflict(claim, evidence)
    if not claim.absolute or not evidence.absolute:
        return not claim.absolute and not evidence.absolute and claim.relative != evidence.relative
    if claim.fiscal != evidence.fiscal:
        return False
    if claim.season is not None and evidence.season is not None:
        return claim.season != evidence.season
    if claim.season is not None or evidence.season is not None:
        # A season named by one of its years ("the 2023 season" for 2022-23) may be it.
        return claim.last < evidence.first or evidence.last < claim.first
    return claim.last < evidence.first or evidence.last < claim.first


def _part_conflict(claim: Period, evidence: Period) -> bool:
    for part in ("quarter", "half", "month"):
        mine, theirs = _part(claim, part), _part(evidence, part)
        if mine is not None and theirs is not None:
            return mine != theirs
    return False


def _part(period: Period, part: str) -> int | None:
    """The period's month, quarter or half of its year, where it is one (or lies in one)."""
    named: int | None = getattr(period, part)
    if named is not None or period.yearless or not period.absolute:
        return named
    first, last = dt.date.fromordinal(period.first), dt.date.fromordinal(period.last)
    if first.year != last.year or period.fiscal:
        return None
    if part == "month":
        return first.month if first.month == last.month else None
    if part == "quarter":
        quarter = (first.month - 1) // 3 + 1
        return quarter if (last.month - 1) // 3 + 1 == quarter else None
    half = 1 if first.month <= 6 else 2
    return half if (1 if last.month <= 6 else 2) == half else None


def describe(period: Period) -> str:
    """The period as the text wrote it."""
    return period.text
