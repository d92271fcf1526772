"""Values stated of another fact, and values restated: the exact checks on edits of real text.

Swaps. In each supported claim of the public pairs (``../shared/data/public``) and the dev set
(``../shared/data/dev``), each value the claim's evidence also states (an amount, a percentage,
a number with its unit, a count of a noun, a date, a month, a year, a quarter, a fiscal year, a
season, a decade) is replaced by another value of the same sort and unit (same currency and
scale, same unit, same noun) that the same evidence states, of another fact: up to three of
them for each value. The swapped claim is wrong though each of its words is in the evidence.
Supported claims with two values of one kind in their evidence are few (about 560 swaps), so
the same is done to evidence sentences: in each, one value replaced by one another sentence of
the record's evidence states, at most ``PER_SORT`` of each sort of value, drawn with the seed;
the two sources are reported apart. A swap is sorted by what differs between the two facts,
read from the words next to each value in the evidence (each word goes to the value nearest to
it in its sentence; a qualifier fronted before a comma, to every value after it):

    basis    adjusted, GAAP, excluding, constant currency, diluted ... differ
    period   the value is itself a date or period, or the period words next to the two values
             (years, quarters, months, "a year earlier", "up from" ...) differ
    entity   the names or group words (plan, tier, arm, women, children ...) next to them differ
    metric   none of these: another measure of the same kind

Restatements. Values the evidence states, written another way that keeps the meaning: dates in
other layouts, ranges, comparators, quarters, fiscal years, seasons and percentages in other
words, conversions (hours and minutes, kilometres and metres, kilograms and grams, basis and
percentage points, exact to two decimals), and derivations that hold ("rose from X% to Y%" as
"rose by D percentage points", "rose from A to B" as "rose by P%", rounded to the precision of
the levels). From the supported claims (values their evidence states) and from evidence
sentences (at most ``PER_KIND`` of each kind, drawn with the seed). Each flag is a false flag.

Every case is checked against all of its record's passages, joined as ``checks.py`` joins them,
by the default checks in pipeline order, without a judge: any check that fails or asks for
review is a flag. The unedited text is checked too, so that flags the edit caused stand apart
from flags the text had already. Reported per kind, sort of value, source dataset and source
(claim or evidence sentence); for swaps, what the flag said: conflict (labelled
``contradicted``, or the finding conflict), absent, or review (derived, or any other reason).

The figures are compared with the committed ones (``gates/expected/value_swaps.json``, full and
quick, or ``--expected FILE``), and the command exits 1 when the share of swaps caught falls by
more than 0.5 points, or the share of restatements flagged rises by more than 0.5 points, in
all or for a kind, sort, dataset, source or kind of one source with at least 50 cases, or when
the cases are not the same ones (a changed builder, word list or data set: rewrite them). The
cases are built without the checks and seeded, so a change of a check moves the flags, never
the cases.

    python -m benchmarks.gates.value_swaps               # dev and public
    python -m benchmarks.gates.value_swaps --quick       # dev and every tenth public record
    python -m benchmarks.gates.value_swaps --cases FILE  # also write the cases (not for the repo)

Judge: none. Time on the 2-core development machine: 50 s of CPU in full, 12 s quick
(2026-12-04); one core, so as long in wall time when the machine is not shared.
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
import tomllib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
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
DATA = (DEV_CLAIMS, PUBLIC_CLAIMS)
# Points the share of swaps caught may fall, and the share of restatements flagged may rise.
SWAP_TOLERANCE = 0.5
RESTATEMENT_TOLERANCE = 0.5
# A kind, sort, dataset or source is gated alone only with this many cases.
MIN_GATED = 50
# Replacements of one claim value, at most.
PER_VALUE = 3
# From evidence sentences: swaps of each sort of value, restatements of each kind, at most
# (quick: a fifth). They keep the run under a minute of CPU.
PER_SORT = 150
PER_KIND = 100
# A quick run keeps every tenth record of the public set.
QUICK_STRIDE = 10
SOURCE_LENGTH = (20, 300)  # the evidence sentences edited, in characters

WORDS: dict[str, Any] = tomllib.loads(Path(__file__).with_suffix(".toml").read_text("utf-8"))

# --- reading values ---------------------------------------------------------------------------

MONTHS: dict[str, int] = {m.casefold(): n for n, m in enumerate(WORDS["months"], 1)}
MONTHS |= WORDS["month_abbreviations"]
NUMBER_WORDS: dict[str, int] = WORDS["number_words"]
ORDINALS: dict[str, int] = WORDS["ordinals"]
CURRENCIES: dict[str, str] = WORDS["currencies"]
SCALES: dict[str, str] = WORDS["scales"]
PERCENT_UNITS: dict[str, str] = WORDS["percent_units"]
UNIT_WORDS: dict[str, str] = WORDS["unit_words"]
UNIT_SYMBOLS: dict[str, str] = WORDS["unit_symbols"]
NOT_NOUNS = frozenset(WORDS["words"]["not_nouns"])
TIME_SORTS = frozenset({"date", "month", "year", "quarter", "fiscal", "season", "decade"})

# A number: grouped by commas or not, no leading zero ("000" of a split "56, 000" is none).
_NUM = r"(?:[1-9]\d{0,2}(?:,\d{3})+|[1-9]\d*|0)(?:\.\d+)?"
# A number starts after no letter, digit, decimal mark or currency sign, and after a hyphen only
# where a digit stands before it (a range: "3-5"), not a letter (a name: "COVID-19").
_START = r"(?<![\w.,/:$€£¥₹])(?<![A-Za-z]-)"
_END = r"(?!\d|[.,]\d)"
_ABBREVIATED = alternation(k.capitalize() for k in WORDS["month_abbreviations"])
_MON = rf"(?:{alternation(WORDS['months'])}|(?:{_ABBREVIATED})\.?)"
_YEAR = r"(?:1[5-9]\d\d|20\d\d)"
_WORD_NUMBER = rf"\b(?:{alternation(NUMBER_WORDS)})\b"
_CURRENCY_SIGN = r"(?:US\$|C\$|A\$|HK\$|NZ\$|\$|€|£|¥|₹)"
_CURRENCY_WORD = r"(?:dollars?|euros?|yen|rupees|USD|EUR|GBP|JPY|INR)\b"
_SCALE = r"(?:thousand|million|billion|trillion|bn|mn|mln|tn)\b"
_PERCENT = rf"(?:%|(?:{alternation(k for k in PERCENT_UNITS if k != '%')})\b)"
_UNIT = (
    rf"(?:(?:{alternation(UNIT_WORDS)})\b"
    rf"|(?-i:{alternation(UNIT_SYMBOLS, any_space=False)})(?![\w/]))"
)
_DAY = r"(?:st|nd|rd|th)?"

# In the order they are tried at one place: the first that matches is the value there.
VALUE = re.compile(
    "|".join(
        [
            # dates: "May 1, 2019", "1 May 2019", "2019-05-01", "2019.05.01"; "May 2019"
            rf"(?P<mdy>\b(?P<m1>{_MON})\s+(?P<d1>\d{{1,2}}){_DAY}(?P<c1>\s?,)?\s+(?P<y1>{_YEAR})\b)",
            rf"(?P<dmy>\b(?P<d2>\d{{1,2}}){_DAY}\s+(?:of\s+)?(?P<m2>{_MON}),?\s+(?P<y2>{_YEAR})\b)",
            rf"(?P<ymd>(?<![\w./:-])(?P<y3>{_YEAR})(?P<sep>[-./])(?P<m3>0?[1-9]|1[0-2])(?P=sep)"
            r"(?P<d3>[0-3]?\d)\b(?![./-]?\d))",
            rf"(?P<my>\b(?P<m4>{_MON}),?\s+(?:of\s+)?(?P<y4>{_YEAR})\b)",
            # quarters: "third quarter of 2024", "Q3 2024", "3Q24"; "fiscal 2022", "FY2022"
            rf"(?P<qw>\b(?P<qo>first|second|third|fourth)[\s-]quarter"
            rf"(?:\s+(?:of\s+)?(?:fiscal\s+)?(?:year\s+)?(?P<qy1>{_YEAR}))?)",
            rf"(?P<qq>\bQ(?P<qn1>[1-4])(?:\s*|[-/])(?:FY\s?|fiscal\s+)?'?(?P<qy2>{_YEAR}|\d\d)?\b)",
            r"(?P<qs>\b(?P<qn2>[1-4])Q\s?'?(?P<qy3>\d\d(?:\d\d)?)\b)",
            r"(?P<fy>\b(?:FY\s?'?|fiscal\s+(?:year\s+)?)(?P<fyy>\d{4}|\d\d)\b)",
            # seasons: "2019-20", "2019–2020"; decades: "the early 1990s"
            rf"(?P<season>\b(?P<s1>{_YEAR})(?P<ssep>[-–/])(?P<s2>\d\d|{_YEAR})\b(?![-–/]\d))",
            r"(?P<decade>\b(?:(?P<part>early|mid|late)[\s-]+)?(?P<dy>(?:1[5-9]|20)\d0)'?s\b)",
            # amounts: "$35.1 billion", "US$3m", "35 million dollars"
            rf"(?P<money>(?P<cur>{_CURRENCY_SIGN})\s?(?P<mn>{_NUM}){_END}"
            rf"(?:\s?(?P<ms>{_SCALE}|(?-i:[kmbMB])\b))?)",
            rf"(?P<money2>{_START}(?P<mn2>{_NUM}){_END}\s?(?:(?P<ms2>{_SCALE})\s)?"
            rf"(?P<cur2>{_CURRENCY_WORD}))",
            # percentages and points: "12%", "12 percent", "2.4 percentage points", "25 bps"
            rf"(?P<percent>{_START}(?P<pn>{_NUM}){_END}\s?(?P<pu>{_PERCENT}))",
            # numbers with a unit: "45 km", "2 hours", "three weeks", "a 54-hour strike"
            rf"(?P<quantity>(?:{_START}(?P<un>{_NUM}){_END}|(?P<uw>{_WORD_NUMBER}))"
            rf"(?P<joint>[\s-]?)(?P<uu>{_UNIT}))",
            # years, not a screen's "1920 x 1080"
            rf"(?P<year>{_START}(?<![x×]\s)(?P<yy>{_YEAR}){_END}(?![-–]\d|\s?[x×]\s?\d))",
            # counts: "300 patients", "2.5 million people", "three goals"
            rf"(?P<count>(?:{_START}(?P<cn>{_NUM}){_END}|(?P<cw>{_WORD_NUMBER}))"
            rf"(?:\s(?P<cs>{_SCALE}))?\s(?P<noun>(?-i:[a-z][a-z-]+[a-z])))",
            # any other number: read only to find ranges
            rf"(?P<number>{_START}(?P<nn>{_NUM}){_END})",
        ]
    ),
    re.I,
)
# Where a value can start: ``VALUE`` is tried only there, which keeps a reading of the public
# evidence (27 MB) to seconds. Each alternative of ``VALUE`` starts with one of these.
_TRIGGER = re.compile(
    rf"(?<!\d)\d|{_CURRENCY_SIGN}|\bQ(?=[1-4])|\bFY|\b(?:{_MON}|first|second|third|fourth"
    rf"|fiscal|early|mid|late|{alternation(NUMBER_WORDS)})\b",
    re.I,
)
# Web addresses: a date or a number in one is part of a name.
_ADDRESS = re.compile(r"\S+://\S+|\bwww\.\S+", re.I)

Key = tuple[str, str, tuple[float, ...]]


@dataclass(frozen=True)
class Value:
    """One value of a text: where it stands, its sort and unit, and what it amounts to."""

    start: int
    end: int
    sort: str  # money, percent, quantity, count, year, date, month, quarter, fiscal, season ...
    unit: str  # the currency and scale, the unit, the noun; "" where the sort says it all
    amount: tuple[float, ...]  # the number; (year, month, day); (quarter, year) ...
    text: str
    # Where the number itself stands: a swap replaces it and keeps the unit as written. None
    # for dates and periods, which are replaced whole.
    number: tuple[int, int] | None = None
    layout: str = ""  # how a date, quarter, season or percentage is written

    @property
    def key(self) -> Key:
        return self.sort, self.unit, self.amount

    @property
    def digits(self) -> str:
        """The number as written ("35.1" of "$35.1 billion")."""
        assert self.number is not None
        return self.text[self.number[0] - self.start : self.number[1] - self.start]


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
    """The value a match of ``VALUE`` reads; None for a count of a word that is no noun, a
    span of years that is no season, a day past 31."""
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
        month = int(written) if written.isdigit() else MONTHS[written.rstrip(".").casefold()]
        if not 1 <= int(day) <= 31:
            return None
        layout = whole + (":comma" if g("c1") else "") + (f":{g('sep')}" if g("sep") else "")
        return made("date", (float(year), float(month), float(day)), layout=layout)
    if whole == "my":
        return made("month", (float(g("y4")), float(MONTHS[g("m4").rstrip(".").casefold()])))
    if whole in {"qw", "qq", "qs"}:
        number = ORDINALS[g("qo").casefold()] if whole == "qw" else int(g("qn1") or g("qn2"))
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
        currency = CURRENCIES[(g("cur") or g("cur2")).casefold()]
        scale = SCALES.get((g("ms") or g("ms2") or "").casefold(), "")
        return numeric("money", f"{currency} {scale}".strip(), "mn" if g("mn") else "mn2")
    if whole == "percent":
        unit = PERCENT_UNITS[re.sub(r"\s+", " ", g("pu").casefold())]
        return numeric("percent", unit, "pn", layout="sign" if g("pu") == "%" else "word")
    if whole == "quantity":
        written = g("uu")
        unit = UNIT_SYMBOLS.get(written) or UNIT_WORDS[re.sub(r"\s+", " ", written.casefold())]
        layout = "joined" if g("joint") == "-" else ("attached" if not g("joint") else "")
        return numeric("quantity", unit, "un" if g("un") else "uw", layout=layout)
    if whole == "year":
        return made("year", (float(g("yy")),))
    if whole == "count":
        noun = g("noun")
        if noun in NOT_NOUNS or noun.casefold() in MONTHS:
            return None
        scale = (g("cs") or "").casefold()
        return numeric("count", f"{scale} {noun_stem(noun)}".strip(), "cn" if g("cn") else "cw")
    return numeric("number", "", "nn")


def scan(text: str) -> Iterator[re.Match[str]]:
    """The matches of ``VALUE`` in ``text`` as ``VALUE.finditer`` finds them, tried only where
    a value can start."""
    at = 0
    while (trigger := _TRIGGER.search(text, at)) is not None:
        match = VALUE.match(text, trigger.start())
        if match is None or not match.group(0):
            at = trigger.start() + 1
            continue
        yield match
        at = match.end()


def shifted(value: Value, by: int) -> Value:
    """``value`` as it stands in the part of its text that starts at ``by``."""
    number = None if value.number is None else (value.number[0] - by, value.number[1] - by)
    return replace(value, start=value.start - by, end=value.end - by, number=number)


@dataclass(frozen=True)
class Span:
    """Two values read as one: a range ("3-5%") or a change ("rose from 16.1% to 18.5%")."""

    low: Value
    high: Value
    start: int
    end: int
    rising: bool | None = None  # of a change: whether its verb says it rose

    def shifted(self, by: int) -> Span:
        return replace(
            self, low=shifted(self.low, by), high=shifted(self.high, by),
            start=self.start - by, end=self.end - by,
        )  # fmt: skip


@dataclass(frozen=True)
class Reading:
    """The values of a text, and the ranges and changes two of them make."""

    values: tuple[Value, ...]
    ranges: tuple[Span, ...]
    changes: tuple[Span, ...]

    def free(self) -> list[Value]:
        """The values that stand alone: in no range, and of a sort (a bare number has none)."""
        inside = {(v.start, v.end) for r in self.ranges for v in (r.low, r.high)}
        return [v for v in self.values if (v.start, v.end) not in inside and v.sort != "number"]

    def years(self) -> list[Value]:
        """The years of the dates, months, quarters, fiscal years and seasons, as years ("2016"
        of "Dec. 11, 2016"), standing where the whole value stands."""
        return [
            Value(v.start, v.end, "year", "", (year,), str(int(year)))
            for v in self.free()
            if v.sort in {"date", "month", "fiscal", "season", "quarter"}
            and (year := v.amount[1] if v.sort == "quarter" else v.amount[0])
        ]

    def within(self, start: int, end: int) -> Reading:
        """The values between ``start`` and ``end``, placed as in that part of the text."""

        def inside(found: tuple[Span, ...]) -> tuple[Span, ...]:
            return tuple(s.shifted(start) for s in found if start <= s.start and s.end <= end)

        values = tuple(shifted(v, start) for v in self.values if start <= v.start and v.end <= end)
        return Reading(values, inside(self.ranges), inside(self.changes))


_RANGE_GAP = re.compile(r"\s?[-–—]\s?|\s+to\s+|\s+and\s+")
_RISING, _FALLING = WORDS["words"]["rising"], WORDS["words"]["falling"]
_CHANGE_BEFORE = re.compile(rf"\b(?P<verb>{alternation(_RISING + _FALLING)})\s+from\s+$", re.I)
_BETWEEN_BEFORE = re.compile(r"\bbetween\s+$", re.I)
_FROM_BEFORE = re.compile(r"\bfrom\s+$", re.I)


def read_values(text: str) -> Reading:
    """The values of ``text`` (none inside a web address), its ranges ("3-5%", "3% to 5%",
    "between 3 and 5 percent") and its changes ("rose from 16.1% to 18.5%")."""
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
        alike = low.sort == "number" or (low.sort, low.unit) == (high.sort, high.unit)
        if not alike or not _RANGE_GAP.fullmatch(gap):
            continue
        word, before = gap.strip(), text[max(0, low.start - 40) : low.start]
        if word == "to" and (change := _CHANGE_BEFORE.search(before)) is not None:
            if low.sort == high.sort:
                rising = change.group("verb").casefold() in _RISING
                changes.append(Span(low, high, low.start, high.end, rising))
        elif word == "and":
            if (between := _BETWEEN_BEFORE.search(before)) is not None:
                ranges.append(Span(low, high, low.start - len(before) + between.start(), high.end))
        elif word != "to" or not _FROM_BEFORE.search(before):
            ranges.append(Span(low, high, low.start, high.end))
    return Reading(tuple(values), tuple(ranges), tuple(changes))


# --- what a value is of: the words next to it ---------------------------------------------------

_FRAME_WORDS = WORDS["frames"]
MARKERS = re.compile(
    rf"(?P<basis>\b(?:{alternation(_FRAME_WORDS['basis'])})\b)"
    rf"|(?P<period>\b(?:{alternation(_FRAME_WORDS['period'])})\b)"
    rf"|(?P<entity>\b(?:{alternation(_FRAME_WORDS['entity'])})\b"
    r"|(?<=[a-z,;] )(?-i:[A-Z][\w'&.-]*[a-z]\w*))",
    re.I,
)
_NOT_NAMES = frozenset(MONTHS) | frozenset(WORDS["weekdays"])
_SENTENCE_GAP = re.compile(r"\n\n|(?<=[.!?])\s+(?=[A-Z])")  # common.SENTENCE_END, and passages


@dataclass(frozen=True)
class Frame:
    """The words next to one value in its sentence: its period, basis and entity."""

    period: frozenset[str] = frozenset()
    basis: frozenset[str] = frozenset()
    entity: frozenset[str] = frozenset()


Frames = Callable[[], dict[tuple[int, int], Frame]]  # one evidence's frames, read when asked


def sentence_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where each sentence of ``text`` stands: its passages apart, each cut as
    ``common.SENTENCE_END`` cuts."""
    at = 0
    for gap in _SENTENCE_GAP.finditer(text):
        yield at, gap.start()
        at = gap.end()
    yield at, len(text)


def frames(text: str, reading: Reading) -> dict[tuple[int, int], Frame]:
    """The frame of each free value of ``text`` (read as ``reading``), by its span."""
    found: dict[tuple[int, int], Frame] = {}
    for start, end in sentence_spans(text):
        for (low, high), frame in sentence_frames(text[start:end], reading.within(start, end)):
            found[(start + low, start + high)] = frame
    return found


def sentence_frames(sentence: str, reading: Reading) -> Iterator[tuple[tuple[int, int], Frame]]:
    """Every marker of the sentence (a period, basis or entity word, or a date or period value
    as a period) goes to the nearest value of another sort; a marker before a comma that comes
    before all of the sentence's values ("Excluding special items, revenue ...") to all."""
    anchors = reading.free()
    if not anchors:
        return
    markers = [("period", f"{v.sort}:{v.amount}", v.start, v.end)
               for v in anchors if v.sort in TIME_SORTS]  # fmt: skip
    for match in MARKERS.finditer(sentence):
        word = match.group(0).casefold()
        if any(v.start <= match.start() < v.end for v in reading.values) or word in _NOT_NAMES:
            continue
        markers.append((match.lastgroup or "", word, match.start(), match.end()))
    first = min(v.start for v in anchors)
    slots: dict[tuple[int, int], dict[str, set[str]]] = {
        (v.start, v.end): collections.defaultdict(set) for v in anchors
    }
    for slot, word, start, end in markers:
        targets = [
            v for v in anchors
            if (v.start, v.end) != (start, end) and not (slot == "period" and v.sort in TIME_SORTS)
        ]  # fmt: skip
        if not targets:
            continue
        if end <= first and "," in sentence[end:first]:
            chosen = targets  # a fronted qualifier governs the whole sentence
        else:
            chosen = [min(targets, key=lambda v: min(abs(v.start - end), abs(start - v.end)))]
        for value in chosen:
            slots[(value.start, value.end)][slot].add(word)
    for span, words in slots.items():
        yield span, Frame(*(frozenset(words[slot]) for slot in ("period", "basis", "entity")))


def differs(value: Value, own: Frame, other: Frame) -> str:
    """What differs between the facts two values of one sort are of: basis, period, entity,
    else metric. A date or period is itself a period."""
    if value.sort in TIME_SORTS:
        return "period"
    for slot in ("basis", "period", "entity"):
        if getattr(own, slot) != getattr(other, slot):
            return slot
    return "metric"


# --- records and cases ------------------------------------------------------------------------


@dataclass(frozen=True)
class Record:
    id: str
    dataset: str
    claim: str
    evidence: str  # the passages joined as the pipeline joins them
    supported: bool


def load(path: Path, stride: int = 1) -> list[Record]:
    """The records of a claim file (every ``stride``-th)."""
    return [
        Record(
            raw["id"],
            raw["dataset"],
            raw["claim"],
            joined_evidence(raw),
            raw["label"] == "supported",
        )
        for number, raw in enumerate(read_jsonl(path))
        if number % stride == 0
    ]


@dataclass(frozen=True)
class Case:
    """One edited text, checked against its record's evidence."""

    family: str  # swap or restatement
    kind: str  # a swap's difference (basis, period, entity, metric), a restatement's kind
    sort: str  # the sort of value edited
    source: str  # claim, or evidence sentence
    record: Record = field(repr=False)
    original: str
    text: str
    was: str
    now: str

    @property
    def dataset(self) -> str:
        return self.record.dataset

    @property
    def source_kind(self) -> str:
        return f"{self.source}: {self.kind}"

    def row(self) -> dict[str, str]:
        """The case as one line of ``--cases``: without its evidence."""
        keys = ("family", "kind", "sort", "source", "dataset", "original", "text", "was", "now")
        return {"record": self.record.id} | {key: getattr(self, key) for key in keys}


def edited(text: str, start: int, end: int, new: str) -> tuple[str, str, str]:
    """``text`` with ``text[start:end]`` replaced by ``new`` (capitalised where the old text
    was): the edited text, the old words and the new."""
    old = text[start:end]
    if old[:1].isupper() and new[:1].islower():
        new = new[0].upper() + new[1:]
    return text[:start] + new + text[end:], old, new


# --- swaps ------------------------------------------------------------------------------------


def decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def rounds_to(value: float, rounded: float, places: int) -> bool:
    return bool(abs(round(value, places) - rounded) < 10 ** -(places + 3))


def same_figure(value: Value, other: Value) -> bool:
    """Whether two numbers are one figure to two precisions ("35.1" and "35")."""
    if value.number is None or other.number is None:
        return False
    mine, theirs = value.amount[0], other.amount[0]
    return rounds_to(mine, theirs, decimals(other.digits)) or rounds_to(
        theirs, mine, decimals(value.digits)
    )


def replacements(value: Value, offered: Sequence[Value], taken: set[Key]) -> dict[Key, Value]:
    """The values of ``offered`` that can replace ``value``: the same sort and unit, none of
    ``taken`` (the values of the text edited), not the same figure rounded."""
    found: dict[Key, Value] = {}
    for other in offered:
        alike = (other.sort, other.unit) == (value.sort, value.unit)
        if alike and other.key not in taken and not same_figure(value, other):
            found.setdefault(other.key, other)
    return found


def swapped(
    record: Record, source: str, text: str, value: Value, other: Value, own: Frame, theirs: Frame
) -> Case:
    """``text`` with ``value`` replaced by ``other``: the number alone where both are numbers
    (the text's unit stays as it wrote it), else the whole value."""
    if value.number is not None and other.number is not None:
        start, end, new = *value.number, other.digits
    else:
        start, end, new = value.start, value.end, other.text
    kind = differs(value, own, theirs)
    return Case("swap", kind, value.sort, source, record, text, *edited(text, start, end, new))


def claim_swaps(
    record: Record, evidence: Reading, frames_of: Frames, pick: random.Random
) -> list[Case]:
    """Each value of the claim that the evidence states, replaced by at most ``PER_VALUE`` of
    its replacements in the evidence, drawn with ``pick``."""
    claim = read_values(record.claim)
    offered = evidence.free() + evidence.years()
    stated = {v.key: v for v in reversed(offered)}  # the first place the evidence states it
    taken = {v.key for v in claim.free() + claim.years()}
    cases = []
    for value in claim.free():
        if value.key not in stated:
            continue
        found = replacements(value, offered, taken)
        keys = sorted(found)
        for key in pick.sample(keys, PER_VALUE) if len(keys) > PER_VALUE else keys:
            own, other = stated[value.key], found[key]
            frame = frames_of()
            cases.append(
                swapped(
                    record,
                    "claim",
                    record.claim,
                    value,
                    other,
                    frame.get((own.start, own.end), Frame()),
                    frame.get((other.start, other.end), Frame()),
                )
            )
    return cases


def sentence_swaps(
    record: Record, evidence: Reading, frames_of: Frames, pick: random.Random, seen: set[str]
) -> list[Case]:
    """One swap in each evidence sentence (each sentence once over the run) with a value of
    which another sentence of the evidence states another: the value and its replacement drawn
    with ``pick``."""
    offered = evidence.free() + evidence.years()
    cases = []
    for start, end in sentence_spans(record.evidence):
        sentence = record.evidence[start:end]
        if not SOURCE_LENGTH[0] <= len(sentence) <= SOURCE_LENGTH[1] or sentence in seen:
            continue
        seen.add(sentence)
        inside = [v for v in evidence.free() if start <= v.start and v.end <= end]
        taken = {v.key for v in offered if start <= v.start and v.end <= end}
        options = [(v, found) for v in inside if (found := replacements(v, offered, taken))]
        if not options:
            continue
        value, found = pick.choice(options)
        other = found[pick.choice(sorted(found))]
        frame = frames_of()
        cases.append(
            swapped(
                record,
                "evidence sentence",
                sentence,
                shifted(value, start),
                other,
                frame.get((value.start, value.end), Frame()),
                frame.get((other.start, other.end), Frame()),
            )
        )
    return cases


# --- restatements -----------------------------------------------------------------------------

Rewrite = tuple[str, str, int, int, str]  # kind, sort, where (start, end), the new words


def date_layouts(value: Value) -> Iterator[Rewrite]:
    """A full date in each other common layout."""
    year, month, day = (int(x) for x in value.amount)
    name = WORDS["months"][month - 1]
    layouts = {
        "date_month_first": (f"{name} {day}, {year}", "mdy:comma"),
        "date_no_comma": (f"{name} {day} {year}", "mdy"),
        "date_day_first": (f"{day} {name} {year}", "dmy"),
        "date_iso": (f"{year}-{month:02d}-{day:02d}", "ymd:-"),
        "date_dotted": (f"{year}.{month:02d}.{day:02d}", "ymd:."),
    }
    for kind, (new, layout) in layouts.items():
        if layout != value.layout:
            yield kind, "date", value.start, value.end, new


def quarter_layouts(text: str, value: Value) -> Iterator[Rewrite]:
    """A quarter with its year in words, as "Q3 2024" and as "3Q24"; "the" goes with words."""
    number, year = int(value.amount[0]), int(value.amount[1])
    if not year:
        return
    ordinal = next(word for word, n in ORDINALS.items() if n == number)
    the = text[: value.start].casefold().endswith("the ")
    start = value.start - 4 if the else value.start
    layouts = {
        "quarter_words": ("qw", f"the {ordinal} quarter of {year}"),
        "quarter_q": ("qq", f"Q{number} {year}"),
        "quarter_shorthand": ("qs", f"{number}Q{year % 100:02d}"),
    }
    for kind, (layout, new) in layouts.items():
        if layout != value.layout:
            yield kind, "quarter", start, value.end, new


def other_words(value: Value) -> Iterator[Rewrite]:
    """A fiscal year, a season or a percentage written the other common way."""
    if value.sort == "fiscal":
        year = int(value.amount[0])
        new = f"fiscal {year}" if value.layout == "fy" else f"FY{year}"
        yield "fiscal_year", "fiscal", value.start, value.end, new
    elif value.sort == "season":
        first = int(value.amount[0])
        new = f"{first}/{first + 1}" if value.layout != "/" else f"{first}-{(first + 1) % 100:02d}"
        yield "season_layout", "season", value.start, value.end, new
    elif value.sort == "percent" and value.unit == "%":
        sign = value.layout == "sign"
        new = f"{value.digits} percent" if sign else f"{value.digits}%"
        yield "percent_word" if sign else "percent_sign", "percent", value.start, value.end, new


# unit: (kind, factor, the unit written after, the least and the most amount converted)
CONVERSIONS = {
    "h": ("hours_to_minutes", Decimal(60), "minutes", Decimal(0), Decimal(1000)),
    "min": ("minutes_to_hours", 1 / Decimal(60), "hours", Decimal(60), Decimal(10_000)),
    "km": ("km_to_m", Decimal(1000), "metres", Decimal(0), Decimal(1000)),
    "m": ("m_to_km", 1 / Decimal(1000), "kilometres", Decimal(1000), Decimal(10**6)),
    "kg": ("kg_to_g", Decimal(1000), "grams", Decimal(0), Decimal(1000)),
    "g": ("g_to_kg", 1 / Decimal(1000), "kilograms", Decimal(1000), Decimal(10**6)),
    "bp": ("bp_to_pp", 1 / Decimal(100), "percentage points", Decimal(0), Decimal(1000)),
    "pp": ("pp_to_bp", Decimal(100), "basis points", Decimal(0), Decimal(5)),
}


def decimal_text(number: Decimal) -> str:
    """A number as text writes it: no exponent, no trailing zeros, thousands grouped from
    10,000."""
    if number == number.to_integral_value():
        whole = int(number)
        return f"{whole:,}" if whole >= 10_000 else str(whole)
    return format(number.normalize(), "f")


def conversions(value: Value) -> Iterator[Rewrite]:
    """A number with a unit in another unit ("2 hours" as "120 minutes"), exact to two
    decimals; not a unit joined to its number as an adjective ("a 54-hour strike"), nor "m"
    written on the number ("20m" is as often millions)."""
    if value.unit not in CONVERSIONS or value.number is None or value.layout == "joined":
        return
    if value.unit == "m" and value.layout == "attached":
        return
    kind, factor, unit, least, most = CONVERSIONS[value.unit]
    amount = Decimal(str(value.amount[0]))
    converted = amount * factor
    if not least <= amount <= most or converted != converted.quantize(Decimal("0.01")):
        return
    yield kind, value.sort, value.start, value.end, f"{decimal_text(converted)} {unit}"


COMPARATORS: dict[str, tuple[str, str, str]] = {
    words: (f"comparator_{kind}", *forms)
    for kind, table in WORDS["comparators"].items()
    for words, forms in table.items()
}
COMPARATOR = re.compile(
    rf"\b(?P<words>{alternation(COMPARATORS)})\s+(?P<number>\d+(?:\.\d+)?)\b(?![.,]\d)", re.I
)
_NEGATED = re.compile(r"\b(?:no|not)\s+$", re.I)
# An age: "under 18 years old", "younger than 18 years of age", "children under 5".
_AGE_AFTER = re.compile(r"\s*(?:years?\s+old|years?\s+of\s+age|-years?-olds?)\b", re.I)
_AGE_BEFORE = re.compile(r"\b(?:aged?|children|kids|people|adults|persons?)\s+$", re.I)


def comparators(text: str, amounts: set[tuple[float, ...]]) -> Iterator[Rewrite]:
    """ "under 18" as "younger than 18" where an age is meant (else "less than 18"), "aged under
    18" as "aged <18", "more than 50" as "over 50" ...: where ``amounts`` holds the number, and
    not after "no" or "not" ("no more than" is not "no over")."""
    for match in COMPARATOR.finditer(text):
        number = match.group("number")
        if (to_number(number),) not in amounts or _NEGATED.search(text, 0, match.start()):
            continue
        kind, for_age, plain = COMPARATORS[re.sub(r"\s+", " ", match.group("words").casefold())]
        age = _AGE_AFTER.match(text, match.end()) or _AGE_BEFORE.search(text, 0, match.start())
        new = (for_age if age else plain).format(n=number)
        yield kind, "comparator", match.start(), match.end(), new


def range_layouts(text: str, span: Span) -> Iterator[Rewrite]:
    """ "3-5%" as "3% to 5%" and "between 3 and 5 percent", and back; "1-3 months" as "1 to 3
    months" and "between 1 and 3 months": percentages and numbers with a unit."""
    low, high = span.low, span.high
    if high.sort not in {"percent", "quantity"} or high.number is None or high.layout == "joined":
        return
    first = low.digits if low.number is not None else low.text
    unit = text[high.number[1] : high.end]
    sign = unit.strip() == "%"
    layouts = {
        "range_dash": f"{first}-{high.digits}{unit}",
        "range_to": f"{first}{unit if sign else ''} to {high.digits}{unit}",
        "range_between": f"between {first} and {high.digits}{' percent' if sign else unit}",
    }
    written = text[span.start : span.end].casefold()
    own = "range_between" if written.startswith("between") else (
        "range_to" if " to " in written else "range_dash")  # fmt: skip
    for kind, new in layouts.items():
        if kind != own:
            yield kind, high.sort, span.start, span.end, new


def derivations(text: str, span: Span) -> Iterator[Rewrite]:
    """ "rose from 16.1% to 18.5%" as "rose by 2.4 percentage points", "rose from $10 million to
    $12 million" as "rose by 20%": rounded to the precision of the levels (a percent change to
    a whole number, or one decimal where that is not whole)."""
    low, high = span.low, span.high
    if low.number is None or high.number is None or (low.unit, low.sort) != (high.unit, high.sort):
        return
    a, b = low.amount[0], high.amount[0]
    if a == b or (b > a) != span.rising:
        return
    start = text.rindex("from", 0, low.start)
    if low.sort == "percent" and low.unit == "%":
        places = max(decimals(low.digits), decimals(high.digits))
        points = f"{abs(b - a):.{places}f}"
        unit = "percentage point" if points == "1" else "percentage points"
        yield "pp_difference", "percent", start, span.end, f"by {points} {unit}"
    elif low.sort in {"money", "count", "quantity"} and a > 0:
        change = abs(b - a) / a * 100
        written = f"{change:.0f}" if round(change, 1) == round(change) else f"{change:.1f}"
        yield "percent_change", low.sort, start, span.end, f"by {written}%"


# Quoted words stay as the source wrote them: no restatement inside quotation marks.
_QUOTED = re.compile(r'"[^"]*"|\u201c[^\u201d]*\u201d')


def restatements(text: str, reading: Reading, evidence: Reading | None) -> Iterator[Rewrite]:
    """Each restatement of ``text`` (read as ``reading``). With ``evidence`` (a claim's), only
    of values it states, both ends of a range or change; without (an evidence sentence), of
    every value."""
    stated = {v.key for v in (evidence or reading).values}
    amounts = {v.amount for v in (evidence or reading).values}

    def known(*values: Value) -> bool:
        return all(v.key in stated or (v.sort == "number" and v.amount in amounts) for v in values)

    rewrites: list[Rewrite] = []
    for value in reading.free():
        if not known(value):
            continue
        if value.sort == "date":
            rewrites += date_layouts(value)
        elif value.sort == "quarter":
            rewrites += quarter_layouts(text, value)
        else:
            rewrites += other_words(value)
            rewrites += conversions(value)
    rewrites += (r for s in reading.ranges if known(s.low, s.high) for r in range_layouts(text, s))
    rewrites += (r for s in reading.changes if known(s.low, s.high) for r in derivations(text, s))
    rewrites += comparators(text, amounts)
    quoted = [m.span() for m in _QUOTED.finditer(text)]
    for rewrite in rewrites:
        if not any(low < rewrite[3] and rewrite[2] < high for low, high in quoted):
            yield rewrite


def restated(record: Record, source: str, text: str, rewrites: Iterator[Rewrite]) -> list[Case]:
    return [
        Case("restatement", kind, sort, source, record, text, *edited(text, start, end, new))
        for kind, sort, start, end, new in rewrites
    ]


def sentence_restatements(record: Record, evidence: Reading, seen: set[str]) -> list[Case]:
    """Restatements of the evidence sentences of a record (each sentence once over the run)."""
    cases = []
    for start, end in sentence_spans(record.evidence):
        sentence = record.evidence[start:end]
        if not SOURCE_LENGTH[0] <= len(sentence) <= SOURCE_LENGTH[1] or sentence in seen:
            continue
        seen.add(sentence)
        reading = evidence.within(start, end)
        if reading.values:
            rewrites = restatements(sentence, reading, None)
            cases += restated(record, "evidence sentence", sentence, rewrites)
    return cases


def build(records: Sequence[Record], seed: int, per_sort: int, per_kind: int) -> list[Case]:
    """Every case of the records: swaps and restatements of the supported claims, and from
    evidence sentences at most ``per_sort`` swaps of each sort of value and ``per_kind``
    restatements of each kind, all drawn with ``seed``."""
    claim_pick, sentence_pick, draw = (random.Random(seed + n) for n in range(3))
    cases: list[Case] = []
    from_sentences: dict[tuple[str, str], list[Case]] = collections.defaultdict(list)
    swapped_sentences: set[str] = set()
    restated_sentences: set[str] = set()
    for record in records:
        evidence = read_values(record.evidence)
        frames_of: Frames = functools.cache(functools.partial(frames, record.evidence, evidence))
        if record.supported:
            cases += claim_swaps(record, evidence, frames_of, claim_pick)
            claim = read_values(record.claim)
            cases += restated(
                record, "claim", record.claim, restatements(record.claim, claim, evidence)
            )
        for case in sentence_swaps(record, evidence, frames_of, sentence_pick, swapped_sentences):
            from_sentences[("swap", case.sort)].append(case)
        for case in sentence_restatements(record, evidence, restated_sentences):
            from_sentences[("restatement", case.kind)].append(case)
    for (family, _), found in sorted(from_sentences.items()):
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


GROUPS = ("kind", "sort", "dataset", "source", "source_kind")


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
    """Each case and, once, each text it was edited from, checked against its evidence."""
    checks = default_checks()
    originals: dict[tuple[str, str], bool] = {}
    results = Results()
    # Each record's cases together: the checks keep the readings of the last texts they read.
    order = {record: n for n, record in enumerate(dict.fromkeys(c.record.id for c in cases))}
    for case in sorted(cases, key=lambda case: order[case.record.id]):
        evidence = case.record.evidence
        key = (case.record.id, case.original)
        if key not in originals:
            originals[key] = outcome_of(checks, case.original, evidence) is not None
        results.add(case, outcome_of(checks, case.text, evidence), originals[key], show)
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
                f"{name:<48}{f'{t.flagged}/{t.cases}':>11}{percent(t.flagged, t.cases):>7.1f}%"
                f"{f'{t.flagged_clean}/{t.clean}':>11}{percent(t.flagged_clean, t.clean):>7.1f}%"
                f"   {found}   [{checks}]"
            )
    for label, shown in sorted(results.shown.items()):
        lines.append(f"== {label}: {'passed' if label.startswith('swap') else 'flagged'}")
        lines.extend(f"  {line}" for line in shown)
    return "\n".join(lines)


def summary(results: Results) -> str:
    """Swaps caught and restatements flagged, in all and of claims; swaps caught as conflicts."""
    parts = []
    for family, verb in (("swap", "caught"), ("restatement", "flagged")):
        tallies = results.tallies.get(family, {})
        if "all" not in tallies:
            continue
        every, claims = tallies["all"], tallies["source:claim"]
        part = (
            f"{family}s {verb} {every.flagged}/{every.cases} "
            f"({percent(every.flagged, every.cases):.2f} %; of claims {claims.flagged}/"
            f"{claims.cases})"
        )
        if family == "swap":
            part += f", {every.found['conflict']} as conflicts"
        parts.append(part)
    return "; ".join(parts)


def data_sets(paths: Sequence[Path], quick: bool) -> list[Record]:
    """The records of ``paths``; of the public set, every tenth in a quick run."""
    return [
        record
        for path in paths
        for record in load(path, QUICK_STRIDE if quick and path == PUBLIC_CLAIMS else 1)
    ]


def run(
    paths: Sequence[Path],
    quick: bool,
    expected: Path | None,
    seed: int = 0,
    show: int = 3,
    cases_out: Path | None = None,
) -> tuple[GateResult, Results | None]:
    # The figures are of all the data sets together: without one, there is nothing to compare.
    reason = missing_data(*paths)
    if reason is not None:
        return skipped(NAME, reason), None
    started = time.perf_counter()
    share = 5 if quick else 1
    cases = build(data_sets(paths, quick), seed, PER_SORT // share, PER_KIND // share)
    if cases_out is not None:
        with cases_out.open("w", encoding="utf-8") as handle:
            handle.writelines(json.dumps(c.row(), ensure_ascii=False) + "\n" for c in cases)
    results = measure(cases, show)
    seconds = time.perf_counter() - started
    wanted = read_expected(expected)
    mode = "quick" if quick else "full"
    problems = []
    if wanted is not None:
        if mode not in wanted:
            raise SystemExit(f"no {mode} figures in {expected}: write them with --write-expected")
        problems = regressions(figures(results), wanted[mode])
    return judged(NAME, summary(results), problems, seconds, report(results)), results


def write_run(path: Path, mode: str, results: Results, seconds: float) -> None:
    """Record one run's figures (full or quick) in ``path``, keeping the other's."""
    written = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    written[mode] = {"measured": measured(seconds), **figures(results)}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(written, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


def gate(quick: bool = False, expected: Path | None = None) -> GateResult:
    """The value-swap gate against the committed figures (the quick ones with ``quick``)."""
    return run(DATA, quick, expected or expected_file(NAME))[0]


def main(argv: Sequence[str] | None = None) -> int:
    parser = gate_parser(__doc__, NAME, quick="the dev set and every tenth public record")
    parser.add_argument(
        "--data", type=Path, nargs="+", default=list(DATA), metavar="FILE",
        help="claim files in the shared records' format (default: dev and public)",
    )  # fmt: skip
    parser.add_argument("--show", type=int, default=3, help="examples of each kind gone wrong")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cases", type=Path, metavar="FILE", help="write the cases built here")
    args = parser.parse_args(argv)
    expected = compared_with(args)
    result, results = run(args.data, args.quick, expected, args.seed, args.show, args.cases)
    if args.write_expected and results is not None:
        write_run(args.write_expected, "quick" if args.quick else "full", results, result.seconds)
    return finish(result)


if __name__ == "__main__":
    sys.exit(main())
