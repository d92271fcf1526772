"""Numbers written in words: "thirty", "twenty-five", "a dozen", "two and a half million",
"one in five", "twice a day", "tenfold", "phase III", "Q3". The words come from the
``number_words`` list; this module reads how they combine."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from functools import cache

from judge.reading import lexicon

__all__ = [
    "CHANGES",
    "DECIMAL_POINT",
    "FOLD",
    "FRACTION",
    "FRACTION_AFTER_PART",
    "FRACTION_BEFORE_WHOLE",
    "FRACTION_BY",
    "FREQUENCY",
    "MINOR_UNIT",
    "MULTIPLYING",
    "QUARTER",
    "RATIO_JOIN",
    "ROMAN",
    "SPELLED",
    "Spelled",
    "fraction_value",
    "frequency_value",
    "not_numbers",
    "parse_spelled",
    "roman_value",
]


def _values(name: str) -> dict[str, Decimal]:
    return {
        word: _decimal(entry.value)
        for entry in lexicon.entries("number_words")
        if entry.name == name
        for word in entry.words
    }


def _decimal(value: str) -> Decimal:
    numerator, _, denominator = value.partition("/")
    return Decimal(numerator) / Decimal(denominator) if denominator else Decimal(numerator)


_UNITS = _values("unit")
_TENS = _values("ten")
_ORDINALS = _values("ordinal")
_MULTIPLIERS = _values("multiplier")  # hundred, dozen
_SCALES = {word: int(value) for word, value in _values("scale").items()}
_WORD = "|".join(
    sorted([*_UNITS, *_TENS, *_ORDINALS, *_MULTIPLIERS, *_SCALES], key=len, reverse=True)
)
_SCALE_AHEAD = "(?=(?:" + "|".join(sorted([*_MULTIPLIERS, *_SCALES], key=len)) + r")\b)"

# A run of number words joined by spaces, hyphens and "and"; "a"/"an" may open it ("a dozen"),
# and "half a" halves it ("half a million").
_RUN = rf"(?:{_WORD})(?:(?:\s+and\s+|\s*-\s*|\s+)(?:{_WORD}))*"
_BIG_SCALES = "|".join(sorted(_SCALES, key=len, reverse=True))
SPELLED = re.compile(
    rf"\b(?:(?:half\s+)?an?\s+{_SCALE_AHEAD})?{_RUN}"
    rf"(?:\s+and\s+a\s+half(?:\s+(?:{_BIG_SCALES}))?)?\b",
    re.IGNORECASE,
)


@cache
def _fractions() -> tuple[tuple[str, Decimal, tuple[str, ...]], ...]:
    """(group name, value, spellings) of each fraction entry."""
    found = []
    for index, entry in enumerate(lexicon.entries("number_words")):
        if entry.name == "fraction":
            found.append((f"f{index}", _decimal(entry.value), entry.words))
    return tuple(found)


def _fraction_pattern() -> re.Pattern[str]:
    groups = []
    for group, _, spellings in _fractions():
        alternatives = []
        for spelling in sorted(spellings, key=len, reverse=True):
            body = r"[\s-]".join(re.escape(part) for part in re.split(r"[\s-]", spelling))
            if re.match(r"(?:a|one)[\s-]", spelling):
                alternatives.append(rf"(?<!\band\s){body}")  # "and a half" is a run's
            else:
                # A bare "half" is not the end of "a half" or "one half", read whole above.
                alternatives.append(rf"(?<!\ba\s)(?<!\bone\s)(?<!\bone-){body}")
        groups.append(f"(?P<{group}>{'|'.join(alternatives)})")
    return re.compile(rf"\b(?:{'|'.join(groups)})\b(?!-)(?!\s+an?\s+{_SCALE_AHEAD})", re.IGNORECASE)


FRACTION = _fraction_pattern()


def fraction_value(match: re.Match[str]) -> Decimal:
    """The value of a :data:`FRACTION` match."""
    values = {group: value for group, value, _ in _fractions()}
    return values[match.lastgroup or ""]


# In a claim a fraction is a quantity only before what it is a fraction of: "half of the",
# "a third of"; not "the second half", "a third time".
FRACTION_BEFORE_WHOLE = re.compile(
    r"^\s+(?:of|the|as|that|those|these|its|their|his|her|our)\b", re.IGNORECASE
)
# Or as the size of a change: "cut deaths by a third", "rose by nearly half".
FRACTION_BY = re.compile(
    r"\bby\s+(?:(?:about|around|nearly|almost|roughly|some|over|more\s+than|up\s+to)\s+)?$",
    re.IGNORECASE,
)
FRACTION_AFTER_PART = re.compile(
    r"\b(?:first|second|latter|former|other|last|back|front|and)\s+$", re.IGNORECASE
)
# "one in five", "3 out of 10": a proportion; "2 of 3" reads as one only in evidence, since a
# claim's "one of the 5 largest" is not a proportion.
RATIO_JOIN = re.compile(r"^\s+(?P<strict>in|out\s+of)\s+$|^\s+of\s+$", re.IGNORECASE)
# Spoken decimals: "twelve point five", "twelve dot fifty".
DECIMAL_POINT = re.compile(r"^\s+(?:point|dot)\s+$", re.IGNORECASE)
# Money in two units: "twelve euros and fifty cents".
MINOR_UNIT = re.compile(r"^\s*(?:cents?|centimes?|pence|p)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Spelled:
    value: Decimal
    ordinal: bool


def parse_spelled(phrase: str) -> Spelled | None:
    """Value of a run of number words, or None when the words do not form one number."""
    words = [w for w in re.split(r"[\s-]+", phrase.casefold()) if w and w != "and"]
    factor = Decimal(1)
    if words[:2] in (["half", "a"], ["half", "an"]):
        factor, words = Decimal("0.5"), words[1:]
    if words[:1] in (["a"], ["an"]):
        words[0] = "one"
    total, current = Decimal(0), Decimal(0)
    last: str | None = None  # the kind of the previous word, to refuse "two three" as one number
    index = 0
    while index < len(words):
        word = words[index]
        if last == "ordinal":
            return None  # an ordinal ends a number
        if word == "a" and words[index + 1 : index + 2] == ["half"] and last is not None:
            current += Decimal("0.5")
            last, index = "half", index + 2
            continue
        if word in _UNITS:
            value = _UNITS[word]
            if last in {"unit", "teen", "half"} or (last == "tens" and value >= 10):
                return None
            current += value
            last = "teen" if value >= 10 else "unit"
        elif word in _TENS:
            if last in {"unit", "teen", "tens", "half"}:
                return None
            current += _TENS[word]
            last = "tens"
        elif word in _ORDINALS:
            value = _ORDINALS[word]
            if value == 100:  # "hundredth" multiplies, as "hundred" does
                current = (current or Decimal(1)) * 100
            elif last in {"unit", "teen", "half"} or (last == "tens" and value >= 10):
                return None
            else:
                current += value
            last = "ordinal"
        elif word in _MULTIPLIERS:
            if last == word:
                return None
            current = (current or Decimal(1)) * _MULTIPLIERS[word]
            last = word
        elif word in _SCALES:
            total += (current or Decimal(1)) * 10 ** _SCALES[word]
            current, last = Decimal(0), "scale"
        else:
            return None
        index += 1
    return Spelled((total + current) * factor, last == "ordinal")


def not_numbers() -> frozenset[str]:
    """Number words a sentence uses as ordinary words ("one of", "the first", "second")."""
    return lexicon.words("number_words", name="not_numbers")


# Verbs that give a change as a multiple: "halved" is a fall of 50 %, "tripled" a rise of
# 200 %. Read in evidence only, as that change: "sales fell 50%" is borne out by "sales
# halved". Not as a level ("three times"), which would also match a count.
CHANGES = {
    word.casefold(): abs(_decimal(entry.value))
    for entry in lexicon.entries("number_words")
    if entry.name == "multiplying"
    for word in entry.words
}
MULTIPLYING = re.compile(
    r"\b(?P<verb>" + "|".join(sorted(CHANGES, key=len, reverse=True)) + r")\b", re.IGNORECASE
)

# Multiples written as one word: "tenfold", "twofold" ("ten-fold" is a number word already).
FOLD = re.compile(
    r"\b(?P<number>"
    + "|".join(sorted([*_UNITS, *_TENS, "hundred", "thousand"], key=len, reverse=True))
    + r")fold\b",
    re.IGNORECASE,
)

# Roman numerals where a count is written that way: "phase III", "type II diabetes",
# "stage IV"; only after such a word. Elsewhere "I" is a pronoun and "V" a letter.
_ROMAN_CONTEXT = lexicon.alternation(lexicon.words("number_words", name="roman_context"))
ROMAN = re.compile(rf"(?i:\b(?:{_ROMAN_CONTEXT})\s+)(?P<roman>[IVX]{{1,6}})\b(?!-\w)")
# A quarter of a year written "Q3" is the third quarter: an ordinal.
QUARTER = re.compile(r"\bQ(?P<quarter>[1-4])\b")


def _frequency_pattern() -> re.Pattern[str]:
    periods = [
        word
        for entry in lexicon.entries("periods")
        if entry.name != "not_a_rate"
        for word in entry.words
    ]
    adverbs = [w for w in periods if w.endswith("ly")]
    nouns = [w for w in periods if not w.endswith("ly")]
    words = "|".join(sorted(_values("frequency"), key=len, reverse=True))
    return re.compile(
        rf"\b(?P<times>{words})(?=\s+(?:(?:a|an|per|each|every)\s+(?:"
        + "|".join(sorted(nouns, key=len, reverse=True))
        + ")|"
        + "|".join(sorted(adverbs, key=len, reverse=True))
        + r")\b)",
        re.IGNORECASE,
    )


# How often, in a word: "twice a day", "once weekly". Only before a period of time: "once the
# item arrives" and "twice as high" say no number of times.
FREQUENCY = _frequency_pattern()


def frequency_value(word: str) -> Decimal:
    return _values("frequency")[word.casefold()]


def _roman(value: int) -> str:
    tens, units = divmod(value, 10)
    ones = ("", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX")
    return "X" * tens + ones[units]


# Every well-formed numeral up to 39, the only spellings read: "IIII" and "VX" are none.
_ROMAN_VALUES = {_roman(value): value for value in range(1, 40)}


def roman_value(numeral: str) -> int | None:
    """The value of an upper-case Roman numeral up to 39, or None when it is not well formed."""
    return _ROMAN_VALUES.get(numeral)
