"""Units that travel with a number: currencies, percentages, scale words and measures.

A unit is a short string: ``%`` (percent), ``pp`` (percentage points), ``frac`` (a fraction
word such as "half"), ``cur:<family>`` for money and ``<dimension>:<unit>`` for measures.
``None`` means the text names no unit, which is compatible with any unit. The words and
symbols come from the word lists: currency symbols and codes for every language
(``common/currencies``), and per language the currency names, scale words, percent words and
measure spellings (``<language>/currency_names``, ``scales``, ``percent``, ``measures``);
a text is read with its own language's words and English's. Conversions between measures of
one dimension come from pint.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache, partial
from typing import TYPE_CHECKING

from judge.reading import lexicon
from judge.reading.languages import CJK_LETTERS

if TYPE_CHECKING:
    import pint

__all__ = [
    "CURRENCY_CODES",
    "FRACTION",
    "GLUED_CODE_BEFORE",
    "PERCENT",
    "POINTS",
    "UnitWords",
    "compatible",
    "convert",
    "currency_family",
    "dimension",
    "is_currency",
    "unit_words",
]

# Spellings matched as written: a space in one is that space.
_exact = partial(lexicon.alternation, any_space=False)


PERCENT = "%"
COUNT = "count"  # the dimension of what a counter counts: "count:people"
POINTS = "pp"
FRACTION = "frac"
ENGLISH = "en"
# Units in the scripts that write them right after the digits, with no space or word boundary
# after them ("60天内", "3年間").
_CJK = re.compile(f"[{CJK_LETTERS}]")


def _words(list_name: str, language: str, name: str | None = None) -> frozenset[str]:
    """A list's words in English and in ``language``, where that language has the list."""
    found = (
        lexicon.words(list_name, ENGLISH, name) if lexicon.has(list_name, ENGLISH) else frozenset()
    )
    if language != ENGLISH and lexicon.has(list_name, language):
        found |= lexicon.words(list_name, language, name)
    return found


def _entries(list_name: str, language: str) -> tuple[lexicon.Entry, ...]:
    found = lexicon.entries(list_name, ENGLISH)
    if language != ENGLISH and lexicon.has(list_name, language):
        found += lexicon.entries(list_name, language)
    return found


# --- money ----------------------------------------------------------------------------------


@cache
def _currency_families(language: str = ENGLISH) -> dict[str, str]:
    """Every currency symbol and code, and the names English and ``language`` give them,
    casefolded -> its family; the language's own reading of a symbol last ("¥" is the yuan
    in Chinese text, the yen in Japanese and English)."""
    families: dict[str, str] = {}
    for entry in lexicon.entries("currencies", "common"):
        families.update(dict.fromkeys((w.casefold() for w in entry.words), entry.name))
    for entry in _entries("currency_names", language):
        families.update(dict.fromkeys((w.casefold() for w in entry.words), entry.name))
    return families


def _is_code(word: str) -> bool:
    return len(word) == 3 and word.isascii() and word.isalpha()


_COMMON = lexicon.words("currencies", "common")
_CODES = frozenset(word for word in _COMMON if _is_code(word))
_SYMBOLS = _COMMON - _CODES
# Prices and tables glue the code to the amount ("USD25"); a look-behind lets the number
# reader start there, where a letter before the digits otherwise makes them part of a name.
CURRENCY_CODES = "(?:" + "|".join(sorted(code.upper() for code in _CODES)) + ")"
GLUED_CODE_BEFORE = rf"(?<=(?<![A-Za-z]){CURRENCY_CODES})"


def currency_family(written: str, language: str = ENGLISH) -> str:
    """The unit of a currency symbol, code or name as written ("US$", "eur", "euros")."""
    text = " ".join(written.strip().casefold().split())
    families = _currency_families(language)
    if text not in families and text.endswith("$"):
        return "cur:dollar"
    return f"cur:{families[text]}"


def is_currency(unit: str | None) -> bool:
    return unit is not None and unit.startswith("cur:")


def is_count(unit: str | None) -> bool:
    """Whether ``unit`` is what a counter counts ("count:people"), not a measure."""
    return unit is not None and unit.startswith(f"{COUNT}:")


# --- the words of one language --------------------------------------------------------------


@dataclass(frozen=True)
class UnitWords:
    """The patterns that read the units around a number in one language (and English)."""

    currency_before: re.Pattern[str]
    currency_after: re.Pattern[str]
    scales: dict[str, int]
    scale_word: re.Pattern[str]
    scale_suffix: re.Pattern[str]
    scale_before_currency: re.Pattern[str]  # "12,5 M€": a scale letter before a currency sign
    percent_after: re.Pattern[str]
    measure_after: re.Pattern[str]
    spellings: dict[str, str]  # a measure's spelling -> its unit key "dimension:unit"
    language: str
    # Chinese and Japanese counters -> the unit of the number before them: what it counts
    # ("片" -> "count:tablets"), where no measure or currency is named.
    counters: dict[str, str] = field(default_factory=dict)

    def currency(self, written: str) -> str:
        """The unit of a currency as written, in this language."""
        return currency_family(written, self.language)


@cache
def unit_words(language: str = ENGLISH) -> UnitWords:
    """The unit patterns of ``language`` (English's words always among them)."""
    names = _words("currency_names", language)
    # Letters among the symbols ("rs", "rs.", "r$") need a word boundary before them.
    symbol_before = "|".join(
        (rf"\b{re.escape(s)}" if s[:1].isalpha() else re.escape(s))
        for s in sorted(_SYMBOLS, key=len, reverse=True)
    )
    signs = frozenset(s for s in _SYMBOLS if not s[:1].isalpha())
    scales = {w.casefold(): int(e.value) for e in _entries("scales", language) for w in e.words}
    scale_words = _words("scales", language, "word")
    percent_words = _words("percent", language, "percent") - {"%"}
    spellings = _spellings(language)
    latin = frozenset(s for s in spellings if not _CJK.search(s))
    cjk = frozenset(spellings) - latin
    # A name in a script that writes none after it is read with no word boundary ("元の").
    latin_names = frozenset(n for n in names | _CODES if not _CJK.search(n))
    cjk_names = (names | _CODES) - latin_names
    return UnitWords(
        currency_before=re.compile(
            rf"(?:{symbol_before}|\b(?:{_exact(_CODES)}))\s?$", re.IGNORECASE
        ),
        currency_after=re.compile(
            rf"^\s?(?:(?P<word>{_exact(latin_names)})(?!\w)"
            + (rf"|(?P<cjk>{_exact(cjk_names)})" if cjk_names else "")
            + rf"|(?P<symbol>{_exact(signs)}))",
            re.IGNORECASE,
        ),
        scales=scales,
        scale_word=re.compile(rf"^\s?({_exact(scale_words)})(?!\w)", re.IGNORECASE),
        scale_suffix=re.compile(
            rf"^({_exact(_words('scales', language, 'suffix'))})\b", re.IGNORECASE
        ),
        scale_before_currency=re.compile(
            rf"^\s?({_exact(_words('scales', language, 'before_currency'))})(?=\s?[$€£¥])"
            if _words("scales", language, "before_currency")
            else r"(?!)",
            re.IGNORECASE,
        ),
        percent_after=re.compile(
            rf"^(?:\s?(?:(?P<pp>{_exact(_words('percent', language, 'points'))})"
            rf"|(?P<pct>[%％]|{_exact(percent_words)}(?!\w)))"
            rf"|(?:{_exact(_words('percent', language, 'glued'))})\b)",
            re.IGNORECASE,
        ),
        measure_after=re.compile(
            rf"^(?P<sep>\s?-?\s?)(?P<unit>(?:{_exact(latin)})(?![\w°/])"
            + (rf"|{_exact(cjk)}" if cjk else "")
            + ")",
            re.IGNORECASE,
        ),
        spellings=spellings,
        language=language,
        counters=_counters(language),
    )


def _counters(language: str) -> dict[str, str]:
    if not lexicon.has("counters", language):
        return {}
    return {
        word: entry.name
        for entry in lexicon.entries("counters", language)
        if entry.name.startswith(f"{COUNT}:")
        for word in entry.words
    }


# --- measures -------------------------------------------------------------------------------


@cache
def _definitions() -> dict[str, str]:
    """Each English unit key -> its pint definition; every language's spellings name them."""
    return {e.name: e.value for e in lexicon.entries("measures") if ":" in e.name}


def _spellings(language: str) -> dict[str, str]:
    """Every spelling of a measure (English's and ``language``'s) -> its unit key."""
    spellings: dict[str, str] = {}
    for entry in _entries("measures", language):
        if ":" in entry.name:
            spellings.update(dict.fromkeys((w.casefold() for w in entry.words), entry.name))
    return spellings


_GLUED_ONLY = lexicon.words("measures", name="glued_only")
_LOWER_CASE_ONLY = lexicon.words("measures", name="lower_case_only")
_CAPITAL_B_ONLY = lexicon.words("measures", name="capital_b_only")


def measure_unit(raw: str, glued: bool, words: UnitWords) -> str | None:
    """The unit key of a measure word after a number, or None where the word is too ambiguous."""
    spelled = " ".join(raw.casefold().split())
    if spelled in _GLUED_ONLY and not glued:
        return None
    if spelled in _LOWER_CASE_ONLY and not raw.islower():
        return None
    if spelled in _CAPITAL_B_ONLY and not raw.endswith("B"):
        return None
    return words.spellings.get(spelled)


def dimension(unit: str | None) -> str | None:
    if unit is None or ":" not in unit or is_currency(unit):
        return None
    return unit.split(":", 1)[0]


def convert(value: Decimal, source: str, target: str) -> Decimal | None:
    """``value`` in unit ``source`` expressed in unit ``target``; None across dimensions."""
    if source == target or dimension(source) is None or dimension(source) != dimension(target):
        return None
    if source not in _definitions() or target not in _definitions():
        return None
    registry = _registry()
    converted = registry.Quantity(float(value), _pint_unit(source)).to(_pint_unit(target))
    return Decimal(str(converted.magnitude))


def _pint_unit(unit: str) -> str:
    """pint's name of a unit key; a definition of a unit pint lacks ("calendar_decade = 10 *
    year": pint's decade is a ratio) names the unit it defines."""
    return _definitions()[unit].partition("=")[0].strip()


def compatible(claim_unit: str | None, evidence_unit: str | None) -> bool:
    """Whether two numbers' units allow them to be the same quantity.

    An unnamed unit is compatible with anything: evidence often states the unit once for a list.
    Different measures of one dimension are not the same quantity; they need a conversion.
    """
    if claim_unit is None or evidence_unit is None or claim_unit == evidence_unit:
        return True
    return {claim_unit, evidence_unit} == {PERCENT, FRACTION}


@cache
def _registry() -> pint.UnitRegistry[float]:
    """pint's registry, loaded on the first conversion (most claims need none)."""
    import pint

    registry: pint.UnitRegistry[float] = pint.UnitRegistry()
    for definition in _definitions().values():
        if "=" in definition:
            registry.define(definition)
    return registry
