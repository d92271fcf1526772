"""Finding numbers in normalised text, with their unit, scale, sign and stated precision.

The words around a number that change its reading come from the word lists: approximations
and limits ("about", "more than", "or more"), periods of a rate ("a month", "daily"), and
what a bare number counts ("2 tablets", not "2 and").
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from enum import Enum
from functools import cache
from typing import TYPE_CHECKING

from judge.reading import lexicon
from judge.reading.languages import CJK_LETTERS
from judge.reading.values import numerals, units
from judge.reading.words import is_function_word

if TYPE_CHECKING:
    from judge.reading.languages import Conventions

# Letters of the scripts that write a number and its counter or unit with no space between
# ("30天", "2019年"): a digit after one of them starts a number, and one after the digits is
# not a name glued to them.
_CJK = CJK_LETTERS
_CJK_LETTER = re.compile(f"[{_CJK}]")
# No letter, digit or separator right before a number's first digit (a letter of those
# scripts aside), or a currency code glued to it ("USD25").
_START = rf"(?:(?<![.,:/^])(?<!(?![{_CJK}])\w)|{units.GLUED_CODE_BEFORE})"
_END = r"(?![\d,]\d|\.\d)"
# The digits of one number where the decimal point is a dot. Thousands groups with "," or
# spaces ("12 000"), or with dots when there are at least two groups ("1.500.000"); a single
# dot group ("1.500") stays a decimal point.
_POINT_DIGITS = re.compile(
    rf"{_START}(?:"
    r"(?P<commas>\d{1,3}(?:,\d{3})+(?:\.\d+)?)"
    r"|(?P<dots>\d{1,3}(?:\.\d{3}){2,}(?:,\d+)?|\d{1,3}(?:\.\d{3})+,\d{1,2})"
    r"|(?P<spaces>\d{1,3}(?: \d{3})+)"
    r"|(?P<comma_decimal>\d+,\d{1,2})"
    r"|(?P<plain>\d+(?:\.\d+)?|\.\d+)"
    rf"){_END}"
)
# Where the decimal point is a comma ("3,5 %", "1.234,5", "1 234,5", "1'234.50"): a dot or a
# space before three digits groups thousands; a comma before digits is the decimal point,
# unless the number is written the English way beyond doubt ("1,234,567", "1,234.5").
_COMMA_DIGITS = re.compile(
    rf"{_START}(?:"
    r"(?P<dots>\d{1,3}(?:\.\d{3})+(?:,\d+)?)"
    r"|(?P<spaces>\d{1,3}(?: \d{3})+(?:,\d+)?)"
    r"|(?P<apostrophes>\d{1,3}(?:'\d{3})+(?:[.,]\d+)?)"
    r"|(?P<commas>\d{1,3}(?:,\d{3}){2,}(?:\.\d+)?|\d{1,3}(?:,\d{3})+\.\d+)"
    r"|(?P<comma_decimal>\d+,\d+)"
    r"|(?P<plain>\d+(?:\.\d+)?)"
    rf"){_END}"
)
ENGLISH = "en"


@dataclass(frozen=True)
class _Grammar:
    """How numbers are written in one language: its digits and the words around them."""

    digits: re.Pattern[str]
    words: units.UnitWords
    decimal_comma: bool
    english: bool  # read English number words, counted nouns and periods


@cache
def _grammar(language: str, decimal: str) -> _Grammar:
    english = language in {ENGLISH, "und"}
    return _Grammar(
        digits=_COMMA_DIGITS if decimal == "," else _POINT_DIGITS,
        words=units.unit_words(ENGLISH if english else language),
        decimal_comma=decimal == ",",
        english=english,
    )


def _grammar_of(conventions: Conventions | None) -> _Grammar:
    if conventions is None:
        return _grammar(ENGLISH, ".")
    return _grammar(conventions.language, conventions.decimal)


_EN = units.unit_words()
_DOT_THOUSANDS = re.compile(r"[1-9]\d{0,2}\.\d{3}")
_ORDINAL_SUFFIX = re.compile(r"^(?:st|nd|rd|th)\b", re.IGNORECASE)
_TIME_AROUND = re.compile(r"^:\d")
_GLUED_NAME = re.compile(r"[A-Za-z][-/]$")  # "COVID-19", "SARS-CoV-2": part of a name
_SIGN = re.compile(r"(?:^|[\s(\[=:;,])-$")


def _phrases(*lists: tuple[str, str]) -> str:
    """An alternation of the phrases of (list, group) pairs, longest first, spaces flexible."""
    return lexicon.alternation(
        {phrase for name, group in lists for phrase in lexicon.words(name, name=group)}
    )


def _before(alternation: str) -> re.Pattern[str]:
    """The phrases as the last words before a number; a phrase in letters stands as words."""
    return re.compile(rf"(?:(?<![\w])(?:{alternation}))\s*$", re.IGNORECASE)


_LIMITS_BEFORE = (("limits", "at_least"), ("limits", "at_most"))
_LIMITS_AFTER = (("limits", "at_least_after"), ("limits", "at_most_after"))
_APPROX_BEFORE = _before(_phrases(("approximations", "before"), *_LIMITS_BEFORE))
_APPROX_AFTER = re.compile(
    rf"^\s?-?(?:{_phrases(('approximations', 'after'), *_LIMITS_AFTER)})(?!\w)", re.IGNORECASE
)


class Bound(Enum):
    """A number stated as a limit: "more than 20" is at least 20, "under 10%" at most 10%."""

    AT_LEAST = "at least"
    AT_MOST = "at most"


# Negated limits first: "no more than" ends in "more than" but is an upper limit; the list
# gives them first, and each group is read in list order.
def _bounds(groups: tuple[str, ...]) -> tuple[tuple[Bound, str], ...]:
    found = []
    for entry in lexicon.entries("limits"):
        if entry.name in groups:
            bound = Bound.AT_LEAST if entry.name.startswith("at_least") else Bound.AT_MOST
            found.append(
                (bound, "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in entry.words))
            )
    return tuple(found)


_BOUND_BEFORE: tuple[tuple[Bound, re.Pattern[str]], ...] = tuple(
    (bound, _before(alternation)) for bound, alternation in _bounds(("at_least", "at_most"))
)
_BOUND_AFTER: tuple[tuple[Bound, re.Pattern[str]], ...] = tuple(
    (bound, re.compile(rf"^\s?-?(?:{alternation})(?!\w)", re.IGNORECASE))
    for bound, alternation in _bounds(("at_least_after", "at_most_after"))
)


# A rate's period right after its number and unit: "$4.99 a month", "10 mg per day", "$49/yr",
# "paid monthly"; not a point in time ("$5 a year ago", "a week later").
def _period_words() -> tuple[dict[str, str], frozenset[str]]:
    """(spelling -> the period it names, words after which a period is a point in time)."""
    periods: dict[str, str] = {}
    for entry in lexicon.entries("periods"):
        if entry.name != "not_a_rate":
            periods.update(dict.fromkeys(entry.words, entry.name))
    return periods, lexicon.words("periods", name="not_a_rate")


_PERIODS, _NOT_A_RATE = _period_words()
_PERIOD_AFTER = re.compile(
    # "$12 per user per month": the rate's period after what it is per.
    r"^\s*(?:per\s+[a-z]+\s+)?(?:(?:a|an|per|each|every)\s+|/\s*)"
    r"(?P<unit>"
    + "|".join(sorted((w for w in _PERIODS if not w.endswith("ly")), key=len, reverse=True))
    + r")\b"
    r"(?!\s+(?:" + "|".join(sorted(_NOT_A_RATE)) + r")\b)"
    r"|^\s+(?P<adverb>"
    + "|".join(sorted((w for w in _PERIODS if w.endswith("ly")), key=len, reverse=True))
    + r")\b",
    re.IGNORECASE,
)


def _period(rest: str) -> str | None:
    """The period of a rate stated right at the start of ``rest``, if any."""
    match = _PERIOD_AFTER.match(rest[:40])
    if match is None:
        return None
    word = (match.group("unit") or match.group("adverb")).casefold()
    return _PERIODS[word]


def _bound(before: str, after: str, words: units.UnitWords = _EN) -> Bound | None:
    """The limit the words around a number make of it, if any."""
    # The limit stands before the currency of an amount: "under $50", "over EUR 10".
    before = words.currency_before.sub("", before)
    for bound, pattern in _BOUND_BEFORE:
        if pattern.search(before):
            return bound
    for bound, pattern in _BOUND_AFTER:
        if pattern.match(after):
            return bound
    return None


def with_limit(quantity: Quantity, text: str) -> str:
    """The number as ``text`` writes it with the words that make it a limit ("at most 5 days",
    "under $50", "50 or more"), read as :func:`_bound` reads them; the number alone when it is
    none."""
    if quantity.bound is None:
        return quantity.text
    start, end = quantity.start, quantity.end
    window = max(0, start - 24)
    before = _EN.currency_before.sub("", text[window:start])
    for _, pattern in _BOUND_BEFORE:
        if found := pattern.search(before):
            return text[window + found.start() : end]
    for _, pattern in _BOUND_AFTER:
        if found := pattern.match(text[end : end + 24]):
            return text[start : end + found.end()]
    return quantity.text


_CURRENCY_WRITTEN_BEFORE = re.compile(r"(?:[$€£¥₹]|\b[A-Z]{3}|\bUS\$)\s?$")


def written_start(quantity: Quantity, text: str) -> int:
    """Where an amount begins as ``text`` writes it: at its currency sign or code ("$35.1
    billion", "EUR 12.3 billion"); a number's own start otherwise."""
    if not units.is_currency(quantity.unit):
        return quantity.start
    before = _CURRENCY_WRITTEN_BEFORE.search(text[max(0, quantity.start - 5) : quantity.start])
    return quantity.start - len(before.group(0)) if before else quantity.start


# A height in feet and inches, as sports writing gives it: "6-foot-4", "6-foot-four".
_HEIGHT = re.compile(r"\w+-(?:foot|feet)-\w+", re.IGNORECASE)
# Between the two ends of a range. After "to" the second may repeat the currency ("$50 to
# $100 million"); after "and" a repeated one more often starts another amount.
_RANGE_JOIN = re.compile(r"^\s*(?:(?:-|to|through)\s*(?:[$€£¥]\s*)?|(?:and|or)\s*)$", re.IGNORECASE)


@dataclass(frozen=True)
class Quantity:
    """One number as written. ``exponent`` is the power of ten of its last written digit after
    scaling ("1.5 million" -> 5, "40" -> 0); ``coarse`` that of its last non-zero digit
    ("20,000" -> 4), the coarsest rounding the writer may have meant."""

    value: Decimal
    exponent: int
    coarse: int
    negative: bool
    unit: str | None
    approx: bool
    ordinal: bool
    spelled: bool
    scale: int
    text: str
    start: int
    end: int
    checkable: bool = True  # False for numbers a claim uses as words or names ("one of", "3D")
    # A number without a unit that counts the thing named right after it ("2 tablets"): not
    # the same quantity as a measured claim number ("2 days").
    counts: bool = False
    bound: Bound | None = None
    # The period a rate is stated over ("$4.99 a month", "10 mg daily"): "month", "day", ...
    per: str | None = None


def find_quantities(text: str, conventions: Conventions | None = None) -> list[Quantity]:
    """Every number in ``text`` (already passed through ``normalise``), in reading order,
    read by the conventions of the text's language (English's when none are given)."""
    grammar = _grammar_of(conventions)
    digits = list(_digit_quantities(text, grammar))
    found = digits
    if grammar.english:
        taken = _Spans(len(text), [(q.start, q.end) for q in digits])
        words = [q for q in _word_quantities(text) if not taken.overlaps(q.start, q.end)]
        found = sorted(digits + words, key=lambda q: q.start)
    return _join_ratios(text, _join_money(text, _join_ranges(text, found)))


# Numbers as tokenised text writes them: "100, 000" for 100,000 and "2.  4" for 2.4 (a
# sentence splitter may even have broken the line at the decimal point).
_TOKENISED = re.compile(r"(?<![\d.,])\d{1,3}(?:, \d{3})+(?!\d)|(?<![\d.])\d+\.\s{1,2}\d+(?!\d)")
_TOKENISED_GAP = re.compile(r"(?<=[,.])\s+")


def tokenised_readings(text: str, conventions: Conventions | None = None) -> list[Quantity]:
    """Second readings of the numbers that tokenised text splits ("100, 000", "2.  4"), read
    as if written whole; they stand beside the first readings and are never claims of their
    own (``checkable`` off): evidence that writes a number this way still states it."""
    spans = [match.span() for match in _TOKENISED.finditer(text)]
    if not spans:
        return []

    def whole(match: re.Match[str]) -> str:
        written = match.group(0)
        compact = _TOKENISED_GAP.sub("", written)
        return compact + " " * (len(written) - len(compact))  # offsets stay where they were

    joined = _TOKENISED.sub(whole, text)
    found = []
    for q in find_quantities(joined, conventions):
        end = next((e for s, e in spans if s <= q.start < e), None)
        if end is not None:
            found.append(replace(q, checkable=False, text=text[q.start : max(q.end, end)]))
    return found


@dataclass(frozen=True)
class _Before:
    negative: bool
    unit: str | None
    approx: bool
    name_like: bool


@dataclass(frozen=True)
class _After:
    ordinal: bool
    scale: int
    unit: str | None
    approx: bool
    glued_letters: bool
    length: int


def _digit_quantities(text: str, grammar: _Grammar) -> Iterator[Quantity]:
    words = grammar.words
    for match in grammar.digits.finditer(text):
        mantissa, decimals = _parse_digits(match)
        if mantissa is None:
            continue
        before = _read_before(text[max(0, match.start() - 24) : match.start()], words)
        after = _read_after(text[match.end() : match.end() + 40], before.unit, words)
        end = match.end() + after.length
        counts = (
            grammar.english
            and after.unit is None
            and not after.ordinal
            and _counts_a_thing(text[end:])
        )
        if counts and not after.scale and _DOT_THOUSANDS.fullmatch(match.group(0)):
            # Things are counted in whole numbers: "1.000 respondents" groups thousands.
            mantissa, decimals = mantissa.scaleb(3), 0
        coarse = _trailing_zeros(mantissa) if decimals == 0 else -decimals
        shift = -2 if after.unit == BASIS_POINT else 0  # basis points read as points
        yield Quantity(
            value=mantissa.scaleb(after.scale + shift),
            exponent=after.scale - decimals + shift,
            coarse=after.scale + coarse + shift,
            negative=before.negative,
            unit=units.POINTS if after.unit == BASIS_POINT else after.unit,
            approx=before.approx or after.approx,
            ordinal=after.ordinal,
            spelled=False,
            scale=after.scale,
            text=text[match.start() - before.negative : end],
            start=match.start(),
            end=end,
            checkable=not (
                before.name_like
                or after.glued_letters
                or _names_with_year(mantissa, decimals, text[end:])
            ),
            counts=counts,
            bound=_bound(
                text[max(0, match.start() - 24) : match.start()], text[end : end + 24], words
            ),
            per=_period(text[end:]) if grammar.english else None,
        )


# Words that may follow a number without naming what it counts: function words, and the
# joiners of lists, ranges and changes ("3 times", "5 up from 4").
_NOT_COUNTED = lexicon.words("number_words", name="not_counted")
# Units too ambiguous to read and not things counted either: "5 pounds" is a price as often as
# a weight, so it stands against "£5" and "5 lb" alike; "5 pounds of beef" weighs something.
_AMBIGUOUS_UNITS = lexicon.words("measures", name="ambiguous")
_OF = re.compile(r"\s+of\b")
_NEXT_WORD = re.compile(r"[ \t]+([a-z][a-z-]{2,})\b")


def counted_noun(rest: str) -> str | None:
    """The lower-case noun that ``rest`` (the text after a unit-less number) opens with and
    the number counts: "tablets" of "2 tablets"; none for "2 and", nor for "7 business days"
    (a unit follows)."""
    word = _NEXT_WORD.match(rest[:40])
    if word is None or word.group(1) in _NOT_COUNTED or is_function_word(word.group(1)):
        return None
    if word.group(1) in _AMBIGUOUS_UNITS and not _OF.match(rest[word.end() :]):
        return None
    # The caller found no unit right after the number; one after the word ("business days")
    # names what the number measures.
    if _unit_after(rest[word.end() :], None, _EN)[0] is not None:
        return None
    return word.group(1)


def _counts_a_thing(rest: str) -> bool:
    return counted_noun(rest) is not None


def _read_before(before: str, words: units.UnitWords) -> _Before:
    """Sign, currency and hedge in front of a number."""
    name_like = bool(_GLUED_NAME.search(before))
    negative = bool(_SIGN.search(before))
    if negative:
        before = before[:-1]
    unit = None
    if currency := words.currency_before.search(before):
        unit = words.currency(currency.group(0))
        before = before[: currency.start()]
    return _Before(negative, unit, bool(_APPROX_BEFORE.search(before)), name_like)


# A year joined by a hyphen to a word names something: "2019-nCoV".
_YEAR_NAMED = re.compile(r"-[A-Za-z]")


def _names_with_year(value: Decimal, decimals: int, rest: str) -> bool:
    return decimals == 0 and 1000 <= value <= 2199 and _YEAR_NAMED.match(rest) is not None


def _read_after(after: str, unit: str | None, words: units.UnitWords) -> _After:
    """Ordinal suffix, scale, unit and hedge after a number, and how much text they take."""
    if _TIME_AROUND.match(after):
        return _After(False, 0, unit, False, True, 0)
    ordinal, scale, length = False, 0, 0
    if suffix := _ORDINAL_SUFFIX.match(after):
        ordinal, length = True, suffix.end()
    elif word := words.scale_word.match(after) or words.scale_before_currency.match(after):
        scale, length = words.scales[word.group(1).casefold()], word.end()
    elif (glued := words.scale_suffix.match(after)) and _suffix_is_scale(
        glued.group(1), unit, after[glued.end() :], words
    ):
        scale, length = words.scales[glued.group(1).casefold()], glued.end()
    if not ordinal:
        unit, consumed = _unit_after(after[length:], unit, words)
        if unit is None and scale and (pounds := _SCALED_POUNDS.match(after[length:])):
            unit, consumed = units.currency_family("gbp"), pounds.end()
        length += consumed
    rest = after[length:]
    # Digits glued to unknown letters are names or codes: "3D", "5G", "1940s"; not to a
    # character of a script that writes no space after a number ("3年").
    glued_letters = rest[:1].isalpha() and not ordinal and not _CJK_LETTER.match(rest[:1])
    return _After(ordinal, scale, unit, bool(_APPROX_AFTER.match(rest)), glued_letters, length)


_GROUP_SEPARATOR = {"dots": ".", "spaces": " ", "apostrophes": "'"}


def _parse_digits(match: re.Match[str]) -> tuple[Decimal | None, int]:
    kind = match.lastgroup or "plain"
    raw = match.group(0)
    if kind == "commas":
        raw = raw.replace(",", "")
    elif kind in {"dots", "spaces", "apostrophes"}:
        raw = raw.replace(_GROUP_SEPARATOR[kind], "").replace(",", ".")
    elif kind == "comma_decimal":
        raw = raw.replace(",", ".")
    try:
        value = Decimal(raw)
    except InvalidOperation:
        return None, 0
    decimals = len(raw.split(".", 1)[1]) if "." in raw else 0
    return value, decimals


# Pounds by the million are money ("3 million pounds"), unless they weigh something ("3 million
# pounds of beef"); a bare "50 pounds" stays unread, a weight as often as a price.
_SCALED_POUNDS = re.compile(r"^\s?pounds?\b(?!\s+of\b)", re.IGNORECASE)
# A plural noun after "1.4m" is what the millions count: "1.4m people", "2m users".
_COUNTED_PLURAL = re.compile(r"^[ \t]+(?:[a-z]+[a-rt-z]s|people|children|men|women)\b")


def _suffix_is_scale(suffix: str, unit: str | None, rest: str, words: units.UnitWords) -> bool:
    # "$1.5m" is money; "4.8m" without a currency is a length, unless it counts a plural noun
    # ("1.4m people"); "5K", "3bn", "2mn" are scales.
    if suffix.casefold() in {"m", "b"}:
        if (unit is not None and unit.startswith("cur:")) or suffix.isupper():
            return True
        return bool(_COUNTED_PLURAL.match(rest)) and _unit_after(rest, None, words)[0] is None
    return True


# Hundredths of a percentage point after a number, English only: the number is read in
# points ("25 basis points" is 0.25 points).
_BASIS_POINTS = re.compile(
    rf"^\s?(?:{lexicon.alternation(lexicon.words('percent', name='basis_points'))})(?![\w-])"
)
BASIS_POINT = "bp"


def _unit_after(rest: str, unit: str | None, words: units.UnitWords) -> tuple[str | None, int]:
    """The unit named right after a number, and how many characters name it."""
    if words.language == ENGLISH and (basis := _BASIS_POINTS.match(rest)):
        return BASIS_POINT, basis.end()
    if percent := words.percent_after.match(rest):
        return (units.POINTS if percent.group("pp") else units.PERCENT), percent.end()
    if unit is None and (word := words.currency_after.match(rest)):
        return words.currency(word.group(word.lastgroup or 0)), word.end()
    if measure := words.measure_after.match(rest):
        found = units.measure_unit(measure.group("unit"), not measure.group("sep"), words)
        if found is not None:
            return (unit if unit is not None else found), measure.end()
    if unit is None and rest[:1] in words.counters:
        return words.counters[rest[0]], 1
    return unit, 0


def _trailing_zeros(value: Decimal) -> int:
    if value == 0:
        return 0
    integer = int(value)
    zeros = 0
    while integer and integer % 10 == 0:
        integer //= 10
        zeros += 1
    return zeros


def _word_quantities(text: str) -> Iterator[Quantity]:
    fractions = _Spans(len(text), [])
    for match in numerals.FRACTION.finditer(text):
        before = text[max(0, match.start() - 24) : match.start()]
        after = text[match.end() : match.end() + 12]
        # "by half a percent" is half of a unit, which the numbers check reads as such.
        by = numerals.FRACTION_BY.search(before) is not None and not re.match(r"\s+an?\b", after)
        whole = by or numerals.FRACTION_BEFORE_WHOLE.match(after) is not None
        part = numerals.FRACTION_AFTER_PART.search(before[-12:])
        fractions.mark(match.start(), match.end())
        if point := _OF_A_POINT.match(text[match.end() : match.end() + 40]):
            # "a quarter of a percentage point" is 0.25 points.
            end = match.end() + point.end()
            fractions.mark(match.start(), end)
            yield Quantity(
                value=numerals.fraction_value(match), exponent=-2, coarse=-2, negative=False,
                unit=units.POINTS, approx=False, ordinal=False, spelled=True, scale=0,
                text=text[match.start() : end], start=match.start(), end=end,
            )  # fmt: skip
            continue
        yield Quantity(
            value=numerals.fraction_value(match), exponent=-2, coarse=-2, negative=False,
            unit=units.FRACTION, approx=True, ordinal=False, spelled=True, scale=0,
            text=match.group(0), start=match.start(), end=match.end(),
            checkable=bool(whole) and not part,
        )  # fmt: skip
    for match in numerals.MULTIPLYING.finditer(text):
        yield Quantity(
            value=numerals.CHANGES[match.group("verb").casefold()], exponent=-2, coarse=-2,
            negative=False, unit=units.FRACTION, approx=False, ordinal=False, spelled=True,
            scale=0, text=match.group(0), start=match.start(), end=match.end(), checkable=False,
        )  # fmt: skip
    for match in numerals.FOLD.finditer(text):
        parsed = numerals.parse_spelled(match.group("number"))
        if parsed is not None:
            yield _word_number(text, match, parsed.value, group=0)
    for match in numerals.ROMAN.finditer(text):
        roman = numerals.roman_value(match.group("roman"))
        if roman is not None:
            yield _word_number(text, match, Decimal(roman), group="roman")
    yield from _roman_measures(text)
    for match in numerals.FREQUENCY.finditer(text):
        yield _word_number(
            text, match, numerals.frequency_value(match.group("times")), group="times"
        )
    for match in numerals.QUARTER.finditer(text):
        yield replace(
            _word_number(text, match, Decimal(match.group("quarter")), group=0), ordinal=True
        )
    runs = [m for m in numerals.SPELLED.finditer(text) if not fractions.overlaps(*m.span())]
    index = 0
    while index < len(runs):
        match = runs[index]
        following = runs[index + 1] if index + 1 < len(runs) else None
        if following and numerals.DECIMAL_POINT.match(text[match.end() : following.start()]):
            spoken = _spoken_decimal(text, match, following)
            if spoken is not None:
                yield spoken
                index += 2
                continue
        yield from _spelled(text, match.group(0), match.start())
        index += 1


# A share of a percentage point after a fraction: "a quarter of a percentage point", "half a
# percentage point".
_OF_A_POINT = re.compile(
    r"^\s+(?:of\s+)?an?\s+(?:percentage|percent|per\s?cent)[\s-]points?\b", re.IGNORECASE
)


# A Roman numeral of two letters or more where a value stands, before its unit: "III years",
# "IV weeks". After a name it is part of the name ("Louis XIV", "World War II").
_ROMAN_VALUE = re.compile(r"(?<![\w.-])(?P<roman>[IVX]{2,6})(?=\s)")


def _roman_measures(text: str) -> Iterator[Quantity]:
    for match in _ROMAN_VALUE.finditer(text):
        value = numerals.roman_value(match.group("roman"))
        unit, consumed = _unit_after(text[match.end() : match.end() + 40], None, _EN)
        if value is None or unit is None:
            continue
        end = match.end() + consumed
        yield Quantity(
            value=Decimal(value), exponent=0, coarse=0, negative=False, unit=unit,
            approx=False, ordinal=False, spelled=True, scale=0, text=text[match.start() : end],
            start=match.start(), end=end,
        )  # fmt: skip


def _word_number(text: str, match: re.Match[str], value: Decimal, *, group: str | int) -> Quantity:
    """A whole number written as a word that is no run of number words: "tenfold", "III",
    "Q3"."""
    start, end = match.span(group)
    return Quantity(
        value=value, exponent=0, coarse=0, negative=False, unit=None, approx=False,
        ordinal=False, spelled=True, scale=0, text=text[start:end], start=start, end=end,
    )  # fmt: skip


def _spoken_decimal(text: str, whole: re.Match[str], fraction: re.Match[str]) -> Quantity | None:
    left = numerals.parse_spelled(whole.group(0))
    words = fraction.group(0).split()
    digits = [numerals.parse_spelled(w) for w in words]
    if left is None or left.ordinal or any(d is None or d.value > 9 for d in digits):
        # "fifty" after the point is read as its digits, "five two" as a digit string.
        right = numerals.parse_spelled(fraction.group(0))
        if left is None or right is None or right.ordinal:
            return None
        tail = str(int(right.value))
    else:
        tail = "".join(str(int(d.value)) for d in digits if d is not None)
    value = Decimal(f"{int(left.value)}.{tail}")
    unit, consumed = _unit_after(text[fraction.end() : fraction.end() + 40], None, _EN)
    end = fraction.end() + consumed
    return Quantity(
        value=value, exponent=-len(tail), coarse=-len(tail), negative=False, unit=unit,
        approx=False, ordinal=False, spelled=True, scale=0, text=text[whole.start() : end],
        start=whole.start(), end=end,
    )  # fmt: skip


def _spelled(text: str, phrase: str, start: int) -> Iterator[Quantity]:
    parsed = numerals.parse_spelled(phrase)
    if parsed is None:
        # Not one number ("two or three" joined by "and"): read each word on its own.
        for word in re.finditer(r"[A-Za-z]+", phrase):
            if word.group(0).casefold() != "and" and numerals.parse_spelled(word.group(0)):
                yield from _spelled(text, word.group(0), start + word.start())
        return
    end = start + len(phrase)
    before, after = text[max(0, start - 40) : start], text[end : end + 40]
    # An ordinal ranks, it does not measure ("the fifteenth century" is no 15 centuries), as
    # for digit ordinals ("15th century").
    unit, consumed = (None, 0) if parsed.ordinal else _unit_after(after, None, _EN)
    folded = phrase.casefold()
    scale = max((p for w, p in _SCALE_POWERS.items() if w in folded), default=0)
    zeros = _trailing_zeros(parsed.value) if parsed.value == int(parsed.value) else 0
    exponent = min(zeros, scale) if scale else (-1 if "half" in folded else 0)
    yield Quantity(
        value=parsed.value, exponent=exponent, coarse=max(exponent, zeros), negative=False,
        unit=unit, approx=bool(_APPROX_BEFORE.search(before)), ordinal=parsed.ordinal,
        spelled=True, scale=scale, text=text[start : end + consumed], start=start,
        end=end + consumed, checkable=folded not in _WORDS_NOT_NUMBERS or unit is not None,
        counts=unit is None and not parsed.ordinal and _counts_a_thing(after),
        bound=_bound(before, text[end + consumed : end + consumed + 24]),
        per=_period(text[end + consumed :]),
    )  # fmt: skip


_SCALE_POWERS = {"thousand": 3, "million": 6, "billion": 9, "trillion": 12}
# Number words a sentence uses as ordinary words: "one of the", "no one", "the first", "second".
_WORDS_NOT_NUMBERS = numerals.not_numbers()


class _Spans:
    """Character positions taken by spans: overlap tests in time linear in the span's length."""

    def __init__(self, length: int, spans: list[tuple[int, int]]) -> None:
        self._taken = bytearray(length)
        for start, end in spans:
            self.mark(start, end)

    def mark(self, start: int, end: int) -> None:
        end = min(end, len(self._taken))
        if start < end:
            self._taken[start:end] = b"\x01" * (end - start)

    def overlaps(self, start: int, end: int) -> bool:
        return any(self._taken[start:end])


def _join_ranges(text: str, found: list[Quantity]) -> list[Quantity]:
    """Share a unit, scale, currency or hedge across a range: "14-20%", "$2-3 million"."""
    joined = list(found)
    for index in range(len(joined) - 1):
        left, right = joined[index], joined[index + 1]
        if _HEIGHT.fullmatch(text[left.start : right.end]):
            # "6-foot-4" is six feet four inches, not a range of feet.
            joined[index + 1] = replace(right, unit="length:inch", counts=False, checkable=True)
            continue
        if not _RANGE_JOIN.match(text[left.end : right.start]) or left.spelled != right.spelled:
            continue
        if left.unit is not None and right.unit is not None and left.unit != right.unit:
            continue  # "rose 3% to $2.1 billion": two quantities, no range
        if left.unit is None and right.unit is not None:
            left = replace(left, unit=right.unit)
        if right.unit is None and left.unit is not None:
            right = replace(right, unit=left.unit)
        if left.scale == 0 and right.scale and left.value < 1000:
            left = replace(
                left,
                value=left.value.scaleb(right.scale),
                exponent=left.exponent + right.scale,
                coarse=left.coarse + right.scale,
                scale=right.scale,
            )
        if left.approx and not right.approx:
            right = replace(right, approx=True)
        if left.bound is not None and right.bound is None:
            right = replace(right, bound=left.bound)
        if right.counts and left.unit is None and not left.ordinal:
            left = replace(left, counts=True)  # "1 or 2 tablets": both count tablets
        joined[index], joined[index + 1] = left, right
    return joined


def _join_money(text: str, found: list[Quantity]) -> list[Quantity]:
    """Read "12 euros and 50 cents" as 12.50 euros; its two parts are not claims of their own."""
    joined = list(found)
    for index in range(len(found) - 1):
        major, minor = found[index], found[index + 1]
        if (
            major.unit is None
            or not major.unit.startswith("cur:")
            or not re.fullmatch(r"\s+and\s+", text[major.end : minor.start])
            or not numerals.MINOR_UNIT.match(text[minor.end : minor.end + 12])
            or minor.value >= 100
        ):
            continue
        joined[index] = replace(major, checkable=False)
        joined[index + 1] = replace(minor, checkable=False)
        cents = numerals.MINOR_UNIT.match(text[minor.end : minor.end + 12])
        end = minor.end + (cents.end() if cents else 0)
        joined.append(
            replace(
                major,
                value=major.value + minor.value / 100,
                exponent=-2,
                coarse=-2,
                text=text[major.start : end],
                end=end,
            )
        )
    return sorted(joined, key=lambda q: q.start)


def _join_ratios(text: str, found: list[Quantity]) -> list[Quantity]:
    """Add "one in five" as the proportion 0.2, which "20%" in other words also states."""
    joined = list(found)
    for part, whole in itertools.pairwise(found):
        join = numerals.RATIO_JOIN.match(text[part.end : whole.start])
        if join is None or not 0 < part.value < whole.value or part.unit or whole.unit:
            continue
        strict = join.group("strict") is not None
        if strict:
            joined = [replace(q, checkable=False) if q in (part, whole) else q for q in joined]
        joined.append(
            replace(
                part,
                value=part.value / whole.value,
                exponent=-2,
                coarse=-2,
                unit=units.FRACTION,
                approx=True,
                text=text[part.start : whole.end],
                end=whole.end,
                checkable=strict,
            )
        )
    return sorted(joined, key=lambda q: q.start)


def masked(quantities: list[Quantity], spans: list[tuple[int, int]]) -> list[Quantity]:
    """The quantities outside ``spans`` (dates and identifiers, which other checks own)."""
    taken = _Spans(max((q.end for q in quantities), default=0), spans)
    return [q for q in quantities if not taken.overlaps(q.start, q.end)]
