"""Named text transformations the attacks are built from. Pure functions of their input.

Token-level ones change how a number or an identifier is written (look-alike characters,
invisible characters, words, scale); sentence-level ones change what a sentence means
(negation, hedges, dates, units) and return ``None`` where the sentence gives them no hold.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation

from judge.reading import lexicon

ZERO_WIDTH_SPACE = "\u200b"
WORD_JOINER = "\u2060"

# Cyrillic letters drawn like Latin ones.
_CYRILLIC = str.maketrans(
    {
        "A": "А", "B": "В", "C": "С", "E": "Е", "H": "Н", "K": "К", "M": "М", "O": "О",
        "P": "Р", "T": "Т", "X": "Х", "a": "а", "c": "с", "e": "е", "o": "о", "p": "р",
        "x": "х", "y": "у",
    }
)  # fmt: skip
# Letters drawn like digits: Cyrillic O and Ze, Cyrillic be, Latin small L, Cyrillic Che.
DIGIT_LOOKALIKES = {"0": "О", "3": "З", "6": "б", "1": "l", "4": "Ч"}


def _by_value(list_name: str, name: str) -> dict[int, tuple[str, ...]]:
    """The words of an en/ list's entries named ``name``, by the value each stands for."""
    return {int(e.value): e.words for e in lexicon.entries(list_name) if e.name == name}


# The months as written in full ("September", not "Sept"), in order: en/calendar.toml.
MONTHS = tuple(
    max(words, key=len).capitalize() for _, words in sorted(_by_value("calendar", "month").items())
)
_MONTH = lexicon.alternation(MONTHS)
# Number words for spelling integers: en/number_words.toml.
_ONES = tuple(words[0] for _, words in sorted(_by_value("number_words", "unit").items()))
_TENS = {value // 10: words[0] for value, words in _by_value("number_words", "ten").items()}
_SCALES = {words[0]: power for power, words in _by_value("number_words", "scale").items()}

# The red team's edits are its own: the suite's cases are built from these tables, so a word
# added here is a change of the suite, made with its figures (judge redteam), not of a reading.
# Finite auxiliaries, after which "not" is inserted.
_AUXILIARIES = ("is", "are", "was", "were", "can", "could", "will", "would", "should", "may",
                "must", "has", "have", "had", "does", "do", "did")  # fmt: skip
_AUXILIARY = re.compile(rf"\b(?:{lexicon.alternation(_AUXILIARIES)})\b")
# A sentence holding one of these is negated already, and gets no "not".
_NEGATIONS = ("not", "no", "never", "cannot", "none", "nothing")
_NEGATION = re.compile(rf"\b(?:{lexicon.alternation(_NEGATIONS)})\b|n't\b|\bnon-", re.IGNORECASE)
_NEGATION_EDITS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bcannot\b"), "can"),
    (re.compile(r"\bcan't\b"), "can"),
    (re.compile(r"\bwon't\b"), "will"),
    (re.compile(r"\b(\w+)n't\b"), r"\1"),
    (re.compile(r"\bno longer\s+"), ""),
    (re.compile(r"\bnot\s+"), ""),
    (re.compile(r"\bnever\s+"), ""),
    (re.compile(r"\bnon-"), ""),
)
IDENTIFIER = re.compile(
    r"(?<![\w.-])(?:[A-Z]{2,10}-\d{3,}(?:-\d+)*|[A-Z]{2,10}\d{3,}|v?\d+\.\d+\.\d+"
    r"|(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40})(?![\w-]|\.\d)"
)
DATE = re.compile(
    rf"\b\d{{1,2}} (?:{_MONTH}) \d{{4}}\b|\b(?:{_MONTH}) \d{{1,2}}, \d{{4}}\b"
    rf"|\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b(?:{_MONTH}) \d{{4}}\b"
    r"|(?<![\d.,-])(?:19|20)\d{2}(?!\d|[.,]\d)"
)
NUMBER = re.compile(r"(?<![\w.,-])\d+(?:[.,]\d+)*(?![\w]|[.,]\d)")
_NUMBER_START = re.compile(r"(?<![\w.,])(?=[$€£]?\d)")
_SCALED = re.compile(rf"(?<![\w.,])(\d+(?:\.\d+)?) ({lexicon.alternation(_SCALES)})\b")
# Each duration unit and the unit that replaces it.
_UNIT_SWAP = {
    "day": "week", "week": "day", "hour": "minute", "minute": "hour", "second": "minute",
    "month": "year", "year": "month",
}  # fmt: skip
_UNIT = re.compile(rf"\b(\d+(?:\.\d+)?) ({lexicon.alternation(_UNIT_SWAP)})(s?)\b", re.IGNORECASE)
_RANGE_BEFORE = re.compile(r"(?:\d\s*(?:-|to|and|or)\s*)$")
_ENTITY = re.compile(r"\b[A-Z][\w-]*[a-zø](?:\s+[A-Z][\w-]*[a-zø])*")
_NOT_ENTITIES = frozenset({"Dr", "Mr", "Mrs", "Ms", "Prof", "The", "It", "This", "That", *MONTHS})


# --- characters ---------------------------------------------------------------------------------


def insert_zero_width(text: str, char: str = ZERO_WIDTH_SPACE) -> str:
    """``text`` with an invisible character between every two of its characters."""
    return char.join(text)


def fullwidth(text: str) -> str:
    """ASCII letters, digits and punctuation as their full-width forms (NFKC maps them back)."""
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def fullwidth_digits(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "0" <= c <= "9" else c for c in text)


def cyrillic_letters(text: str) -> str:
    """Latin letters swapped for the Cyrillic letters drawn the same way."""
    return text.translate(_CYRILLIC)


def digit_lookalike(text: str) -> str | None:
    """``text`` with its first digit that has a look-alike letter written as that letter."""
    for index, char in enumerate(text):
        if char in DIGIT_LOOKALIKES:
            return text[:index] + DIGIT_LOOKALIKES[char] + text[index + 1 :]
    return None


# --- numbers ------------------------------------------------------------------------------------


def wrong_digits(token: str) -> str:
    """A different value written the same way: the last two distinct neighbouring digits
    swapped ("612" -> "621"), or else the last digit changed ("9f3c2ab7" -> "9f3c2ab8")."""
    chars = list(token)
    for i in range(len(chars) - 2, -1, -1):
        a, b = chars[i], chars[i + 1]
        if not (a.isdigit() and b.isdigit() and a.isascii() and b.isascii()) or a == b:
            continue
        group_start = i == 0 or not chars[i - 1].isdigit()
        if b == "0" and group_start:
            continue  # "30" -> "03" would read as a leading zero, not a typo
        chars[i], chars[i + 1] = b, a
        return "".join(chars)
    for i in range(len(chars) - 1, -1, -1):
        if chars[i].isascii() and chars[i].isdigit():
            chars[i] = str((int(chars[i]) + 1) % 10)
            return "".join(chars)
    raise ValueError(f"{token!r} holds no digit")


def spell_integer(number: int) -> str:
    """English words for a whole number below a trillion: 54 -> "fifty-four"."""
    if not 0 <= number < 10**12:
        raise ValueError(f"cannot spell {number}")
    if number < 20:
        return _ONES[number]
    if number < 100:
        tens, ones = divmod(number, 10)
        return _TENS[tens] + (f"-{_ONES[ones]}" if ones else "")
    if number < 1000:
        hundreds, rest = divmod(number, 100)
        return f"{_ONES[hundreds]} hundred" + (f" and {spell_integer(rest)}" if rest else "")
    for name, power in sorted(_SCALES.items(), key=lambda item: -item[1]):
        if number >= 10**power:
            high, rest = divmod(number, 10**power)
            head = f"{spell_integer(high)} {name}"
            if not rest:
                return head
            return head + (" and " if rest < 100 else " ") + spell_integer(rest)
    raise AssertionError("unreachable")


def expand_scale(number: str, scale: str, factor: int = 1) -> str:
    """ "2.3", "billion" -> "2,300,000,000"; ``factor`` 10 gives the classic slip of a place."""
    try:
        value = Decimal(number.replace(",", "")) * Decimal(10) ** _SCALES[scale.lower()] * factor
    except (InvalidOperation, KeyError) as exc:
        raise ValueError(f"cannot expand {number} {scale}") from exc
    if value != value.to_integral_value():
        raise ValueError(f"{number} {scale} is not a whole number")
    return f"{int(value):,}"


def numbers_in(text: str) -> list[tuple[int, int]]:
    """Spans of the plain numbers of ``text``: not parts of identifiers or dates."""
    taken = [m.span() for m in IDENTIFIER.finditer(text)] + [m.span() for m in DATE.finditer(text)]
    return [
        m.span()
        for m in NUMBER.finditer(text)
        if not any(s < m.end() and m.start() < e for s, e in taken)
    ]


def replace_span(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


# --- sentences ----------------------------------------------------------------------------------


def has_negation(sentence: str) -> bool:
    return _NEGATION.search(sentence) is not None


def insert_negation(sentence: str) -> str | None:
    """ "Items can be returned" -> "Items can not be returned"."""
    if has_negation(sentence):
        return None
    return insert_after_auxiliary(sentence, "not")


def remove_negation(sentence: str) -> str | None:
    """ "Items are not eligible" -> "Items are eligible"; the first negation only."""
    for pattern, replacement in _NEGATION_EDITS:
        changed = pattern.sub(replacement, sentence, count=1)
        if changed != sentence:
            return changed
    return None


def insert_after_auxiliary(sentence: str, word: str) -> str | None:
    match = _AUXILIARY.search(sentence)
    if match is None:
        return None
    return f"{sentence[: match.end()]} {word}{sentence[match.end() :]}"


def insert_before_number(sentence: str, phrase: str) -> str | None:
    """ "within 30 days" -> "within up to 30 days"."""
    for match in _NUMBER_START.finditer(sentence):
        if not any(s <= match.start() < e for s, e in _date_and_id_spans(sentence)):
            return replace_span(sentence, match.start(), match.start(), phrase + " ")
    return None


def shift_date(sentence: str) -> str | None:
    """The first date one day (a full date), one month (month and year) or one year later."""
    match = DATE.search(sentence)
    if match is None:
        return None
    text = match.group(0)
    shifted = _shift(text)
    return replace_span(sentence, match.start(), match.end(), shifted)


def _shift(text: str) -> str:
    if m := re.fullmatch(rf"(\d{{1,2}}) ({_MONTH}) (\d{{4}})", text):
        day = dt.date(int(m[3]), MONTHS.index(m[2]) + 1, int(m[1])) + dt.timedelta(days=1)
        return f"{day.day} {MONTHS[day.month - 1]} {day.year}"
    if m := re.fullmatch(rf"({_MONTH}) (\d{{1,2}}), (\d{{4}})", text):
        day = dt.date(int(m[3]), MONTHS.index(m[1]) + 1, int(m[2])) + dt.timedelta(days=1)
        return f"{MONTHS[day.month - 1]} {day.day}, {day.year}"
    if m := re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", text):
        day = dt.date(int(m[1]), int(m[2]), int(m[3])) + dt.timedelta(days=1)
        return day.isoformat()
    if m := re.fullmatch(rf"({_MONTH}) (\d{{4}})", text):
        month = MONTHS.index(m[1]) + 1
        year = int(m[2]) + month // 12
        return f"{MONTHS[month % 12]} {year}"
    return str(int(text) + 1)


def swap_unit(sentence: str) -> str | None:
    """ "30 days" -> "30 weeks": the same number, another unit."""
    match = _UNIT.search(sentence)
    if match is None:
        return None
    unit = _UNIT_SWAP[match.group(2).lower()]
    return replace_span(
        sentence, match.start(2), match.end(3), unit + ("s" if match.group(3) else "")
    )


def _durations(sentence: str) -> list[re.Match[str]]:
    """Durations that stand alone: not the end of a range ("4 to 6 hours")."""
    return [m for m in _UNIT.finditer(sentence) if not _RANGE_BEFORE.search(sentence[: m.start()])]


def durations_in(text: str) -> list[tuple[int, int]]:
    """Spans of the durations of ``text`` that stand alone, number and unit ("30 days")."""
    return [m.span() for m in _durations(text)]


def convert_unit_wrongly(sentence: str) -> str | None:
    """A duration rewritten in a larger unit, wrongly: "14 days" -> "one month",
    "45 days" -> "seven weeks", "24 hours" -> "two days"."""
    for match in _durations(sentence):
        amount = Decimal(match.group(1))
        if amount != amount.to_integral_value():
            continue
        number, unit = int(amount), match.group(2).lower()
        if unit == "day":
            words = "one month" if number <= 21 else f"{spell_integer(number // 7 + 1)} weeks"
        elif unit == "hour":
            days = number // 24 + 1
            words = f"{spell_integer(days)} day{'s' if days > 1 else ''}"
        else:
            continue
        return replace_span(sentence, match.start(), match.end(), words)
    return None


def scaled_numbers(sentence: str) -> list[re.Match[str]]:
    """ "€2.3 billion", "184 million": numbers with a scale word after them."""
    return list(_SCALED.finditer(sentence))


def entities(text: str) -> list[str]:
    """Capitalised names in ``text``: runs of capitalised words, less a lone capital that only
    opens a sentence and leading words such as "The" or "Dr"."""
    found: list[str] = []
    for match in _ENTITY.finditer(text):
        words = match.group(0).split()
        before = text[: match.start()].rstrip()
        opens_sentence = not before or before[-1] in ".!?:"
        while words and words[0] in _NOT_ENTITIES:
            words = words[1:]
        if opens_sentence and len(words) == 1 and words[0] == match.group(0):
            continue
        if words and " ".join(words) not in found:
            found.append(" ".join(words))
    return found


# Words whose counterpart says the same with the parties swapped ("A before B" is "B after
# A"): swapped in place, with everything else where it was, they say the opposite.
_CONVERSES = {
    "before": "after", "after": "before", "above": "below", "below": "above",
    "earlier": "later", "later": "earlier", "higher": "lower", "lower": "higher",
    "more": "less", "less": "more", "won": "lost", "gained": "lost", "improved": "worsened",
    "inside": "outside", "outside": "inside", "north": "south", "south": "north",
}  # fmt: skip
_CONVERSE = re.compile(rf"\b(?:{lexicon.alternation(_CONVERSES)})\b")


def converses_in(sentence: str) -> list[tuple[int, int]]:
    """Spans of the sentence's converse words ("before", "higher", "won")."""
    return [match.span() for match in _CONVERSE.finditer(sentence)]


def swap_converse(sentence: str, span: tuple[int, int] | None = None) -> str | None:
    """The converse word at ``span`` (the first, by default) for its counterpart."""
    spans = converses_in(sentence)
    if span is None and spans:
        span = spans[0]
    if span is None or span not in spans:
        return None
    start, end = span
    return replace_span(sentence, start, end, _CONVERSES[sentence[start:end]])


def _date_and_id_spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in DATE.finditer(text)] + [m.span() for m in IDENTIFIER.finditer(text)]


# The sentence-level transformations by name, for listing and tests.
SENTENCE_TRANSFORMS: dict[str, Callable[[str], str | None]] = {
    "insert_negation": insert_negation,
    "remove_negation": remove_negation,
    "shift_date": shift_date,
    "swap_unit": swap_unit,
    "convert_unit_wrongly": convert_unit_wrongly,
    "swap_converse": swap_converse,
}
