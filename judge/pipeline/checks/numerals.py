"""Numbers written in words: "thirty", "twenty-five", "a dozen", "two and a half million"."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50,
    "sixtieth": 60, "seventieth": 70, "eightieth": 80, "ninetieth": 90, "hundredth": 100,
}  # fmt: skip
_SCALES = {"hundred": 2, "thousand": 3, "million": 6, "billion": 9, "trillion": 12}
_WORD = "|".join(sorted([*_UNITS, *_TENS, *_ORDINALS, *_SCALES, "dozen"], key=len, reverse=True))

# A run of number words joined by spaces, hyphens and "and"; "a"/"an" may open it ("a dozen"),
# and "half a" halves it ("half a million").
_RUN = rf"(?:{_WORD})(?:(?:\s+and\s+|\s*-\s*|\s+)(?:{_WORD}))*"
_SCALE_AHEAD = r"(?=(?:hundred|thousand|million|billion|dozen)\b)"
SPELLED = re.compile(
    rf"\b(?:(?:half\s+)?an?\s+{_SCALE_AHEAD})?{_RUN}"
    r"(?:\s+and\s+a\s+half(?:\s+(?:thousand|million|billion))?)?\b",
    re.IGNORECASE,
)

FRACTION = re.compile(
    r"\b(?:(?P<half>(?<!\band\s)(?:a|one)[\s-]half|(?<!\ba\s)(?<!\bone\s)(?<!\bone-)half)"
    r"|(?P<third>(?:a|one)[\s-]third)|(?P<quarter>(?:a|one)[\s-]quarter)"
    r"|(?P<fifth>(?:a|one)[\s-]fifth)|(?P<tenth>(?:a|one)[\s-]tenth)"
    r"|(?P<two_thirds>two[\s-]thirds)|(?P<three_quarters>three[\s-]quarters)"
    r"|(?P<two_fifths>two[\s-]fifths)|(?P<three_fifths>three[\s-]fifths)"
    r"|(?P<four_fifths>four[\s-]fifths))\b(?!-)"
    rf"(?!\s+an?\s+{_SCALE_AHEAD})",
    re.IGNORECASE,
)
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
FRACTION_VALUES = {
    "half": Decimal("0.5"),
    "third": Decimal(1) / 3,
    "quarter": Decimal("0.25"),
    "fifth": Decimal("0.2"),
    "tenth": Decimal("0.1"),
    "two_thirds": Decimal(2) / 3,
    "three_quarters": Decimal("0.75"),
    "two_fifths": Decimal("0.4"),
    "three_fifths": Decimal("0.6"),
    "four_fifths": Decimal("0.8"),
}


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
            if word == "hundredth":
                current = (current or Decimal(1)) * 100
            elif last in {"unit", "teen", "half"} or (last == "tens" and value >= 10):
                return None
            else:
                current += value
            last = "ordinal"
        elif word in {"dozen", "hundred"}:
            if last == word:
                return None
            current = (current or Decimal(1)) * (12 if word == "dozen" else 100)
            last = word
        elif word in _SCALES:
            total += (current or Decimal(1)) * 10 ** _SCALES[word]
            current, last = Decimal(0), "scale"
        else:
            return None
        index += 1
    return Spelled((total + current) * factor, last == "ordinal")


# Verbs that give a change as a multiple: "halved" is a fall of 50 %, "tripled" a rise of
# 200 %. Read in evidence only, as that change (see ``quantities``): "sales fell 50%" is borne
# out by "sales halved". Not as a level ("three times"), which would also match a count: "it
# tripled its stores" says nothing of "3 stores".
MULTIPLYING = re.compile(r"\b(?P<verb>halv|doubl|tripl|trebl|quadrupl)(?:ed|ing)\b", re.IGNORECASE)
CHANGES = {  # the change, as a fraction of the level before it
    "halv": Decimal("0.5"),
    "doubl": Decimal(1),
    "tripl": Decimal(2),
    "trebl": Decimal(2),
    "quadrupl": Decimal(3),
}

# Multiples written as one word: "tenfold", "twofold" ("ten-fold" is a number word already).
FOLD = re.compile(
    r"\b(?P<number>" + "|".join(sorted([*_UNITS, *_TENS, "hundred", "thousand"], key=len,
                                       reverse=True)) + r")fold\b",
    re.IGNORECASE,
)  # fmt: skip

# Roman numerals where a count is written that way: "phase III", "type II diabetes", "World
# War II", "stage IV". Only after such a word: elsewhere "I" is a pronoun and "V" a letter.
ROMAN = re.compile(
    r"(?i:\b(?:phase|phases|type|stage|grade|class|level|tier|category|world\s+war|chapter|"
    r"part|volume|vol\.|article|title|schedule|round|season|series)\s+)"
    r"(?P<roman>[IVX]{1,6})\b(?!-\w)"
)
# A quarter of a year written "Q3" is the third quarter: an ordinal.
QUARTER = re.compile(r"\bQ(?P<quarter>[1-4])\b")
# How often, in a word: "twice a day", "once weekly", "thrice per week". Only before a period
# of time: "once the item arrives" and "twice as high" say no number of times.
FREQUENCY = re.compile(
    r"\b(?P<times>once|twice|thrice)(?=\s+(?:(?:a|an|per|each|every)\s+(?:day|night|week|"
    r"fortnight|month|year|hour|minute|morning|evening)|daily|nightly|weekly|monthly|yearly|"
    r"annually|hourly)\b)",
    re.IGNORECASE,
)
TIMES = {"once": 1, "twice": 2, "thrice": 3}


def _roman(value: int) -> str:
    tens, units = divmod(value, 10)
    ones = ("", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX")
    return "X" * tens + ones[units]


# Every well-formed numeral up to 39, the only spellings read: "IIII" and "VX" are none.
_ROMAN_VALUES = {_roman(value): value for value in range(1, 40)}


def roman_value(numeral: str) -> int | None:
    """The value of an upper-case Roman numeral up to 39, or None when it is not well formed."""
    return _ROMAN_VALUES.get(numeral)
