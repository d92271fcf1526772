"""Values stated of another fact, and values restated: the exact checks on edits of real claims.

Swaps. In every supported claim of the public pairs (``../shared/data/public``) and the dev set
(``../shared/data/dev``), each value the claim's evidence also states (an amount, a percentage, a
number with its unit, a count of a noun, a date, a month, a year, a quarter, a fiscal year, a
season, a decade) is replaced by another value of the same kind (same currency and scale, same
unit, same noun) that the same evidence states of another fact. The swapped claim is wrong, and
every word of it is in the evidence: each one the checks let pass is a miss. A swap is sorted by
what differs between the two facts, read from the words next to each value in the evidence
(each word goes to the value nearest to it in its sentence; a qualifier fronted before a comma
goes to every value after it):

    basis    adjusted, GAAP, excluding, constant currency, reported, diluted ... differ
    period   the value is itself a date or period, or the period words next to the two values
             (years, quarters, months, "a year earlier", "up from" ...) differ
    entity   the names or group words (plan, tier, arm, women, children ...) next to them differ
    metric   none of these: another measure of the same kind

Restatements. Values the evidence states, written another way that keeps the meaning: dates in
other layouts, ranges, comparators, quarters, fiscal years, seasons and percentages in other
words, conversions (hours and minutes, kilometres and metres, kilograms and grams, basis and
percentage points), and derivations that hold (two levels of one measure "from X% to Y%" as
their difference in percentage points, two amounts as their percent change, both rounded to the
precision of the levels). They are built from the supported claims and, so that the rarer
patterns are measured at all, from evidence sentences of the same records (each checked against
its record's evidence; at most ``--per-kind`` of each kind, drawn with the seed). Each flag is a
false flag.

Both are checked with all of the record's passages joined as ``checks.py`` joins them, by the
default checks in pipeline order, without a judge; any check that fails or asks for review is a
flag. The unedited text is checked too, so that the report tells flags the edit caused from
flags the text had already. Reported per kind, per sort of value, per source dataset; for swaps
also what the flag said: a conflict (the label ``contradicted`` or the finding conflict), absent,
or review (derived, or any other reason).

The figures are compared with the committed ones (``gates/expected/value_swaps.json``, or
``--expected FILE``), and the command exits 1 when the share of swaps caught falls by more than
0.5 points, or the share of restatements flagged rises by more than 0.5 points, in all or for a
kind, sort or dataset with at least 50 cases, or when the cases are no longer the same ones (a
changed builder or data set: rewrite the figures). The edits are seeded and built without the
checks, so they do not move when a check changes.

    python -m benchmarks.gates.value_swaps              # dev and public
    python -m benchmarks.gates.value_swaps --quick      # dev and every tenth public record
    python -m benchmarks.gates.value_swaps --cases FILE # also write the cases built (JSON Lines)

Judge: none. Time on the 2-core development machine: see ``CHECKS.md`` ("Value swaps").
"""

from __future__ import annotations

import collections
import functools
import itertools
import json
import random
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from decimal import Decimal
from pathlib import Path
from typing import Any

from benchmarks.common import (
    DEV_CLAIMS,
    PUBLIC_CLAIMS,
    GateResult,
    compared_with,
    expected_file,
    finding_kind,
    finish,
    first_flag,
    gate_parser,
    joined_evidence,
    judged,
    measured,
    missing_data,
    percent,
    read_expected,
    read_jsonl,
    skipped,
)
from judge.pipeline.checks import default_checks
from judge.protocols import Check
from judge.reading.lexicon import alternation
from judge.schemas import CheckOutcome, CheckStatus, Finding, Label

NAME = "value_swaps"
DATA = {"dev": DEV_CLAIMS, "public": PUBLIC_CLAIMS}
# Points the share of swaps caught may fall, and the share of restatements flagged may rise.
SWAP_TOLERANCE = 0.5
RESTATEMENT_TOLERANCE = 0.5
# A kind, sort or dataset is gated alone only with this many cases.
MIN_GATED = 50
# Restatements built from evidence sentences, at most this many of each kind (quick: a fifth).
PER_KIND = 100
# Swaps in evidence sentences, at most this many of each sort of value (quick: a fifth).
PER_SORT = 150
# A quick run keeps every tenth public record (and the whole dev set).
QUICK_STRIDE = 10

# --- reading values ------------------------------------------------------------------------------
# Written for this gate alone, not taken from judge/reading: the cases must not move when the
# reading they measure changes.

MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August"]
MONTH_NAMES += ["September", "October", "November", "December"]
_MONTHS = {name.casefold(): number for number, name in enumerate(MONTH_NAMES, 1)}
_MONTHS |= {name[:3].casefold(): n for name, n in zip(MONTH_NAMES, range(1, 13), strict=True)}
_MONTHS["sept"] = 9
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4}
_SMALL = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
_SMALL += "fifteen sixteen seventeen eighteen nineteen twenty"
_TENS = {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80}
_TENS["ninety"] = 90
NUMBER_WORDS = {word: n for n, word in enumerate(_SMALL.split())} | _TENS
CURRENCIES = {
    "$": "$", "us$": "$", "usd": "$", "dollar": "$", "dollars": "$", "€": "€", "eur": "€",
    "euro": "€", "euros": "€", "£": "£", "gbp": "£", "¥": "¥", "jpy": "¥", "yen": "¥", "₹": "₹",
    "inr": "₹", "rupees": "₹", "c$": "C$", "a$": "A$", "hk$": "HK$", "nz$": "NZ$",
}  # fmt: skip
SCALES = {
    "thousand": "thousand", "k": "thousand", "million": "million", "mn": "million",
    "mln": "million", "m": "million", "billion": "billion", "bn": "billion", "b": "billion",
    "trillion": "trillion", "tn": "trillion",
}  # fmt: skip
PERCENT_UNITS = {
    "%": "%", "percent": "%", "per cent": "%", "percentage point": "pp",
    "percentage points": "pp", "pp": "pp", "basis point": "bp", "basis points": "bp",
    "bps": "bp", "bp": "bp",
}  # fmt: skip
# Units written out (any case) and symbols (case as written), each to one name.
UNIT_WORDS = {
    "second": "s", "seconds": "s", "sec": "s", "secs": "s", "minute": "min", "minutes": "min",
    "min": "min", "mins": "min", "hour": "h", "hours": "h", "hr": "h", "hrs": "h", "day": "day",
    "days": "day", "week": "week", "weeks": "week", "month": "month", "months": "month",
    "year": "year", "years": "year", "decade": "decade", "decades": "decade",
    "kilometre": "km", "kilometres": "km", "kilometer": "km", "kilometers": "km", "metre": "m",
    "metres": "m", "meter": "m", "meters": "m", "centimetres": "cm", "centimeters": "cm",
    "millimetres": "mm", "millimeters": "mm", "mile": "mi", "miles": "mi", "feet": "ft",
    "foot": "ft", "inch": "in", "inches": "in", "kilogram": "kg", "kilograms": "kg",
    "gram": "g", "grams": "g", "milligram": "mg", "milligrams": "mg", "tonne": "t",
    "tonnes": "t", "tons": "t", "litre": "l", "litres": "l", "liter": "l", "liters": "l",
    "millilitres": "ml", "milliliters": "ml", "acres": "acre", "hectares": "ha",
    "degrees": "deg", "mph": "mph",
}  # fmt: skip
UNIT_SYMBOLS = {
    "km": "km", "m": "m", "cm": "cm", "mm": "mm", "mi": "mi", "ft": "ft", "kg": "kg", "g": "g",
    "mg": "mg", "µg": "µg", "mcg": "µg", "lb": "lb", "lbs": "lb", "ml": "ml", "mL": "ml",
    "L": "l", "h": "h", "°C": "°C", "°F": "°F", "km/h": "km/h", "GB": "GB", "MB": "MB",
    "TB": "TB", "MW": "MW", "GW": "GW", "kW": "kW", "kWh": "kWh", "TWh": "TWh",
}  # fmt: skip
# Words after a number that do not make it a count of something.
NOT_NOUNS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "and",
        "or",
        "to",
        "in",
        "on",
        "at",
        "for",
        "by",
        "with",
        "from",
        "as",
        "is",
        "was",
        "are",
        "were",
        "be",
        "been",
        "has",
        "have",
        "had",
        "will",
        "would",
        "can",
        "could",
        "may",
        "might",
        "that",
        "which",
        "who",
        "this",
        "these",
        "those",
        "it",
        "its",
        "than",
        "then",
        "per",
        "out",
        "up",
        "down",
        "off",
        "over",
        "under",
        "about",
        "after",
        "before",
        "during",
        "into",
        "onto",
        "upon",
        "more",
        "less",
        "most",
        "least",
        "also",
        "not",
        "no",
        "new",
        "old",
        "other",
        "others",
        "each",
        "every",
        "all",
        "both",
        "some",
        "any",
        "such",
        "only",
        "just",
        "even",
        "still",
        "times",
        "time",
        "percent",
        "per",
        "cent",
        "point",
        "points",
    ]
)
TIME_SORTS = frozenset({"date", "month", "year", "quarter", "fiscal", "season", "decade"})

_NUM = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
# A number starts after no letter, digit or decimal mark, and after a hyphen only when a digit
# stands before it (a range: "3-5"), not a letter (a name: "COVID-19").
_START = r"(?<![\w.,/:$€£¥])(?<![A-Za-z]-)"
_END = r"(?![\d]|[.,]\d)"
_MON = rf"(?:{alternation(MONTH_NAMES)}|(?:Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?)"
_YEAR = r"(?:1[5-9]\d\d|20\d\d)"
_WORD_NUMBER = rf"\b(?:{alternation(NUMBER_WORDS)})\b"
_CURRENCY_SIGN = r"(?:US\$|C\$|A\$|HK\$|NZ\$|\$|€|£|¥|₹)"
_CURRENCY_WORD = r"(?:dollars?|euros?|yen|rupees|USD|EUR|GBP|JPY|INR)\b"
_SCALE = rf"(?:{alternation(['thousand', 'million', 'billion', 'trillion'])}|bn|mn|mln|tn)\b"
_SCALE_SHORT = r"(?-i:[kmbMB])\b"
_PERCENT = rf"(?:%|(?:{alternation(k for k in PERCENT_UNITS if k != '%')})\b)"
_UNIT = (
    rf"(?:(?:{alternation(UNIT_WORDS)})\b|(?-i:(?:{alternation(UNIT_SYMBOLS, any_space=False)}))"
    r"(?![\w/]))"
)

VALUE = re.compile(
    "|".join(
        [
            # dates: "May 1, 2019", "1 May 2019", "2019-05-01", "2019.05.01", "May 2019"
            rf"(?P<mdy>\b(?P<m1>{_MON})\s+(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?(?P<c1>\s?,)?\s+(?P<y1>{_YEAR})\b)",
            rf"(?P<dmy>\b(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m2>{_MON}),?\s+(?P<y2>{_YEAR})\b)",
            rf"(?P<ymd>(?<![\w./:-])(?P<y3>{_YEAR})(?P<sep>[-./])(?P<m3>0?[1-9]|1[0-2])(?P=sep)(?P<d3>[0-3]?\d)\b(?![./-]?\d))",
            rf"(?P<my>\b(?P<m4>{_MON}),?\s+(?:of\s+)?(?P<y4>{_YEAR})\b)",
            # quarters: "third quarter of 2024", "Q3 2024", "3Q24"; "fiscal 2022", "FY2022"
            rf"(?P<qw>\b(?P<qo>first|second|third|fourth)[\s-]quarter(?:\s+(?:of\s+)?(?:fiscal\s+)?(?:year\s+)?(?P<qy1>{_YEAR}))?)",
            rf"(?P<qq>\bQ(?P<qn1>[1-4])(?:\s*|[-/])(?:FY\s?|fiscal\s+)?'?(?P<qy2>{_YEAR}|\d\d)?\b)",
            r"(?P<qs>\b(?P<qn2>[1-4])Q\s?'?(?P<qy3>\d\d(?:\d\d)?)\b)",
            r"(?P<fy>\b(?:FY\s?'?|fiscal\s+(?:year\s+)?)(?P<fyy>\d{4}|\d\d)\b)",
            # seasons: "2019-20", "2019–2020"; decades: "the early 1990s"
            rf"(?P<season>\b(?P<s1>{_YEAR})(?P<ssep>[-–/])(?P<s2>\d\d|{_YEAR})\b(?![-–/]\d))",
            r"(?P<decade>\b(?:(?P<part>early|mid|late)[\s-]+)?(?P<dy>(?:1[5-9]|20)\d0)'?s\b)",
            # amounts: "$35.1 billion", "US$3m", "35 million dollars"
            rf"(?P<money>(?P<cur>{_CURRENCY_SIGN})\s?(?P<mn>{_NUM}){_END}(?:\s?(?P<ms>{_SCALE}|{_SCALE_SHORT}))?)",
            rf"(?P<money2>{_START}(?P<mn2>{_NUM}){_END}\s?(?:(?P<ms2>{_SCALE})\s)?(?P<cur2>{_CURRENCY_WORD}))",
            # percentages and points: "12%", "12 percent", "2.4 percentage points", "25 bps"
            rf"(?P<percent>{_START}(?P<pn>{_NUM}){_END}\s?(?P<pu>{_PERCENT}))",
            # numbers with a unit: "45 km", "2 hours", "three weeks"
            rf"(?P<quantity>(?:{_START}(?P<un>{_NUM}){_END}|(?P<uw>{_WORD_NUMBER}))[\s-]?(?P<uu>{_UNIT}))",
            # years
            rf"(?P<year>{_START}(?P<yy>{_YEAR}){_END}(?![-–]\d))",
            # counts: "300 patients", "2.5 million people", "three goals"
            rf"(?P<count>(?:{_START}(?P<cn>{_NUM}){_END}|(?P<cw>{_WORD_NUMBER}))(?:\s(?P<cs>{_SCALE}))?\s(?P<noun>(?-i:[a-z][a-z-]+[a-z])))",
            # any other number, read only to find ranges
            rf"(?P<number>{_START}(?P<nn>{_NUM}){_END})",
        ]
    ),
    re.I,
)


@dataclass(frozen=True)
class Value:
    """One value of a text: where it stands, its sort and unit, and what it amounts to."""

    start: int
    end: int
    sort: str  # money, percent, quantity, count, year, date, month, quarter, fiscal, season ...
    unit: str  # the currency and scale, unit or noun; "" where the sort says it all
    amount: tuple[float, ...]  # the number; (year, month, day); (quarter, year) ...
    text: str
    # Where the number itself stands (a swap replaces it and keeps the unit as the text wrote
    # it); None for dates and periods, replaced whole.
    number: tuple[int, int] | None = None
    layout: str = ""  # how a date, quarter or percentage is written

    @property
    def key(self) -> Key:
        return self.sort, self.unit, self.amount


def to_number(text: str) -> float:
    folded = text.casefold()
    if folded in NUMBER_WORDS:
        return float(NUMBER_WORDS[folded])
    return float(text.replace(",", ""))


def full_year(text: str) -> float:
    year = int(text.lstrip("'"))
    return float(year + 2000 if year < 100 else year)


def noun_stem(noun: str) -> str:
    word = noun.casefold()
    for ending in ("ies", "es", "s"):
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[: -len(ending)] + ("y" if ending == "ies" else "")
    return word


def _value(match: re.Match[str]) -> Value | None:
    """The value a match of ``VALUE`` reads, or None (a count of a word that is no noun, a
    span of years, a day past 31)."""
    g = match.group
    whole = match.lastgroup or ""

    def made(sort: str, amount: tuple[float, ...], unit: str = "", layout: str = "") -> Value:
        return Value(match.start(), match.end(), sort, unit, amount, g(0), layout=layout)

    def numeric(sort: str, unit: str, name: str, layout: str = "") -> Value:
        amount = (to_number(g(name)),)
        return Value(match.start(), match.end(), sort, unit, amount, g(0), match.span(name), layout)

    if whole in {"mdy", "dmy", "ymd"}:
        index = "123"[["mdy", "dmy", "ymd"].index(whole)]
        year, day, written = g(f"y{index}"), g(f"d{index}"), g(f"m{index}")
        month = int(written) if written.isdigit() else _MONTHS[written.rstrip(".").casefold()]
        if not 1 <= int(day) <= 31:
            return None
        layout = whole + (":comma" if whole == "mdy" and g("c1") else "")
        layout += f":{g('sep')}" if whole == "ymd" else ""
        return made("date", (float(year), float(month), float(day)), layout=layout)
    if whole == "my":
        return made("month", (float(g("y4")), float(_MONTHS[g("m4").rstrip(".").casefold()])))
    if whole in {"qw", "qq", "qs"}:
        number = _ORDINALS[g("qo").casefold()] if whole == "qw" else int(g("qn1") or g("qn2"))
        year = g("qy1") or g("qy2") or g("qy3")
        return made("quarter", (float(number), full_year(year) if year else 0.0), layout=whole)
    if whole == "fy":
        layout = "fy" if g(0).upper().startswith("FY") else "fiscal"
        return made("fiscal", (full_year(g("fyy")),), layout=layout)
    if whole == "season":
        first, second = int(g("s1")), int(g("s2"))
        if (first + 1) % (100 if second < 100 else 10_000) != second:
            return None
        return made("season", (float(first),), layout=g("ssep"))
    if whole == "decade":
        return made("decade", (float(g("dy")),), unit=(g("part") or "").casefold())
    if whole in {"money", "money2"}:
        written = (g("cur") or g("cur2")).casefold()
        currency = CURRENCIES[
            written.removesuffix("s") if written in {"dollars", "euros"} else written
        ]
        scale = SCALES.get((g("ms") or g("ms2") or "").casefold(), "")
        return numeric("money", f"{currency} {scale}".strip(), "mn" if g("mn") else "mn2")
    if whole == "percent":
        unit = PERCENT_UNITS[re.sub(r"\s+", " ", g("pu").casefold())]
        return numeric("percent", unit, "pn", layout="sign" if g("pu") == "%" else "word")
    if whole == "quantity":
        written = g("uu")
        unit = UNIT_SYMBOLS.get(written) or UNIT_WORDS[re.sub(r"\s+", " ", written.casefold())]
        return numeric("quantity", unit, "un" if g("un") else "uw")
    if whole == "year":
        return made("year", (float(g("yy")),))
    if whole == "count":
        noun = g("noun")
        if noun in NOT_NOUNS or noun.casefold() in _MONTHS or len(noun) < 3:
            return None
        scale = (g("cs") or "").casefold()
        return numeric("count", f"{scale} {noun_stem(noun)}".strip(), "cn" if g("cn") else "cw")
    if whole == "number":
        return numeric("number", "", "nn")
    return None


Key = tuple[str, str, tuple[float, ...]]


def shifted(value: Value, by: int) -> Value:
    """``value`` as it stands in a part of its text that starts at ``by``."""
    number = None if value.number is None else (value.number[0] - by, value.number[1] - by)
    return replace(value, start=value.start - by, end=value.end - by, number=number)


@dataclass(frozen=True)
class Span:
    """Two values read as one: a range ("3-5%") or a change ("from 16.1% to 18.5%")."""

    low: Value
    high: Value
    start: int
    end: int
    verb: str = ""  # the verb before "from" of a change


_RANGE_GAP = re.compile(r"\s?[-–—]\s?|\s+to\s+|\s+and\s+")
_CHANGE_VERBS = [
    "rose", "increased", "grew", "climbed", "jumped", "improved", "expanded", "went up", "fell",
    "decreased", "declined", "dropped", "shrank", "went down", "slipped", "narrowed", "widened",
]  # fmt: skip
_CHANGE_BEFORE = re.compile(rf"\b(?P<verb>{alternation(_CHANGE_VERBS)})\s+from\s+$", re.I)


@dataclass(frozen=True)
class Reading:
    values: tuple[Value, ...]
    ranges: tuple[Span, ...]
    changes: tuple[Span, ...]

    def free(self) -> list[Value]:
        """The values that stand alone: in no range, and of a sort a swap can take."""
        inside = {(v.start, v.end) for r in self.ranges for v in (r.low, r.high)}
        return [v for v in self.values if (v.start, v.end) not in inside and v.sort != "number"]

    def within(self, start: int, end: int) -> Reading:
        """The values between ``start`` and ``end``, placed as in that part of the text."""

        def spans(found: tuple[Span, ...]) -> tuple[Span, ...]:
            return tuple(
                replace(
                    s,
                    low=shifted(s.low, start),
                    high=shifted(s.high, start),
                    start=s.start - start,
                    end=s.end - start,
                )
                for s in found
                if start <= s.start and s.end <= end
            )

        values = tuple(shifted(v, start) for v in self.values if start <= v.start and v.end <= end)
        return Reading(values, spans(self.ranges), spans(self.changes))

    def years(self) -> list[Value]:
        """The years of the dates, months, quarters and seasons, as years ("2016" of "Dec. 11,
        2016"), standing where the whole value stands."""
        return [
            Value(v.start, v.end, "year", "", (v.amount[0],), str(int(v.amount[0])))
            for v in self.free()
            if v.sort in {"date", "month", "fiscal", "season"}
        ] + [
            Value(v.start, v.end, "year", "", (v.amount[1],), str(int(v.amount[1])))
            for v in self.free()
            if v.sort == "quarter" and v.amount[1]
        ]


# Web addresses: a date or number in one is part of a name, not a value.
_ADDRESS = re.compile(r"\S+://\S+|\bwww\.\S+", re.I)


# Where a value can start: ``VALUE`` is tried only there, which is what keeps a scan of the
# public evidence (27 MB) to seconds. Each alternative of ``VALUE`` starts with one of these.
_TRIGGER = re.compile(
    rf"(?<!\d)\d|{_CURRENCY_SIGN}|\bQ(?=[1-4])|\bFY|"
    rf"\b(?:{_MON}|first|second|third|fourth|fiscal|early|mid|late|{alternation(NUMBER_WORDS)})\b",
    re.I,
)


def scan(text: str) -> Iterator[re.Match[str]]:
    """The matches of ``VALUE`` in ``text``, as ``VALUE.finditer`` finds them."""
    at = 0
    while (trigger := _TRIGGER.search(text, at)) is not None:
        match = VALUE.match(text, trigger.start())
        if match is None or match.end() == match.start():
            at = trigger.start() + 1
            continue
        yield match
        at = match.end()


def read_values(text: str) -> Reading:
    addresses = [m.span() for m in _ADDRESS.finditer(text)]
    values = [
        v
        for m in scan(text)
        if not any(start <= m.start() < end for start, end in addresses)
        and (v := _value(m)) is not None
    ]
    ranges, changes = [], []
    for low, high in itertools.pairwise(values):
        gap = text[low.end : high.start]
        same = low.sort == "number" or (low.sort, low.unit) == (high.sort, high.unit)
        if not _RANGE_GAP.fullmatch(gap) or not same:
            continue
        before = text[max(0, low.start - 40) : low.start]
        word = gap.strip()
        change = _CHANGE_BEFORE.search(before) if word == "to" else None
        if change is not None and low.sort == high.sort and low.unit == high.unit:
            changes.append(Span(low, high, low.start, high.end, change.group("verb")))
        elif (word == "and" and not re.search(r"\bbetween\s+$", before, re.I)) or (
            word == "to" and re.search(r"\bfrom\s+$", before, re.I)
        ):
            continue
        else:
            start = low.start - (len(before) - len(before.rstrip()) + 7 if word == "and" else 0)
            ranges.append(Span(low, high, max(start, 0), high.end))
    return Reading(tuple(values), tuple(ranges), tuple(changes))


# --- what a value is of: the words next to it -----------------------------------------------------

_PERIOD_WORDS = [
    "a year earlier", "a year ago", "year-ago", "year ago", "prior year", "prior-year",
    "previous year", "last year", "this year", "next year", "same period", "same quarter",
    "full year", "full-year", "first half", "second half", "year to date", "year-to-date",
    "quarter", "quarterly", "annual", "annually", "monthly", "weekly", "season", "fiscal",
    "at baseline", "baseline", "previously", "currently", "today", "up from", "down from",
    "compared with", "compared to", "versus", "vs", "from",
]  # fmt: skip
_BASIS_WORDS = [
    "adjusted", "non-gaap", "gaap", "excluding", "excluding special items", "ex-items",
    "including", "constant currency", "constant-currency", "reported", "organic", "pro forma",
    "underlying", "like-for-like", "comparable", "nominal", "in real terms", "diluted",
    "seasonally adjusted", "inflation-adjusted", "pre-tax", "before tax", "after tax",
    "after-tax", "one-time", "special items",
]  # fmt: skip
_GROUP_WORDS = [
    "plan", "tier", "group", "arm", "cohort", "placebo", "control", "treatment", "intervention",
    "children", "adults", "women", "men", "boys", "girls", "male", "female", "males", "females",
    "elderly", "infants", "premium", "standard", "basic", "enterprise", "pro",
]  # fmt: skip
MARKERS = re.compile(
    rf"(?P<basis>\b(?:{alternation(_BASIS_WORDS)})\b)"
    rf"|(?P<period>\b(?:{alternation(_PERIOD_WORDS)})\b)"
    rf"|(?P<entity>\b(?:{alternation(_GROUP_WORDS)})\b|(?<=[a-z,;] )(?-i:[A-Z][\w'&.-]*[a-z]\w*))",
    re.I,
)
_NOT_NAMES = frozenset(name.casefold() for name in MONTH_NAMES) | frozenset(
    ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
)


@dataclass(frozen=True)
class Frame:
    """The words next to one value in the evidence: its period, basis and entity."""

    period: frozenset[str] = frozenset()
    basis: frozenset[str] = frozenset()
    entity: frozenset[str] = frozenset()


_SENTENCE_GAP = re.compile(r"\n\n|(?<=[.!?])\s+(?=[A-Z])")


def sentence_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where each sentence of ``text`` stands: passages apart, each cut as ``SENTENCE_END`` cuts."""
    at = 0
    for gap in _SENTENCE_GAP.finditer(text):
        yield at, gap.start()
        at = gap.end()
    yield at, len(text)


def frames(text: str, reading: Reading) -> dict[tuple[int, int], Frame]:
    """The frame of each free value of ``text``, by its span: every marker of a sentence goes
    to the nearest value of another sort, and a marker before a comma that precedes all of its
    sentence's values ("Excluding special items, revenue ...") to all of them."""
    found: dict[tuple[int, int], Frame] = {}
    for start, end in sentence_spans(text):
        part = reading.within(start, end)
        for (low, high), frame in sentence_frames(text[start:end], part).items():
            found[(start + low, start + high)] = frame
    return found


def sentence_frames(sentence: str, reading: Reading) -> dict[tuple[int, int], Frame]:
    anchors = reading.free()
    if not anchors:
        return {}
    markers = [("period", f"{v.sort}:{v.amount}", v.start, v.end) for v in anchors
               if v.sort in TIME_SORTS]  # fmt: skip
    for match in MARKERS.finditer(sentence):
        word = match.group(0).casefold()
        inside = any(v.start <= match.start() < v.end for v in reading.values)
        if not inside and not (match.lastgroup == "entity" and word in _NOT_NAMES):
            markers.append((match.lastgroup or "", word, match.start(), match.end()))
    first = min(v.start for v in anchors)
    slots: dict[tuple[int, int], dict[str, set[str]]] = {
        (v.start, v.end): {"period": set(), "basis": set(), "entity": set()} for v in anchors
    }
    for slot, word, start, end in markers:
        targets = [
            v for v in anchors
            if not (slot == "period" and v.sort in TIME_SORTS) and (v.start, v.end) != (start, end)
        ]  # fmt: skip
        if not targets:
            continue
        if end <= first and "," in sentence[end:first]:
            chosen = targets  # a fronted qualifier governs the whole sentence
        else:
            chosen = [min(targets, key=lambda v: min(abs(v.start - end), abs(start - v.end)))]
        for value in chosen:
            slots[(value.start, value.end)][slot].add(word)
    return {
        span: Frame(frozenset(s["period"]), frozenset(s["basis"]), frozenset(s["entity"]))
        for span, s in slots.items()
    }


Frames = Callable[[], dict[tuple[int, int], Frame]]  # the frames of one evidence, read once


def differs(claim_frame: Frame, other: Frame, sort: str) -> str:
    """What differs between the facts two values of one sort are of (see the docstring)."""
    if sort in TIME_SORTS:
        return "period"
    if claim_frame.basis != other.basis:
        return "basis"
    if claim_frame.period != other.period:
        return "period"
    if claim_frame.entity != other.entity:
        return "entity"
    return "metric"


# --- the cases ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One edited text to check against its record's evidence."""

    family: str  # swap or restatement
    kind: str  # a swap's difference (period, basis, entity, metric) or a restatement's kind
    sort: str  # the sort of value edited
    dataset: str
    source: str  # claim, or evidence sentence
    original: str
    text: str
    evidence: str = field(repr=False)
    was: str = ""
    now: str = ""


@dataclass(frozen=True)
class Record:
    id: str
    dataset: str
    claim: str
    evidence: str
    passages: tuple[str, ...]
    supported: bool


def load(path: Path, stride: int = 1) -> list[Record]:
    raws = read_jsonl(path)
    return [
        Record(
            raw["id"],
            raw["dataset"],
            raw["claim"],
            joined_evidence(raw),
            tuple(p["text"] for p in raw["evidence"]),
            raw["label"] == "supported",
        )
        for number, raw in enumerate(raws)
        if number % stride == 0
    ]


def decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def rounds_to(value: float, rounded: float, places: int) -> bool:
    """Whether ``rounded`` is ``value`` at ``places`` decimals (one fact written twice)."""
    return bool(abs(round(value, places) - rounded) < 10 ** -(places + 3))


def number_text(value: Value) -> str:
    assert value.number is not None
    return value.text[value.number[0] - value.start : value.number[1] - value.start]


def same_figure(value: Value, other: Value) -> bool:
    """Whether two numbers are one figure written to two precisions ("35.1" and "35")."""
    if value.number is None or other.number is None:
        return False
    mine, theirs = value.amount[0], other.amount[0]
    return rounds_to(mine, theirs, decimals(number_text(other))) or rounds_to(
        theirs, mine, decimals(number_text(value))
    )


def swapped(
    record: Record, value: Value, other: Value, evidence_frames: dict[tuple[int, int], Frame],
    own: Value, text: str, source: str,
) -> Case:  # fmt: skip
    """``text`` with ``value`` (its occurrence ``own`` in the evidence) replaced by ``other``:
    the number alone where both are numbers (the text's unit stays as written), else whole."""
    if value.number is not None and other.number is not None:
        start, end = value.number
        new = number_text(other)
    else:
        start, end, new = value.start, value.end, other.text
    kind = differs(
        evidence_frames.get((own.start, own.end), Frame()),
        evidence_frames.get((other.start, other.end), Frame()),
        value.sort,
    )
    return Case(
        "swap",
        kind,
        value.sort,
        record.dataset,
        source,
        text,
        text[:start] + new + text[end:],
        record.evidence,
        text[start:end],
        new,
    )


def replacements(value: Value, offered: Sequence[Value], taken: set[Key]) -> dict[Key, Value]:
    """The values of ``offered`` that could replace ``value``: the same sort and unit, not in
    ``taken`` (the edited text's own values), and not the same figure rounded."""
    found: dict[Key, Value] = {}
    for other in offered:
        same_kind = (other.sort, other.unit) == (value.sort, value.unit)
        if same_kind and other.key not in taken and not same_figure(value, other):
            found.setdefault(other.key, other)
    return found


def claim_swaps(
    record: Record, evidence: Reading, frames_of: Frames, pick: random.Random, per_value: int
) -> list[Case]:
    """Each value of the claim that the evidence states, replaced by at most ``per_value`` of
    its replacements, drawn with ``pick``."""
    claim = read_values(record.claim)
    offered = evidence.free() + evidence.years()
    stated = {v.key: v for v in reversed(offered)}
    taken = {v.key for v in claim.free() + claim.years()}
    cases = []
    for value in claim.free():
        if value.key not in stated:
            continue
        found = replacements(value, offered, taken)
        chosen = sorted(found)
        if len(chosen) > per_value:
            chosen = pick.sample(chosen, per_value)
        for key in chosen:
            own = stated[value.key]
            cases.append(
                swapped(record, value, found[key], frames_of(), own, record.claim, "claim")
            )
    return cases


def sentence_swaps(
    record: Record, evidence: Reading, frames_of: Frames, pick: random.Random, seen: set[str]
) -> list[Case]:
    """One swap in each evidence sentence (each sentence once over the run) with a value that
    another sentence of the evidence states another of: the value and its replacement drawn
    with ``pick``."""
    offered = evidence.free() + evidence.years()
    free = evidence.free()
    cases = []
    for start, end in sentence_spans(record.evidence):
        sentence = record.evidence[start:end]
        if not 20 <= len(sentence) <= 300 or sentence in seen:
            continue
        seen.add(sentence)
        inside = [v for v in free if start <= v.start and v.end <= end]
        taken = {v.key for v in offered if start <= v.start and v.end <= end}
        options = [(v, found) for v in inside if (found := replacements(v, offered, taken))]
        if not options:
            continue
        value, found = pick.choice(options)
        other = found[pick.choice(sorted(found))]
        cases.append(
            swapped(
                record,
                shifted(value, start),
                other,
                frames_of(),
                value,
                sentence,
                "evidence sentence",
            )
        )
    return cases


# --- restatements --------------------------------------------------------------------------------

Rewrite = tuple[str, str, int, int, str]  # kind, sort, start, end, the new text


def format_number(number: float, places: int = 0) -> str:
    if places == 0 and number == int(number):
        whole = int(number)
        return f"{whole:,}" if abs(whole) >= 10_000 else str(whole)
    return f"{number:.{places}f}"


def date_layouts(value: Value) -> Iterator[Rewrite]:
    """A full date in each other common layout."""
    year, month, day = (int(x) for x in value.amount)
    name = MONTH_NAMES[month - 1]
    layouts = {
        "date_month_first": (f"{name} {day}, {year}", "mdy:comma"),
        "date_no_comma": (f"{name} {day} {year}", "mdy"),
        "date_day_first": (f"{day} {name} {year}", "dmy"),
        "date_iso": (f"{year}-{month:02d}-{day:02d}", "ymd:-"),
        "date_dotted": (f"{year}.{month:02d}.{day:02d}", "ymd:."),
    }
    for kind, (text, layout) in layouts.items():
        if layout != value.layout:
            yield kind, "date", value.start, value.end, text


def quarter_layouts(value: Value) -> Iterator[Rewrite]:
    number, year = int(value.amount[0]), int(value.amount[1])
    if not year:
        return
    ordinal = next(k for k, n in _ORDINALS.items() if n == number)
    layouts = {
        "quarter_words": (f"{ordinal} quarter of {year}", "qw"),
        "quarter_q": (f"Q{number} {year}", "qq"),
        "quarter_shorthand": (f"{number}Q{year % 100:02d}", "qs"),
    }
    for kind, (text, layout) in layouts.items():
        if layout != value.layout:
            yield kind, "quarter", value.start, value.end, text


def other_layouts(value: Value) -> Iterator[Rewrite]:
    """Fiscal years, seasons and percentages written the other way."""
    if value.sort == "fiscal":
        year = int(value.amount[0])
        text = f"fiscal {year}" if value.layout == "fy" else f"FY{year}"
        yield "fiscal_year", "fiscal", value.start, value.end, text
    elif value.sort == "season":
        first = int(value.amount[0])
        for sep, text in (("-", f"{first}-{(first + 1) % 100:02d}"), ("/", f"{first}/{first + 1}")):
            if sep != value.layout:
                yield "season_layout", "season", value.start, value.end, text
                return
    elif value.sort == "percent" and value.unit == "%":
        number = number_text(value)
        text = f"{number} percent" if value.layout == "sign" else f"{number}%"
        kind = "percent_word" if value.layout == "sign" else "percent_sign"
        yield kind, "percent", value.start, value.end, text


CONVERSIONS = {
    # unit: (kind, the factor, the unit written after, the largest amount converted)
    "h": ("hours_to_minutes", Decimal(60), "minutes", Decimal(1000)),
    "min": ("minutes_to_hours", 1 / Decimal(60), "hours", Decimal(10_000)),
    "km": ("km_to_m", Decimal(1000), "metres", Decimal(1000)),
    "m": ("m_to_km", 1 / Decimal(1000), "kilometres", Decimal(10**6)),
    "kg": ("kg_to_g", Decimal(1000), "grams", Decimal(1000)),
    "g": ("g_to_kg", 1 / Decimal(1000), "kilograms", Decimal(10**6)),
    "bp": ("bp_to_pp", 1 / Decimal(100), "percentage points", Decimal(1000)),
    "pp": ("pp_to_bp", Decimal(100), "basis points", Decimal(5)),
}


def decimal_text(number: Decimal) -> str:
    """A number as a text would write it: no exponent, no trailing zeros, thousands grouped
    from 10,000."""
    if number == number.to_integral_value():
        whole = int(number)
        return f"{whole:,}" if whole >= 10_000 else str(whole)
    return format(number.normalize(), "f")


def conversions(text: str, value: Value) -> Iterator[Rewrite]:
    """A number with a unit in another unit ("2 hours" as "120 minutes"), where the result is
    exact to two decimals; not a unit joined to its number as an adjective ("a 54-hour strike")."""
    if value.unit not in CONVERSIONS or value.number is None or "-" in value.text:
        return
    kind, factor, unit, largest = CONVERSIONS[value.unit]
    written = number_text(value).replace(",", "")
    amount = (
        Decimal(int(to_number(written))) if written.casefold() in NUMBER_WORDS else Decimal(written)
    )
    converted = amount * factor
    if amount > largest or converted != converted.quantize(Decimal("0.01")):
        return
    yield kind, value.sort, value.start, value.end, f"{decimal_text(converted)} {unit}"


# The words before a number, and how they are written again: the first form for an age,
# the second for any other number; "{n}" is the number.
_COMPARATORS = {
    "under": ("comparator_words", "younger than {n}", "less than {n}"),
    "younger than": ("comparator_words", "under {n}", "under {n}"),
    "less than": ("comparator_words", "under {n}", "under {n}"),
    "over": ("comparator_words", "older than {n}", "more than {n}"),
    "older than": ("comparator_words", "over {n}", "over {n}"),
    "more than": ("comparator_words", "over {n}", "over {n}"),
    "at least": ("comparator_words", "{n} or older", "{n} or more"),
    "aged under": ("comparator_symbol", "aged <{n}", "aged <{n}"),
    "under age": ("comparator_symbol", "aged <{n}", "aged <{n}"),
    "under the age of": ("comparator_symbol", "aged <{n}", "aged <{n}"),
    "aged over": ("comparator_symbol", "aged >{n}", "aged >{n}"),
    "over the age of": ("comparator_symbol", "aged >{n}", "aged >{n}"),
    "aged at least": ("comparator_symbol", "aged \u2265{n}", "aged \u2265{n}"),
}
COMPARATOR = re.compile(
    rf"\b(?P<words>{alternation(_COMPARATORS)})\s+(?P<number>\d+(?:\.\d+)?)\b(?![.,]\d)", re.I
)
_NEGATED = re.compile(r"\b(?:no|not)\s+$", re.I)
_AGE = re.compile(r"\s*(?:years?\b|-year-old|yrs?\b)|\s+(?:of\s+age)\b", re.I)
_AGE_BEFORE = re.compile(r"\b(?:aged?|children|patients|people|adults|those|persons?)\s*$", re.I)


def comparators(text: str, amounts: set[tuple[float, ...]]) -> Iterator[Rewrite]:
    """ "under 18" as "younger than 18" where an age is meant, "aged under 18" as "aged <18",
    "more than 50" as "over 50" ...: where ``amounts`` holds the number."""
    for match in COMPARATOR.finditer(text):
        if (to_number(match.group("number")),) not in amounts or _NEGATED.search(
            text, 0, match.start()
        ):
            continue
        words = re.sub(r"\s+", " ", match.group("words").casefold())
        kind, for_age, plain = _COMPARATORS[words]
        age = _AGE.match(text, match.end()) or _AGE_BEFORE.search(text, 0, match.start())
        new = (for_age if age else plain).format(n=match.group("number"))
        if match.group(0)[0].isupper():
            new = new[0].upper() + new[1:]
        yield kind, "comparator", match.start(), match.end(), new


def range_layouts(text: str, span: Span) -> Iterator[Rewrite]:
    """ "3-5%" as "3% to 5%" and "between 3 and 5 percent", and back, for percentages and units."""
    high = span.high
    if high.sort not in {"percent", "quantity"} or high.number is None or "-" in high.text:
        return
    low_number = number_text(span.low) if span.low.number else span.low.text
    high_number = number_text(high)
    unit_text = text[high.number[1] : high.end]
    written = text[span.start : span.end]
    words = " percent" if unit_text.strip() == "%" else unit_text
    layouts = {
        "range_dash": f"{low_number}-{high_number}{unit_text}",
        "range_to": f"{low_number}{unit_text} to {high_number}{unit_text}",
        "range_between": f"between {low_number} and {high_number}{words}",
    }
    own = (
        "range_between"
        if written.casefold().startswith("between")
        else "range_to"
        if " to " in written
        else "range_dash"
    )
    for kind, new in layouts.items():
        if kind != own:
            yield kind, high.sort, span.start, span.end, new


def derivations(text: str, span: Span) -> Iterator[Rewrite]:
    """ "rose from 16.1% to 18.5%" as "rose by 2.4 percentage points"; "rose from $10 million to
    $12 million" as "rose by 20%", each rounded to the precision of the levels."""
    low, high = span.low, span.high
    if low.number is None or high.number is None:
        return
    a, b = low.amount[0], high.amount[0]
    rising = span.verb.casefold() in {"rose", "increased", "grew", "climbed", "jumped",
                                      "improved", "expanded", "went up", "widened"}  # fmt: skip
    if (b > a) != rising or a == b:
        return
    start = text.rindex("from", 0, low.start)
    if low.sort == "percent" and low.unit == "%":
        places = max(decimals(number_text(low)), decimals(number_text(high)))
        points = format_number(round(abs(b - a), places), places)
        unit = "percentage point" if points == "1" else "percentage points"
        yield "pp_difference", "percent", start, span.end, f"by {points} {unit}"
    elif low.sort in {"money", "count", "quantity"} and a > 0:
        change = abs(b - a) / a * 100
        places = 0 if round(change, 1) == round(change) else 1
        yield (
            "percent_change",
            low.sort,
            start,
            span.end,
            f"by {format_number(round(change, places), places)}%",
        )


# Quoted words must stay as the source wrote them: no restatement edits inside quotation marks.
_QUOTED = re.compile(r'"[^"]*"|\u201c[^\u201d]*\u201d')


def restatements(
    text: str, reading: Reading, evidence: Reading | None
) -> Iterator[tuple[str, str, str, str, str]]:
    """Each restatement of ``text``, read as ``reading``: (kind, sort, edited text, was, now).
    With ``evidence`` (a claim's), only values it states (both ends of a range or change) are
    rewritten; without (an evidence sentence), every value."""
    only_stated = evidence is not None
    evidence = evidence or reading
    stated = {v.key for v in evidence.values}
    amounts = {v.amount for v in evidence.values}

    def known(*values: Value) -> bool:
        """Whether the evidence states each value (a bare number: the number, of anything)."""
        return not only_stated or all(
            v.key in stated or (v.sort == "number" and v.amount in amounts) for v in values
        )

    rewrites: list[Rewrite] = []
    for value in reading.free():
        if not known(value):
            continue
        if value.sort == "date":
            rewrites += date_layouts(value)
        elif value.sort == "quarter":
            rewrites += quarter_layouts(value)
        else:
            rewrites += other_layouts(value)
            rewrites += conversions(text, value)
    for span in reading.ranges:
        if known(span.low, span.high):
            rewrites += range_layouts(text, span)
    for span in reading.changes:
        if known(span.low, span.high):
            rewrites += derivations(text, span)
    rewrites += comparators(text, amounts if only_stated else {v.amount for v in reading.values})
    quoted = [m.span() for m in _QUOTED.finditer(text)]
    for kind, sort, start, end, new in rewrites:
        if not any(low < end and start < high for low, high in quoted):
            yield kind, sort, text[:start] + new + text[end:], text[start:end], new


def claim_restatements(record: Record, evidence: Reading) -> list[Case]:
    claim = read_values(record.claim)
    return [
        Case(
            "restatement",
            kind,
            sort,
            record.dataset,
            "claim",
            record.claim,
            edited,
            record.evidence,
            was,
            now,
        )
        for kind, sort, edited, was, now in restatements(record.claim, claim, evidence)
    ]


def sentence_restatements(record: Record, evidence: Reading, seen: set[str]) -> list[Case]:
    """Restatements of the evidence sentences of a record (each sentence once over the run)."""
    cases = []
    for start, end in sentence_spans(record.evidence):
        sentence = record.evidence[start:end]
        if not 20 <= len(sentence) <= 300 or sentence in seen:
            continue
        seen.add(sentence)
        reading = evidence.within(start, end)
        if reading.values:
            for kind, sort, edited, was, now in restatements(sentence, reading, None):
                cases.append(
                    Case(
                        "restatement",
                        kind,
                        sort,
                        record.dataset,
                        "evidence sentence",
                        sentence,
                        edited,
                        record.evidence,
                        was,
                        now,
                    )
                )
    return cases


def build(
    records: Sequence[Record], seed: int, per_kind: int, per_sort: int, per_value: int = 3
) -> list[Case]:
    """Every case of the records: swaps and restatements of the supported claims, and from
    evidence sentences at most ``per_sort`` swaps of each sort of value and ``per_kind``
    restatements of each kind, drawn with ``seed``."""
    claim_pick, sentence_pick = random.Random(seed), random.Random(seed + 2)
    cases: list[Case] = []
    from_sentences: dict[tuple[str, str], list[Case]] = collections.defaultdict(list)
    swapped_sentences: set[str] = set()
    restated_sentences: set[str] = set()
    for record in records:
        evidence = read_values(record.evidence)
        frames_of: Frames = functools.cache(functools.partial(frames, record.evidence, evidence))
        if record.supported:
            cases += claim_swaps(record, evidence, frames_of, claim_pick, per_value)
            cases += claim_restatements(record, evidence)
        for case in sentence_swaps(record, evidence, frames_of, sentence_pick, swapped_sentences):
            from_sentences[("swap", case.sort)].append(case)
        for case in sentence_restatements(record, evidence, restated_sentences):
            from_sentences[("restatement", case.kind)].append(case)
    draw = random.Random(seed + 1)
    for family, group in sorted(from_sentences):
        found = from_sentences[(family, group)]
        most = per_sort if family == "swap" else per_kind
        cases += draw.sample(found, most) if len(found) > most else found
    return cases


# --- checking and counting ---------------------------------------------------------------------


def outcome_of(checks: Sequence[Check], text: str, evidence: str) -> CheckOutcome | None:
    """What the pipeline's exact checks make of ``text``: the first flag, else None."""
    combined = first_flag([check(text, evidence) for check in checks])
    if combined is None or combined.status is CheckStatus.PASSED:
        return None
    return combined


def found_as(outcome: CheckOutcome) -> str:
    """A flag as a swap's report names it: conflict, absent or review."""
    if outcome.label is Label.CONTRADICTED or outcome.finding is Finding.CONFLICT:
        return "conflict"
    kind = finding_kind(outcome)
    return kind if kind == "absent" else "review"


@dataclass
class Tally:
    """Cases, flags and, of the cases whose unedited text passes (``clean``), the flags."""

    cases: int = 0
    flagged: int = 0
    clean: int = 0
    flagged_clean: int = 0
    found: collections.Counter[str] = field(default_factory=collections.Counter)
    by_check: collections.Counter[str] = field(default_factory=collections.Counter)

    def add(self, outcome: CheckOutcome | None, original_flagged: bool) -> None:
        self.cases += 1
        self.clean += not original_flagged
        if outcome is None:
            return
        self.flagged += 1
        self.flagged_clean += not original_flagged
        self.found[found_as(outcome)] += 1
        self.by_check[outcome.check] += 1

    def figures(self) -> dict[str, Any]:
        return {
            "cases": self.cases,
            "flagged": self.flagged,
            "flagged_rate": percent(self.flagged, self.cases),
            "clean": self.clean,
            "flagged_clean": self.flagged_clean,
            "flagged_clean_rate": percent(self.flagged_clean, self.clean),
            "found": dict(sorted(self.found.items())),
            "by_check": dict(sorted(self.by_check.items())),
        }


GROUPS = ("kind", "sort", "dataset", "source")


@dataclass
class Results:
    """Per family (swap, restatement): the tally of all cases and of each group, and a few
    examples of what went wrong (swaps passed, restatements flagged) for the report only."""

    tallies: dict[str, dict[str, Tally]] = field(
        default_factory=lambda: collections.defaultdict(lambda: collections.defaultdict(Tally))
    )
    shown: dict[str, list[str]] = field(default_factory=lambda: collections.defaultdict(list))

    def add(
        self, case: Case, outcome: CheckOutcome | None, original_flagged: bool, show: int
    ) -> None:
        family = self.tallies[case.family]
        family["all"].add(outcome, original_flagged)
        for group in GROUPS:
            family[f"{group}:{getattr(case, group)}"].add(outcome, original_flagged)
        wrong = (outcome is None) == (case.family == "swap")
        label = f"{case.family} {case.kind}"
        if wrong and not original_flagged and len(self.shown[label]) < show:
            said = f" ({outcome.check}: {outcome.detail[:140]})" if outcome is not None else ""
            self.shown[label].append(f"{case.was!r} -> {case.now!r}: {case.text[:200]!r}{said}")


def measure(cases: Sequence[Case], show: int = 3) -> Results:
    checks = default_checks()
    originals: dict[tuple[str, int], bool] = {}
    results = Results()
    # Each record's cases together: the checks keep the readings of the last texts they read.
    first_seen: dict[int, int] = {}
    for case in cases:
        first_seen.setdefault(id(case.evidence), len(first_seen))
    for case in sorted(cases, key=lambda case: first_seen[id(case.evidence)]):
        key = (case.original, id(case.evidence))
        if key not in originals:
            originals[key] = outcome_of(checks, case.original, case.evidence) is not None
        outcome = outcome_of(checks, case.text, case.evidence)
        results.add(case, outcome, originals[key], show)
    return results


def figures(results: Results) -> dict[str, Any]:
    """Counts and shares per family and group: figures only, never a case's text."""
    found: dict[str, Any] = {}
    for family, tallies in sorted(results.tallies.items()):
        rows: dict[str, Any] = {"all": tallies["all"].figures()}
        for group in GROUPS:
            prefix = f"{group}:"
            rows[group] = {
                name.removeprefix(prefix): tally.figures()
                for name, tally in sorted(tallies.items())
                if name.startswith(prefix)
            }
        found[family] = rows
    return found


def regressions(current: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    """Each gated share that moved past its tolerance, and cases that are no longer the same."""
    problems = []
    for family, sign, tolerance in (
        ("swap", -1, SWAP_TOLERANCE),
        ("restatement", 1, RESTATEMENT_TOLERANCE),
    ):
        was_rows, now_rows = expected.get(family, {}), current.get(family, {})
        pairs = [("all", was_rows.get("all"), now_rows.get("all"))]
        pairs += [
            (f"{group} {name}", row, now_rows.get(group, {}).get(name))
            for group in GROUPS
            for name, row in was_rows.get(group, {}).items()
            if row["cases"] >= MIN_GATED
        ]
        for label, was, now in pairs:
            if was is None:
                continue
            if now is None or now["cases"] != was["cases"]:
                count = "none" if now is None else now["cases"]
                problems.append(
                    f"{family} {label}: {was['cases']} cases -> {count}: the cases changed "
                    "(builder or data); rewrite the expected figures"
                )
                continue
            move = now["flagged_rate"] - was["flagged_rate"]
            if sign * move > tolerance:
                what = "caught" if family == "swap" else "flagged"
                problems.append(
                    f"{family} {label}: {what} {was['flagged']}/{was['cases']} "
                    f"({was['flagged_rate']}%) -> {now['flagged']}/{now['cases']} "
                    f"({now['flagged_rate']}%, {move:+.2f} points)"
                )
    return problems


def report(results: Results) -> str:
    lines = []
    for family, tallies in sorted(results.tallies.items(), reverse=True):
        verb = "caught" if family == "swap" else "flagged"
        lines.append(
            f"\n== {family}s: {verb} (all; where the unedited text passes), what the flag said, "
            "by check"
        )
        for name, tally in sorted(tallies.items(), key=lambda item: (item[0] != "all", item[0])):
            t = tally
            found = ", ".join(f"{k} {n}" for k, n in sorted(t.found.items()))
            checks = ", ".join(f"{k} {n}" for k, n in t.by_check.most_common(4))
            lines.append(
                f"{name:<34}{f'{t.flagged}/{t.cases}':>11}{percent(t.flagged, t.cases):>7.1f}%"
                f"{f'{t.flagged_clean}/{t.clean}':>11}{percent(t.flagged_clean, t.clean):>7.1f}%"
                f"   {found}   [{checks}]"
            )
    for label, shown in sorted(results.shown.items()):
        lines.append(f"== {label}: {'passed' if label.startswith('swap') else 'flagged'}")
        lines.extend(f"  {line}" for line in shown)
    return "\n".join(lines)


def summary(results: Results) -> str:
    parts = []
    for family, verb in (("swap", "caught"), ("restatement", "flagged")):
        tally = results.tallies.get(family, {}).get("all")
        if tally is None:
            continue
        parts.append(
            f"{family}s {verb} {tally.flagged}/{tally.cases} "
            f"({percent(tally.flagged, tally.cases):.2f} %)"
        )
        if family == "swap":
            conflict = tally.found["conflict"]
            parts[-1] += f", as conflicts {conflict}"
    return "; ".join(parts)


def data_sets(quick: bool) -> list[Record]:
    """The dev records and the public ones (every tenth in a quick run)."""
    records: list[Record] = []
    for name, path in DATA.items():
        records += load(path, QUICK_STRIDE if quick and name == "public" else 1)
    return records


def run(
    quick: bool, expected: Path | None, seed: int = 0, show: int = 3, cases_out: Path | None = None
) -> tuple[GateResult, Results | None]:
    # The figures are of both data sets together: without either, there is nothing to compare.
    reason = missing_data(*DATA.values())
    if reason is not None:
        return skipped(NAME, reason), None
    started = time.perf_counter()
    cases = build(
        data_sets(quick), seed, *((PER_KIND // 5, PER_SORT // 5) if quick else (PER_KIND, PER_SORT))
    )
    if cases_out is not None:
        write_cases(cases_out, cases)
    results = measure(cases, show)
    seconds = time.perf_counter() - started
    wanted = read_expected(expected)
    if wanted is not None:
        wanted = wanted.get("quick" if quick else "full")
    problems = regressions(figures(results), wanted) if wanted is not None else []
    return judged(NAME, summary(results), problems, seconds, report(results)), results


def write_cases(path: Path, cases: Sequence[Case]) -> None:
    """The cases built, one JSON object a line, without their evidence: for reading, never for
    the repository (they are made of the shared records)."""
    with path.open("w", encoding="utf-8") as handle:
        for case in cases:
            row = {k: v for k, v in asdict(case).items() if k != "evidence"}
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def write_run(path: Path, mode: str, results: Results, seconds: float) -> None:
    """Record one run's figures (full or quick) in the expected file, keeping the other's."""
    written = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    written[mode] = {"measured": measured(seconds), **figures(results)}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(written, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


def gate(quick: bool = False, expected: Path | None = None) -> GateResult:
    """The value-swap gate against the committed figures (the quick ones with ``quick``)."""
    return run(quick, expected or expected_file(NAME))[0]


def main(argv: Sequence[str] | None = None) -> int:
    parser = gate_parser(__doc__, NAME, quick="the dev set and every tenth public record")
    parser.add_argument("--show", type=int, default=3, help="examples of each kind gone wrong")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cases", type=Path, metavar="FILE", help="write the cases built here")
    args = parser.parse_args(argv)
    result, results = run(args.quick, compared_with(args), args.seed, args.show, args.cases)
    if args.write_expected and results is not None:
        write_run(args.write_expected, "quick" if args.quick else "full", results, result.seconds)
    return finish(result)


if __name__ == "__main__":
    sys.exit(main())
