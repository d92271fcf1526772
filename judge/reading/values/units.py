"""Units that travel with a number: currencies, percentages, scale words and measures.

A unit is a short string: ``%`` (percent), ``pp`` (percentage points), ``frac`` (a fraction
word such as "half"), ``cur:<family>`` for money and ``<dimension>:<unit>`` for measures.
``None`` means the text names no unit, which is compatible with any unit. The words and
symbols come from the word lists (``currencies``, ``currency_names``, ``measures``,
``scales``, ``percent``); conversions between measures of one dimension from pint.
"""

from __future__ import annotations

import re
from decimal import Decimal
from functools import cache
from typing import TYPE_CHECKING

from judge.reading import lexicon

if TYPE_CHECKING:
    import pint

__all__ = [
    "CURRENCY_AFTER",
    "CURRENCY_BEFORE",
    "FRACTION",
    "GLUED_CODE_BEFORE",
    "MEASURE_AFTER",
    "PERCENT",
    "PERCENT_AFTER",
    "POINTS",
    "SCALES",
    "SCALE_SUFFIX",
    "SCALE_WORD",
    "compatible",
    "convert",
    "currency_family",
    "dimension",
    "is_currency",
    "measure_unit",
]

PERCENT = "%"
POINTS = "pp"
FRACTION = "frac"


def _alternation(words: frozenset[str] | tuple[str, ...]) -> str:
    return "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))


# --- money ----------------------------------------------------------------------------------


@cache
def _currency_families() -> dict[str, str]:
    """Every currency symbol, code and name (casefolded) -> its family."""
    families: dict[str, str] = {}
    for entry in lexicon.entries("currencies", "common") + lexicon.entries("currency_names"):
        families.update(dict.fromkeys(entry.words, entry.name))
    return families


def _is_code(word: str) -> bool:
    return len(word) == 3 and word.isascii() and word.isalpha()


def _symbols_and_codes() -> tuple[frozenset[str], frozenset[str]]:
    common = lexicon.words("currencies", "common")
    codes = frozenset(word for word in common if _is_code(word))
    return common - codes, codes


_SYMBOLS, _CODES = _symbols_and_codes()
_NAMES = lexicon.words("currency_names")
# Letters among the symbols ("rs", "rs.", "r$") need a word boundary before them.
_SYMBOL_BEFORE = "|".join(
    (rf"\b{re.escape(s)}" if s[:1].isalpha() else re.escape(s))
    for s in sorted(_SYMBOLS, key=len, reverse=True)
)
CURRENCY_BEFORE = re.compile(
    rf"(?:{_SYMBOL_BEFORE}|\b(?:{_alternation(_CODES)}))\s?$", re.IGNORECASE
)
CURRENCY_AFTER = re.compile(
    rf"^\s?(?:(?P<word>{_alternation(_NAMES | _CODES)})\b"
    rf"|(?P<symbol>{_alternation(frozenset(s for s in _SYMBOLS if not s[:1].isalpha()))}))",
    re.IGNORECASE,
)
# Prices and tables glue the code to the amount ("USD25"); a look-behind lets the number
# reader start there, where a letter before the digits otherwise makes them part of a name.
CURRENCY_CODES = "(?:" + "|".join(sorted(code.upper() for code in _CODES)) + ")"
GLUED_CODE_BEFORE = rf"(?<=(?<![A-Za-z]){CURRENCY_CODES})"


def currency_family(written: str) -> str:
    """The unit of a currency symbol, code or name as written ("US$", "eur", "euros")."""
    text = " ".join(written.strip().casefold().split())
    families = _currency_families()
    if text not in families and text.endswith("$"):
        return "cur:dollar"
    return f"cur:{families[text]}"


def is_currency(unit: str | None) -> bool:
    return unit is not None and unit.startswith("cur:")


# --- scales and shares ----------------------------------------------------------------------

SCALES = {word: int(entry.value) for entry in lexicon.entries("scales") for word in entry.words}
SCALE_WORD = re.compile(
    rf"^\s?({_alternation(lexicon.words('scales', name='word'))})\b", re.IGNORECASE
)
SCALE_SUFFIX = re.compile(
    rf"^({_alternation(lexicon.words('scales', name='suffix'))})\b", re.IGNORECASE
)
PERCENT_AFTER = re.compile(
    rf"^(?:\s?(?:(?P<pp>{_alternation(lexicon.words('percent', name='points'))})"
    rf"|(?P<pct>%|{_alternation(lexicon.words('percent', name='percent') - {'%'})}\b))"
    rf"|(?:{_alternation(lexicon.words('percent', name='glued'))})\b)",
    re.IGNORECASE,
)

# --- measures -------------------------------------------------------------------------------


@cache
def _measures() -> tuple[dict[str, str], dict[str, str]]:
    """(spelling -> unit key "dimension:unit", unit key -> its pint definition)."""
    spellings: dict[str, str] = {}
    definitions: dict[str, str] = {}
    for entry in lexicon.entries("measures"):
        if ":" not in entry.name:
            continue  # the lists of spellings read only under a condition
        definitions[entry.name] = entry.value
        spellings.update(dict.fromkeys(entry.words, entry.name))
    return spellings, definitions


_GLUED_ONLY = lexicon.words("measures", name="glued_only")
_LOWER_CASE_ONLY = lexicon.words("measures", name="lower_case_only")
_CAPITAL_B_ONLY = lexicon.words("measures", name="capital_b_only")
MEASURE_AFTER = re.compile(
    r"^(?P<sep>\s?-?\s?)(?P<unit>" + _alternation(tuple(_measures()[0])) + r")(?![\w°/])",
    re.IGNORECASE,
)


def measure_unit(raw: str, glued: bool) -> str | None:
    """The unit key of a measure word after a number, or None where the word is too ambiguous."""
    spelled = " ".join(raw.casefold().split())
    if spelled in _GLUED_ONLY and not glued:
        return None
    if spelled in _LOWER_CASE_ONLY and not raw.islower():
        return None
    if spelled in _CAPITAL_B_ONLY and not raw.endswith("B"):
        return None
    return _measures()[0].get(spelled)


def dimension(unit: str | None) -> str | None:
    if unit is None or ":" not in unit or is_currency(unit):
        return None
    return unit.split(":", 1)[0]


def convert(value: Decimal, source: str, target: str) -> Decimal | None:
    """``value`` in unit ``source`` expressed in unit ``target``; None across dimensions."""
    if source == target or dimension(source) is None or dimension(source) != dimension(target):
        return None
    registry = _registry()
    converted = registry.Quantity(float(value), _pint_unit(source)).to(_pint_unit(target))
    return Decimal(str(converted.magnitude))


def _pint_unit(unit: str) -> str:
    """pint's name of a unit key; a definition of a unit pint lacks ("calendar_decade = 10 *
    year": pint's decade is a ratio) names the unit it defines."""
    return _measures()[1][unit].partition("=")[0].strip()


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
    for definition in _measures()[1].values():
        if "=" in definition:
            registry.define(definition)
    return registry
