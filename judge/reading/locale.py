"""The text the checks read, in the writer's language: numbers written in words as digits.

Two texts in different languages compare by value only once their numbers are written one
way. Here, and only here, a normalised text is rewritten before the readers see it:

* in Chinese and Japanese, numerals in characters where they state a value — before a counter
  or a unit ("三十天", "两年", "十月三十日", "二〇二五年"), after "第", or as a multiple of a
  digit ("5万3千人", "1.2万", "42億") — become digits ("30天", "2年", "10月30日", "2025年",
  "53000人", "12000", "4200000000"); "百分之五" becomes "5%";
* in the languages text2num reads (French, Spanish, Portuguese, German, Italian, Dutch),
  spelled numbers become digits ("quatorze jours" is "14 jours", "am dritten Mai" is
  "am 3. Mai"), except a scale word after digits ("3,3 millones"), which the number reader
  reads as a scale.

English text is left as it is: its own reader reads English number words.
"""

from __future__ import annotations

import re
from decimal import Decimal
from functools import cache, partial

from judge.reading import lexicon

__all__ = ["SPELLED_BY_TEXT2NUM", "cjk_numerals", "reading_text"]

# Spellings matched as written: a space in one is that space.
_exact = partial(lexicon.alternation, any_space=False)


# The languages whose spelled numbers text2num turns into digits.
SPELLED_BY_TEXT2NUM = frozenset({"fr", "es", "pt", "de", "it", "nl"})
CJK = frozenset({"zh", "ja"})

_DIGITS = {"〇": 0, "零": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5,
           "六": 6, "七": 7, "八": 8, "九": 9}  # fmt: skip
_SMALL_UNITS = {"十": 10, "拾": 10, "百": 100, "千": 1000}
_LARGE_UNITS = {"万": 10**4, "萬": 10**4, "亿": 10**8, "億": 10**8, "兆": 10**12}
_NUMERAL = "".join([*_DIGITS, *_SMALL_UNITS, *_LARGE_UNITS])


@cache
def counters() -> str:
    """The characters after a numeral that make it state a value (Chinese and Japanese
    counters, units and calendar characters), as one character class's contents."""
    found = {ch for language in CJK for word in lexicon.words("counters", language) for ch in word}
    return "".join(sorted(found))


def _cjk_run() -> re.Pattern[str]:
    return re.compile(
        rf"(?P<ordinal>第)?(?P<run>[{_NUMERAL}]+)(?=(?P<after>[{counters()}]|[%％]))?"
    )


# Digits with units of ten thousand and up, with or without smaller parts after them:
# "5万3千", "1.2万", "42億", "2億5000万", "4万9800", "3,000万"; "3千" only before a counter.
_DIGIT_RUN = r"\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?"
_DIGITS_WITH_UNITS = re.compile(
    rf"(?:(?:{_DIGIT_RUN})[千百十]?)*?(?:{_DIGIT_RUN})[万萬亿億兆](?:(?:{_DIGIT_RUN})[万萬亿億兆千百十]?)*"
)
_THOUSANDS = re.compile(r"(?P<thousands>\d+)千")
_PART = re.compile(rf"(?P<digits>{_DIGIT_RUN})(?P<unit>[万萬亿億兆千百十])?")
_PERCENT_OF = re.compile(rf"百分之(?P<run>[{_NUMERAL}\d.]+)")
# Digits a writer fills in as full-width or with an ideographic space are read as digits.
_CJK_SPACE = "\u3000"


def reading_text(text: str, language: str) -> str:
    """``text`` (already normalised) with its spelled numbers as digits, for ``language``."""
    if language in CJK:
        return cjk_numerals(text, language)
    if language in SPELLED_BY_TEXT2NUM:
        return _spelled_as_digits(text, language)
    if lexicon.has("number_words", language) and language != "en":
        return _lemmatised_numbers(text, language)
    return text


def cjk_numerals(text: str, language: str = "zh") -> str:
    """Chinese and Japanese numerals that state a value, as digits."""
    text = text.replace(_CJK_SPACE, " ")
    words = _numeral_words(language)
    if words is not None:
        kept: list[str] = []

        def keep(match: re.Match[str]) -> str:
            kept.append(match.group(0))
            return f"\ue000{len(kept) - 1}\ue001"

        text = words.sub(keep, text)
    text = _PERCENT_OF.sub(lambda m: f"{_value(m.group('run'))}%", text)
    text = _DIGITS_WITH_UNITS.sub(_digits_with_units, text)
    text = re.sub(rf"(?P<thousands>\d+)千(?=[{counters()}])", _thousands, text)
    text = _cjk_run().sub(_run_as_digits, text)
    if words is not None:
        text = re.sub(r"\ue000(\d+)\ue001", lambda m: kept[int(m.group(1))], text)
    return text


@cache
def _numeral_words(language: str) -> re.Pattern[str] | None:
    if not lexicon.has("numeral_words", language):
        return None
    words = sorted(lexicon.words("numeral_words", language), key=len, reverse=True)
    return re.compile("|".join(re.escape(word) for word in words))


def _run_as_digits(match: re.Match[str]) -> str:
    run = match.group("run")
    states_value = match.group("ordinal") or match.group("after") is not None
    # A numeral that no counter follows ("一般" is "general") states no value; nor does a
    # large unit with no numeral before it, which follows digits ("5万").
    if not states_value or run[0] in _LARGE_UNITS:
        return match.group(0)
    value = _value(run)
    if value is None:
        return match.group(0)
    return f"{match.group('ordinal') or ''}{value}"


def _value(run: str) -> str | None:
    """The value of a run of numerals as digits: positional ("二〇二五" is 2025) when it holds
    no unit, else by units ("三十" is 30, "五万三千" is 53000)."""
    if all(ch in _DIGITS or ch.isdigit() or ch == "." for ch in run):
        return "".join(str(_DIGITS[ch]) if ch in _DIGITS else ch for ch in run)
    total, section, digit = 0, 0, 0
    for ch in run:
        if ch in _DIGITS:
            digit = _DIGITS[ch]
        elif ch in _SMALL_UNITS:
            section += (digit or 1) * _SMALL_UNITS[ch]
            digit = 0
        elif ch in _LARGE_UNITS:
            total += (section + digit) * _LARGE_UNITS[ch]
            section, digit = 0, 0
        else:
            return None
    return str(total + section + digit)


def _digits_with_units(match: re.Match[str]) -> str:
    """ "2億5000万" is 250000000: each part times its unit, a large unit taking the parts
    since the one before it ("5万3千" is 53000)."""
    total, section = Decimal(0), Decimal(0)
    for part in _PART.finditer(match.group(0)):
        value = Decimal(part.group("digits").replace(",", ""))
        unit = part.group("unit")
        if unit in _LARGE_UNITS:
            total += (section + value) * _LARGE_UNITS[unit]
            section = Decimal(0)
        else:
            section += value * _SMALL_UNITS.get(unit or "", 1)
    return format((total + section).normalize(), "f")


def _thousands(match: re.Match[str]) -> str:
    return str(int(match.group("thousands")) * 1000)


def _spelled_as_digits(text: str, language: str) -> str:
    """Spelled numbers as digits (text2num); scale and percent words kept as written."""
    from text_to_num import alpha2digit

    kept: list[str] = []

    def keep(match: re.Match[str]) -> str:
        kept.append(match.group(0))
        return f"\ue000{len(kept) - 1}\ue001"

    unit_words = _unit_words(language)
    masked = unit_words.sub(keep, text) if unit_words is not None else text
    # From two up: "un", "une", "ein" are articles as often as numbers.
    converted = alpha2digit(masked, language, threshold=2)
    return re.sub(r"\ue000(\d+)\ue001", lambda m: kept[int(m.group(1))], converted)


@cache
def _unit_words(language: str) -> re.Pattern[str] | None:
    """What text2num must not read as a number of its own: a scale word of ``language`` after
    digits ("3,3 millones", "2 Mio."), which the number reader reads as the number's scale,
    and the percent words ("pour cent" holds "cent", a hundred)."""
    scales = _exact(lexicon.words("scales", language)) if lexicon.has("scales", language) else ""
    percent = _exact(lexicon.words("percent", language)) if lexicon.has("percent", language) else ""
    parts = ([rf"\d[\d.,]*\s?(?:{scales})(?!\w)"] if scales else []) + (
        [rf"(?<!\w)(?:{percent})(?!\w)"] if percent else []
    )
    return re.compile("|".join(parts), re.IGNORECASE) if parts else None


def _list(name: str, language: str) -> frozenset[str]:
    return lexicon.words(name, language) if lexicon.has(name, language) else frozenset()


# --- numbers in words of the languages text2num does not read --------------------------------

_CYRILLIC_OR_LATIN_WORD = re.compile(r"[^\W\d_]+")
_AFTER_DIGITS = re.compile(r"\d\s?\Z")


@cache
def _number_lemmas(language: str) -> dict[str, tuple[str, int]]:
    """Each number word of ``language`` (lemma or oblique form) -> (its group, its value)."""
    return {
        word: (entry.name, int(entry.value))
        for entry in lexicon.entries("number_words", language)
        for word in entry.words
    }


def _lemmatised_numbers(text: str, language: str) -> str:
    """Spelled cardinals as digits, by each word's lemma (simplemma) and the language's list:
    "двадцати пяти дней" is "25 дней". Words of a run are joined by single spaces only."""
    import simplemma

    words = _number_lemmas(language)
    pieces: list[str] = []
    cursor = 0
    run: list[tuple[str, int]] = []
    run_start = run_end = 0

    def flush() -> None:
        nonlocal cursor
        # "один" alone is as often "one of", "a" or "alone" as a count: left as written.
        alone = len(run) == 1 and run[0] == ("unit", 1)
        if (
            run
            and not alone
            and (run[-1][0] != "ordinal" or _before_month(text, run_end, language))
        ):
            pieces.append(text[cursor:run_start])
            pieces.append(str(_run_value(run)))
            cursor = run_end
        run.clear()

    for match in _CYRILLIC_OR_LATIN_WORD.finditer(text):
        lowered = match.group().casefold()
        found = words.get(lowered) or words.get(simplemma.lemmatize(lowered, lang=language))
        joined = run and text[run_end : match.start()] == " "
        if (
            found is not None
            and not run
            and found[0] == "thousand"
            and _AFTER_DIGITS.search(text, 0, match.start())
        ):
            found = None  # "36 тыс.": the number reader reads it as a scale
        if found is None or (run and not joined):
            flush()
        if found is not None:
            if not run:
                run_start = match.start()
            run.append(found)
            run_end = match.end()
    flush()
    pieces.append(text[cursor:])
    return "".join(pieces)


def _before_month(text: str, end: int, language: str) -> bool:
    from judge.reading.languages import conventions

    following = _CYRILLIC_OR_LATIN_WORD.match(text, end + 1) if text[end : end + 1] == " " else None
    return following is not None and following.group().casefold() in conventions(language).months


def _run_value(run: list[tuple[str, int]]) -> int:
    """The value of a run of number words: thousands multiply what came before them."""
    total, section = 0, 0
    for group, value in run:
        if group == "thousand":
            total += (section or 1) * value
            section = 0
        else:
            section += value
    return total + section
