"""Which language a text is written in, and what the language's conventions are.

Detection is py3langid's offline model (it ships in the wheel), restricted to the languages
it tells apart on short sentences: measured on 765 short texts in twelve languages it made
no error with that restriction (``benchmarks/LANGUAGES.md``). A text too short or too bare
to tell ("1.299 €") is *undetermined*, and its reader falls back on the language of what
surrounds it. How a language writes numbers and names months comes from the Unicode CLDR
data (babel); which words it reads by, from the word lists (``lexicon/<language>/``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

from judge.reading import lexicon

__all__ = [
    "CJK_LETTERS",
    "DETECTED",
    "ENGLISH",
    "UNDETERMINED",
    "Conventions",
    "conventions",
    "detect",
    "pair",
    "reads",
]

ENGLISH = "en"
UNDETERMINED = "und"
# The characters of the scripts that write no space between words, nor between a number and
# its counter or unit ("30天", "3年間", "KX-4512Jです"): a character class's contents. A word
# boundary next to one is no boundary of a number or a code.
CJK_LETTERS = "\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af"
# The languages detection chooses among (ISO 639-1): those measured in
# benchmarks/LANGUAGES.md and every language with a word-list folder, so that adding a
# language's lists makes it one the reader can tell.
_MEASURED = ("en", "de", "fr", "es", "it", "pt", "nl", "ru", "zh", "ja", "ko", "ar")
DETECTED = tuple(
    dict.fromkeys([*_MEASURED, *(code for code in lexicon.languages() if code != "common")])
)
# Below this share of the probability a text's language is not told.
MIN_CONFIDENCE = 0.5
# Fewer letters than this are too few to tell a language by.
MIN_LETTERS = 6
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)
_KANA = re.compile(r"[\u3040-\u30ff]")
_HAN = re.compile(r"[\u4e00-\u9fff]")


@lru_cache(maxsize=1024)  # a passage is told once however many claims cite it
def detect(text: str) -> str:
    """The language of ``text`` as an ISO 639-1 code, or ``UNDETERMINED``."""
    letters = len(_LETTER.findall(text))
    if letters < MIN_LETTERS:
        # Han characters carry a word each: two of them say more than six Latin letters.
        if _KANA.search(text):
            return "ja"
        return "zh" if len(_HAN.findall(text)) >= 2 else UNDETERMINED
    language, confidence = _identifier().classify(text)
    return str(language) if confidence >= MIN_CONFIDENCE else UNDETERMINED


@cache
def _identifier():  # type: ignore[no-untyped-def]
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(list(DETECTED))
    return identifier


def reads(language: str, lists: tuple[str, ...]) -> bool:
    """Whether ``language`` has every word list of ``lists``: the rules that read by them
    read its texts (an undetermined text is read as English)."""
    code = ENGLISH if language == UNDETERMINED else language
    return all(lexicon.has(name, code) for name in lists)


def pair(claim: str, evidence: str) -> tuple[str, str]:
    """The languages of a claim and its evidence, each taking the other's where it cannot be
    told."""
    return (
        evidence if claim == UNDETERMINED else claim,
        claim if evidence == UNDETERMINED else evidence,
    )


@dataclass(frozen=True)
class Conventions:
    """How one language writes numbers and dates."""

    language: str
    decimal: str  # the decimal separator: "." or ","
    group: str  # the thousands separator: ",", ".", " ", "'"
    months: dict[str, int]  # every month name and abbreviation, casefolded -> 1..12
    weekdays: dict[str, int]  # every weekday name, casefolded -> 0 (Monday)..6
    day_first: bool  # numeric dates put the day first ("03/04/2024" is 3 April)


@cache
def conventions(language: str) -> Conventions:
    """The CLDR conventions of ``language``; English's for an undetermined text."""
    from babel import Locale, UnknownLocaleError, dates, numbers

    code = ENGLISH if language == UNDETERMINED else language
    try:
        Locale.parse(code)
    except (UnknownLocaleError, ValueError):
        code = ENGLISH
    group = numbers.get_group_symbol(code)
    months: dict[str, int] = {}
    weekdays: dict[str, int] = {}
    for width in ("wide", "abbreviated"):
        for context in ("format", "stand-alone"):
            for number, name in dates.get_month_names(width, context, locale=code).items():
                months[str(name).casefold().rstrip(".")] = int(number)
            for number, name in dates.get_day_names(width, context, locale=code).items():
                weekdays[str(name).casefold().rstrip(".")] = int(number)
    pattern = dates.get_date_format("short", locale=code).pattern.lower()
    return Conventions(
        language=code,
        decimal=numbers.get_decimal_symbol(code),
        # Narrow and no-break spaces are read as spaces: the normaliser makes them so.
        group=" " if group in {"\u202f", "\xa0", "\u2009"} else group,
        months=months,
        weekdays=weekdays,
        day_first=pattern.index("d") < pattern.index("m"),
    )
