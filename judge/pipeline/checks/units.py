"""Units that travel with a number: currencies, percentages, scale words and measures.

A unit is a short string: ``%`` (percent), ``pp`` (percentage points), ``frac`` (a fraction
word such as "half"), ``cur:<family>`` for money and ``<dimension>:<unit>`` for measures.
``None`` means the text names no unit, which is compatible with any unit.
"""

from __future__ import annotations

import re
from decimal import Decimal

PERCENT = "%"
POINTS = "pp"
FRACTION = "frac"

# Currency families: "$1.5M" and "1,500,000 dollars" must compare equal, so "$" is a dollar of
# unknown country and every dollar code joins it. Names that are also common English words
# ("won", "real", "rand") are read only as codes.
_CURRENCY_WORDS = {
    "dollar": "dollar", "dollars": "dollar", "usd": "dollar", "cad": "dollar", "aud": "dollar",
    "nzd": "dollar", "hkd": "dollar", "sgd": "dollar", "bucks": "dollar",
    "euro": "euro", "euros": "euro", "eur": "euro",
    "gbp": "pound", "sterling": "pound",
    "yen": "yen", "jpy": "yen", "yuan": "yuan", "renminbi": "yuan", "cny": "yuan", "rmb": "yuan",
    "rupee": "rupee", "rupees": "rupee", "inr": "rupee",
    "krone": "krone", "kroner": "krone", "krona": "krone", "kronor": "krone", "dkk": "krone",
    "sek": "krone", "nok": "krone",
    "franc": "franc", "francs": "franc", "chf": "franc",
    "krw": "won", "rouble": "rouble", "roubles": "rouble", "ruble": "rouble", "rubles": "rouble",
    "peso": "peso", "pesos": "peso", "mxn": "peso", "reais": "real", "brl": "real", "zar": "rand",
}  # fmt: skip
_CURRENCY_SYMBOLS = {
    "$": "dollar", "€": "euro", "£": "pound", "¥": "yen", "₹": "rupee", "₩": "won",
    "₽": "rouble", "r$": "real", "rs": "rupee", "rs.": "rupee",
}  # fmt: skip
_CURRENCY_CODES_BEFORE = ("usd", "eur", "gbp", "jpy", "cny", "inr", "dkk", "sek", "nok", "chf")
# Prices and tables glue the code to the amount ("USD25"); a look-behind lets the number
# reader start there, where a letter before the digits otherwise makes them part of a name.
CURRENCY_CODES = "(?:" + "|".join(code.upper() for code in _CURRENCY_CODES_BEFORE) + ")"
GLUED_CODE_BEFORE = rf"(?<=(?<![A-Za-z]){CURRENCY_CODES})"

CURRENCY_BEFORE = re.compile(
    r"(?:(?:us|a|au|c|ca|nz|hk|s)?\$|r\$|[€£¥₹₩₽]|\brs\.?|\b(?:"
    + "|".join(_CURRENCY_CODES_BEFORE)
    + r"))\s?$",
    re.IGNORECASE,
)
CURRENCY_AFTER = re.compile(
    r"^\s?(" + "|".join(sorted(_CURRENCY_WORDS, key=len, reverse=True)) + r")\b", re.IGNORECASE
)

# Scale words multiply the number. Suffixes glued to the number ("1.5M", "3bn") count too, but a
# bare lower-case "m" only with money in front: "4.8 m" and "4.8m" are metres otherwise.
SCALES = {
    "thousand": 3, "k": 3, "million": 6, "mn": 6, "mln": 6, "m": 6, "billion": 9, "bn": 9,
    "bln": 9, "b": 9, "trillion": 12, "tn": 12, "trn": 12,
}  # fmt: skip
SCALE_WORD = re.compile(r"^\s?(thousand|million|billion|trillion)\b", re.IGNORECASE)
SCALE_SUFFIX = re.compile(r"^(k|mn|mln|m|bn|bln|b|tn|trn)\b", re.IGNORECASE)

# "7pc" is British press style for 7 per cent, read only glued to the number.
PERCENT_AFTER = re.compile(
    r"^(?:\s?(?:(?P<pp>percentage[\s-]points?|per\s?cent(?:age)?[\s-]points?|pp|ppt|p\.p\.)"
    r"|(?P<pct>%|per\s?cent\b|pct\b))|pc\b)",
    re.IGNORECASE,
)

# Measures: dimension and the factor to a base unit of that dimension (SI where there is one).
_MEASURES: dict[str, tuple[str, Decimal]] = {
    "second": ("time", Decimal(1)), "minute": ("time", Decimal(60)),
    "hour": ("time", Decimal(3600)), "day": ("time", Decimal(86400)),
    "week": ("time", Decimal(604800)), "fortnight": ("time", Decimal(1209600)),
    "month": ("time", Decimal(2629746)), "year": ("time", Decimal(31556952)),
    "decade": ("time", Decimal(315569520)), "century": ("time", Decimal(3155695200)),
    "mm": ("length", Decimal("0.001")), "cm": ("length", Decimal("0.01")),
    "m": ("length", Decimal(1)), "km": ("length", Decimal(1000)),
    "inch": ("length", Decimal("0.0254")), "foot": ("length", Decimal("0.3048")),
    "yard": ("length", Decimal("0.9144")), "mile": ("length", Decimal("1609.344")),
    "mg": ("mass", Decimal("0.001")), "g": ("mass", Decimal(1)), "kg": ("mass", Decimal(1000)),
    "lb": ("mass", Decimal("453.59237")), "oz": ("mass", Decimal("28.349523125")),
    "tonne": ("mass", Decimal(1000000)),
    "ml": ("volume", Decimal("0.001")), "l": ("volume", Decimal(1)),
    "gallon": ("volume", Decimal("3.785411784")),
    "km/h": ("speed", Decimal(1)), "mph": ("speed", Decimal("1.609344")),
    "°c": ("temperature", Decimal(1)), "°f": ("temperature", Decimal(1)),
    "w": ("power", Decimal(1)), "kw": ("power", Decimal(10**3)), "mw": ("power", Decimal(10**6)),
    "gw": ("power", Decimal(10**9)), "tw": ("power", Decimal(10**12)),
    "wh": ("energy", Decimal(1)), "kwh": ("energy", Decimal(10**3)),
    "mwh": ("energy", Decimal(10**6)), "gwh": ("energy", Decimal(10**9)),
    "twh": ("energy", Decimal(10**12)),
    "hz": ("frequency", Decimal(1)), "khz": ("frequency", Decimal(10**3)),
    "mhz": ("frequency", Decimal(10**6)), "ghz": ("frequency", Decimal(10**9)),
    "byte": ("data", Decimal(1)), "kb": ("data", Decimal(10**3)), "mb": ("data", Decimal(10**6)),
    "gb": ("data", Decimal(10**9)), "tb": ("data", Decimal(10**12)),
    "pb": ("data", Decimal(10**15)),
}  # fmt: skip
# Every spelling of a unit maps to its key above, so "30 days" and "30-day" compare equal.
_SPELLING = {
    "seconds": "second", "sec": "second", "secs": "second",
    "minutes": "minute", "min": "minute", "mins": "minute",
    "hours": "hour", "hr": "hour", "hrs": "hour", "h": "hour",
    "days": "day", "d": "day", "dys": "day", "weeks": "week", "wk": "week", "wks": "week",
    "mo": "month", "mos": "month", "fortnights": "fortnight", "months": "month",
    "years": "year", "yr": "year", "yrs": "year", "decades": "decade", "centuries": "century",
    "millimetre": "mm", "millimetres": "mm", "millimeter": "mm", "millimeters": "mm",
    "centimetre": "cm", "centimetres": "cm", "centimeter": "cm", "centimeters": "cm",
    "metre": "m", "metres": "m", "meter": "m", "meters": "m",
    "kilometre": "km", "kilometres": "km", "kilometer": "km", "kilometers": "km",
    "inches": "inch", "in": "inch", "feet": "foot", "ft": "foot", "yards": "yard",
    "yd": "yard", "miles": "mile", "mi": "mile",
    "milligram": "mg", "milligrams": "mg", "gram": "g", "grams": "g",
    "kilogram": "kg", "kilograms": "kg", "kilo": "kg", "kilos": "kg", "lbs": "lb",
    "ounce": "oz", "ounces": "oz", "tonnes": "tonne", "ton": "tonne", "tons": "tonne",
    "millilitre": "ml", "millilitres": "ml", "milliliter": "ml", "milliliters": "ml",
    "litre": "l", "litres": "l", "liter": "l", "liters": "l", "gallons": "gallon",
    "kph": "km/h", "kilometres per hour": "km/h", "kilometers per hour": "km/h",
    "km per hour": "km/h", "miles per hour": "mph", "miles an hour": "mph",
    "celsius": "°c", "degrees celsius": "°c", "° c": "°c",
    "fahrenheit": "°f", "degrees fahrenheit": "°f", "° f": "°f",
    "watt": "w", "watts": "w", "kilowatt": "kw", "kilowatts": "kw", "megawatt": "mw",
    "megawatts": "mw", "gigawatt": "gw", "gigawatts": "gw", "terawatt": "tw", "terawatts": "tw",
    "watt-hour": "wh", "watt-hours": "wh", "kilowatt-hour": "kwh", "kilowatt-hours": "kwh",
    "megawatt-hour": "mwh", "megawatt-hours": "mwh", "gigawatt-hour": "gwh",
    "gigawatt-hours": "gwh", "terawatt-hour": "twh", "terawatt-hours": "twh",
    "hertz": "hz", "kilohertz": "khz", "megahertz": "mhz", "gigahertz": "ghz",
    "bytes": "byte", "kilobyte": "kb", "kilobytes": "kb", "megabyte": "mb", "megabytes": "mb",
    "gigabyte": "gb", "gigabytes": "gb", "terabyte": "tb", "terabytes": "tb",
    "petabyte": "pb", "petabytes": "pb",
}  # fmt: skip
# Symbols that are also ordinary words or letters count only when glued to the number.
_GLUED_ONLY = frozenset({"in", "h", "l", "mi", "d", "mo", "mos", "w"})
# Sizes of data are bytes only with a capital B: "8 Gb" is gigabits, "8 GB" gigabytes.
_BYTES_WITH_CAPITAL_B = frozenset({"kb", "mb", "gb", "tb", "pb"})
# Read in lower case only: "3D" and "2D" are dimensions, "60d" is sixty days; "5G" is a
# network generation, "5 g" and "5g" five grams.
_LOWER_CASE_ONLY = frozenset({"d", "g"})
MEASURE_AFTER = re.compile(
    r"^(?P<sep>\s?-?\s?)(?P<unit>"
    + "|".join(re.escape(u) for u in sorted({*_MEASURES, *_SPELLING}, key=len, reverse=True))
    + r")(?![\w°/])",
    re.IGNORECASE,
)


def currency_symbol_family(symbol: str) -> str:
    text = symbol.strip().casefold()
    if text.endswith("$") and text != "r$":
        return "cur:dollar"
    if text in _CURRENCY_CODES_BEFORE:
        return f"cur:{_CURRENCY_WORDS[text]}"
    return f"cur:{_CURRENCY_SYMBOLS[text]}"


def currency_word_family(word: str) -> str:
    return f"cur:{_CURRENCY_WORDS[word.casefold()]}"


def measure_unit(raw: str, glued: bool) -> str | None:
    """The unit key of a measure word after a number, or None where the word is too ambiguous."""
    spelled = " ".join(raw.casefold().split())
    if spelled in _GLUED_ONLY and not glued:
        return None
    if spelled in _LOWER_CASE_ONLY and not raw.islower():
        return None
    if spelled in _BYTES_WITH_CAPITAL_B and not raw.endswith("B"):
        return None
    key = _SPELLING.get(spelled, spelled)
    if key not in _MEASURES:
        return None
    return f"{_MEASURES[key][0]}:{key}"


def dimension(unit: str | None) -> str | None:
    if unit is None or ":" not in unit or unit.startswith("cur:"):
        return None
    return unit.split(":", 1)[0]


def convert(value: Decimal, source: str, target: str) -> Decimal | None:
    """``value`` in unit ``source`` expressed in unit ``target``; None across dimensions."""
    if source == target or dimension(source) is None or dimension(source) != dimension(target):
        return None
    src, dst = source.split(":", 1)[1], target.split(":", 1)[1]
    if src == "°c":
        return value * Decimal("1.8") + 32
    if src == "°f":
        return (value - 32) / Decimal("1.8")
    return value * _MEASURES[src][1] / _MEASURES[dst][1]


def compatible(claim_unit: str | None, evidence_unit: str | None) -> bool:
    """Whether two numbers' units allow them to be the same quantity.

    An unnamed unit is compatible with anything: evidence often states the unit once for a list.
    Different measures of one dimension are not the same quantity; they need a conversion.
    """
    if claim_unit is None or evidence_unit is None or claim_unit == evidence_unit:
        return True
    return {claim_unit, evidence_unit} == {PERCENT, FRACTION}
