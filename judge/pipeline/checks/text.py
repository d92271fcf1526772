"""Text normalisation shared by the exact checks.

Claim and evidence go through the same function, so any rewrite here can only make equal things
compare equal; it never makes a claim token appear in evidence that does not hold it.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# Latin look-alikes from Cyrillic and Greek: an identifier typed with one of them must still match.
_HOMOGLYPHS = str.maketrans(
    {
        "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
        "С": "C", "Т": "T", "Х": "X", "У": "Y", "І": "I", "Ј": "J", "Ѕ": "S",
        "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "х": "x", "у": "y", "і": "i",
        "ј": "j", "ѕ": "s", "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I",
        "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
        "ο": "o",
    }
)  # fmt: skip

# Minus signs, hyphens and dashes all become "-"; whether it is a sign or a range is decided later.
_DASHES = str.maketrans({c: "-" for c in "\u2212\u2010\u2011\u2012\u2013\u2014\u2015\ufe63\uff0d"})
_APOSTROPHES = str.maketrans({c: "'" for c in "\u2018\u2019\u201a\u201b\u02bc\u2032\u00b4`"})

# A thin or no-break space before exactly three digits is a thousands separator ("1 500 000").
_GROUP_SPACE = re.compile(r"(?<=\d)[\u00a0\u2007\u2009\u202f](?=\d{3}(?!\d))")
# Superscript digits after a number are an exponent or a footnote, never more digits of it.
_SUPERSCRIPT = re.compile(r"(?<=\d)([\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+)")
# A raised or middle dot between digits is a decimal point in some house styles ("12·4%").
_MIDDLE_DOT = re.compile(r"(?<=\d)[\u00b7\u2022\u2219](?=\d)")
_SPACES = re.compile(r"[^\S\n]+")


@lru_cache(maxsize=16)
def normalise(text: str) -> str:
    """Canonical form for comparison: NFKC, ASCII digits and dashes, no invisible characters.

    Cached: every check of every claim normalises the claim's cited evidence, the same text
    for all the claims that cite it."""
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    text = _GROUP_SPACE.sub(",", text)
    text = _SUPERSCRIPT.sub(lambda m: "^" + unicodedata.normalize("NFKC", m.group(1)), text)
    text = unicodedata.normalize("NFKC", text)
    text = "".join(_ascii_digit(ch) for ch in text)
    text = text.translate(_HOMOGLYPHS).translate(_DASHES).translate(_APOSTROPHES)
    text = _MIDDLE_DOT.sub(".", text)
    return _SPACES.sub(" ", text)


def _ascii_digit(ch: str) -> str:
    # NFKC leaves Arabic-Indic, Devanagari and other native digits alone; their value is the same.
    if ch.isascii() or unicodedata.category(ch) != "Nd":
        return ch
    return str(unicodedata.decimal(ch))


def fold(text: str) -> str:
    """Normalised and lower-cased: for matching words and phrases regardless of case."""
    return normalise(text).casefold()
