"""The one normalisation of untrusted text before the exact checks compare it.

Claim and evidence go through the same function, so a rewrite here can only make equal things
compare equal. What it undoes, and what it records so the look-alike check can send the claim
to review (a value written to be misread must not pass silently, even when it reads right):

* character references (``&#8805;``, ``&rsquo;``): read as the characters they stand for;
* invisible characters (format controls, variation selectors) and the bidirectional controls
  that make the displayed text differ from the stored text: removed, and recorded;
* digits of every script (``unicodedata.decimal``) and number forms (Roman numeral characters,
  superscripts, circled and full-width digits): read as ASCII digits;
* characters drawn like a digit, from the Unicode confusables data (``confusable_homoglyphs``
  ships it): ``Ƽ`` for 5, Cherokee ``Ꮞ`` for 4, Cyrillic ``З`` for 3, and Latin ``O``/``l``
  between digits: read as that digit inside a number, and recorded;
* letters drawn like a Latin letter (Cyrillic ``А``, Greek ``Ο``): read as that letter in a
  text written mostly in Latin letters, and in a word that mixes them with Latin letters
  (a Russian or Greek text keeps its own letters);
* brackets as tokenised corpora write them (``-LRB-``, ``-RRB-``): read as the brackets.
"""

from __future__ import annotations

import html
import json
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

# --- tables from the Unicode data ------------------------------------------------------------


def _confusables() -> dict[str, list[str]]:
    raw = resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8")
    data: dict[str, list[dict[str, str]]] = json.loads(raw)
    return {char: [h["c"] for h in entries] for char, entries in data.items() if len(char) == 1}


def _tables() -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """(non-ASCII letter -> Latin letter, non-ASCII char -> digit, ASCII letter -> digit)."""
    confusables = _confusables()
    letters: dict[str, str] = {}
    digits: dict[str, str] = {}
    ascii_digits: dict[str, str] = {}
    for char, similar in confusables.items():
        ascii_like = [c for c in similar if len(c) == 1 and c.isascii() and c.isalnum()]
        if char.isascii():
            if char.isalpha() and (found := [c for c in ascii_like if c.isdigit()]):
                ascii_digits[char] = found[0]
            continue
        digit = next((c for c in ascii_like if c.isdigit()), None)
        letter = next((c for c in ascii_like if c.isalpha()), None)
        if digit is not None:
            digits[char] = digit
        elif letter is not None:
            letters[char] = letter
    for char, letter in letters.items():
        # Drawn like a Latin letter that is itself drawn like a digit (Cyrillic О, Greek Ο).
        if letter in ascii_digits:
            digits[char] = ascii_digits[letter]
    return letters, {**digits, **_NOT_IN_THE_DATA}, ascii_digits


# Cyrillic letters drawn like digits in common fonts that the confusables data leaves out
# (it pairs only characters that are near-identical in its reference glyphs).
_NOT_IN_THE_DATA = {"Ч": "4", "ч": "4", "з": "3"}


_LETTERS, DIGIT_LOOKALIKES, _ASCII_DIGIT_LOOKALIKES = _tables()
_LETTER_TABLE = str.maketrans(_LETTERS)
_ASCII_DIGIT_TABLE = str.maketrans(_ASCII_DIGIT_LOOKALIKES)
_NUMBER_ONLY = re.compile(r"[$€£¥]?\d+(?:[.,]\d+)*")

_FULL_WIDTH_PUNCTUATION = str.maketrans(
    {"\uff0c": ", ", "\uff1b": "; ", "\uff1a": ": ", "\uff01": "! ", "\uff1f": "? ", "\u3001": ", "}
)

# Bidirectional controls: embeddings, overrides, isolates and marks.
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
_VARIATION_SELECTORS = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]")

# Minus signs, hyphens and dashes all become "-"; whether it is a sign or a range is decided later.
_DASHES = str.maketrans({c: "-" for c in "\u2212\u2010\u2011\u2012\u2013\u2014\u2015\ufe63\uff0d"})
_APOSTROPHES = str.maketrans({c: "'" for c in "\u2018\u2019\u201a\u201b\u02bc\u2032\u00b4`"})
# A thin or no-break space before exactly three digits is a thousands separator ("1 500 000"):
# a plain space, which the number reader of every language reads as one.
_GROUP_SPACE = re.compile(r"(?<=\d)[\u00a0\u2007\u2009\u202f](?=\d{3}(?!\d))")
# Superscript digits after a number are an exponent or a footnote, never more digits of it.
_SUPERSCRIPT = re.compile(r"(?<=\d)([\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+)")
# Brackets as tokenised corpora write them ("born -LRB- 1961 -RRB-"): read as the brackets.
_TREEBANK_BRACKETS = {"-LRB-": "(", "-RRB-": ")", "-LSB-": "[", "-RSB-": "]", "-LCB-": "{",
                      "-RCB-": "}"}  # fmt: skip
_TREEBANK_BRACKET = re.compile("|".join(map(re.escape, _TREEBANK_BRACKETS)))
# A raised or middle dot between digits is a decimal point in some house styles ("12·4%").
_MIDDLE_DOT = re.compile(r"(?<=\d)[\u00b7\u2022\u2219](?=\d)")
_SPACES = re.compile(r"[^\S\n]+")
_TOKEN = re.compile(r"[^\s()\[\]{};:\"]+")
_JOINERS = ".,"


@dataclass(frozen=True)
class Normalised:
    """Text as the checks compare it, and what was hidden or disguised in the original."""

    text: str
    # Names of the invisible and bidirectional characters removed ("RIGHT-TO-LEFT OVERRIDE").
    hidden: tuple[str, ...] = ()
    # Whether a removed invisible character sat inside a word or number ("4\u200b2").
    hidden_inside: bool = False
    # Tokens holding a digit look-alike, as written and as read ("Ƽ0%" -> "50%").
    disguised: tuple[tuple[str, str], ...] = ()

    @property
    def bidi(self) -> bool:
        return any(name in _BIDI_NAMES for name in self.hidden)


_BIDI_NAMES = frozenset(unicodedata.name(c, f"U+{ord(c):04X}") for c in BIDI_CONTROLS)


@lru_cache(maxsize=64)
def for_checking(text: str) -> Normalised:
    """Canonical form for comparison, with what was hidden or disguised.

    Cached: every check of every claim normalises the claim's cited evidence, the same text
    for all the claims that cite it."""
    visible, hidden, inside = _strip_invisible(decode_references(text))
    visible = _GROUP_SPACE.sub(" ", visible)
    visible = _SUPERSCRIPT.sub(lambda m: "^" + unicodedata.normalize("NFKC", m.group(1)), visible)
    visible, disguised = _read_disguised_digits(visible)
    # Full-width punctuation carries its own space; as ASCII it needs one, or "30%，50人"
    # would read as a number glued to the one before it.
    visible = visible.translate(_FULL_WIDTH_PUNCTUATION)
    visible = unicodedata.normalize("NFKC", visible)
    visible = "".join(_ascii_digit(ch) for ch in visible)
    visible = _latin_lookalikes(visible).translate(_DASHES).translate(_APOSTROPHES)
    visible = _MIDDLE_DOT.sub(".", visible)
    visible = _TREEBANK_BRACKET.sub(lambda m: _TREEBANK_BRACKETS[m.group(0)], visible)
    return Normalised(_SPACES.sub(" ", visible), hidden, inside, disguised)


# An HTML character reference, as a renderer reads it: "&#8805;", "&#x2265;", "&ge;". The
# markup rule (judge.reading.markup) finds the same ones.
CHARACTER_REFERENCE = re.compile(r"&(?:#[0-9]+|#[xX][0-9A-Fa-f]+|[A-Za-z][A-Za-z0-9]*);")


_LATIN = re.compile(r"[A-Za-z]")
_LETTERS_RUN = re.compile(r"[^\W\d_]")
_WORD_OR_CODE = re.compile(r"[\w-]+")


def _latin_lookalikes(text: str) -> str:
    """Letters drawn like Latin ones read as those, where they may disguise Latin text: in a
    text written mostly in Latin letters, and elsewhere in a word that mixes them with Latin
    letters or a code that holds digits ("ОРД-88213")."""
    latin = len(_LATIN.findall(text))
    if latin * 2 >= len(_LETTERS_RUN.findall(text)):
        return text.translate(_LETTER_TABLE)

    def fold(match: re.Match[str]) -> str:
        token = match.group()
        mixed = _LATIN.search(token) or any(ch.isdigit() for ch in token)
        return token.translate(_LETTER_TABLE) if mixed else token

    return _WORD_OR_CODE.sub(fold, text)


def decode_references(text: str) -> str:
    """``text`` with every character reference replaced by the character a reader sees, so
    "aged &#8805;60" reads as "aged ≥60" and "n&#111;t" as "not" on either side."""
    if "&" not in text:
        return text
    return CHARACTER_REFERENCE.sub(lambda m: html.unescape(m.group()), text)


def normalise(text: str) -> str:
    """:func:`for_checking`'s text alone."""
    return for_checking(text).text


def _strip_invisible(text: str) -> tuple[str, tuple[str, ...], bool]:
    kept: list[str] = []
    names: list[str] = []
    inside = False
    for index, char in enumerate(text):
        invisible = unicodedata.category(char) == "Cf" or _VARIATION_SELECTORS.match(char)
        if not invisible:
            kept.append(char)
            continue
        names.append(unicodedata.name(char, f"U+{ord(char):04X}"))
        before = text[index - 1] if index else ""
        after = text[index + 1] if index + 1 < len(text) else ""
        inside = inside or _within_word(before, after)
    return "".join(kept), tuple(dict.fromkeys(names)), inside


def _within_word(before: str, after: str) -> bool:
    """Whether a character between ``before`` and ``after`` sits inside a word or a number:
    letters or digits on both sides ("4|2"), or on one side with a decimal point or group
    separator on the other ("2|.3")."""
    inner = [c.isalnum() or (c != "" and c in _JOINERS) for c in (before, after)]
    return all(inner) and (before.isalnum() or after.isalnum())


def _digit_of(char: str) -> str | None:
    """The digit a character is drawn like or stands for, if it is not an ASCII digit."""
    if char in DIGIT_LOOKALIKES:
        return DIGIT_LOOKALIKES[char]
    if unicodedata.category(char) in ("Nl", "No"):  # Roman numeral Ⅰ, circled ①
        value = unicodedata.numeric(char, -1.0)
        if value in range(10):
            return str(int(value))
    return None


def _is_digit(char: str) -> bool:
    return unicodedata.category(char) == "Nd"


def _read_disguised_digits(text: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Digit look-alikes inside numbers read as digits: a non-ASCII look-alike next to a digit
    (or a decimal point before one), a Latin look-alike (O, l) between two digits."""
    out: list[str] = []
    disguised: list[tuple[str, str]] = []
    position = 0
    for match in _TOKEN.finditer(text):
        out.append(text[position : match.start()])
        token = match.group(0)
        read = _read_token(token)
        if read != token:
            disguised.append((token, read))
        out.append(read)
        position = match.end()
    out.append(text[position:])
    return "".join(out), tuple(disguised)


def _number_form(token: str) -> str | None:
    """A token written only in number-form characters ("Ⅴ", "Ⅻ", "⑤") as its value."""
    core = token.rstrip(".,!?%'")
    if not core or any(unicodedata.category(c) not in ("Nl", "No") for c in core):
        return None
    values = [unicodedata.numeric(c, -1.0) for c in core]
    if len(values) == 1 and values[0] >= 0 and values[0] == int(values[0]):
        return str(int(values[0])) + token[len(core) :]
    if all(v in range(10) for v in values):
        return "".join(str(int(v)) for v in values) + token[len(core) :]
    return None


def _read_token(token: str) -> str:
    form = _number_form(token)
    if form is not None:
        return form
    chars = list(token)
    numeric = [_is_digit(c) for c in chars]
    if not any(numeric) and not any(_digit_of(c) for c in chars if not c.isascii()):
        return token
    changed = True
    while changed:  # "ƼƼ0": each read digit makes its neighbour a digit's neighbour
        changed = False
        for index, char in enumerate(chars):
            if numeric[index]:
                continue
            digit = _digit_of(char) if not char.isascii() else _ASCII_DIGIT_LOOKALIKES.get(char)
            if digit is None:
                continue
            left = _neighbour(numeric, chars, index, -1)
            right = _neighbour(numeric, chars, index, 1)
            if (left and right) if char.isascii() else (left or right):
                chars[index], numeric[index], changed = digit, True, True
    read = "".join(chars)
    if any(numeric):
        # A Latin O or l at the edge of a number ("3O", "l5%") when the token is that number.
        core = read.rstrip("%.!?'")
        swapped = core.translate(_ASCII_DIGIT_TABLE)
        if swapped != core and _NUMBER_ONLY.fullmatch(swapped):
            read = swapped + read[len(core) :]
    return read


def _neighbour(numeric: list[bool], chars: list[str], index: int, step: int) -> bool:
    """Whether a digit sits next to ``index`` on one side, directly or across one decimal
    point or group separator."""
    at = index + step
    if 0 <= at < len(chars) and numeric[at]:
        return True
    beyond = at + step
    return 0 <= beyond < len(chars) and chars[at] in _JOINERS and numeric[beyond]


def _ascii_digit(ch: str) -> str:
    # NFKC leaves Arabic-Indic, Devanagari and other native digits alone; their value is the same.
    if ch.isascii() or unicodedata.category(ch) != "Nd":
        return ch
    return str(unicodedata.decimal(ch))
