"""Finding dates in normalised text: full dates, month and year, years, decades, centuries,
weekdays. Month and weekday names, and the words that cue a year or a month, come from the
``calendar`` word list; days written as words from ``number_words``."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache, partial
from typing import TYPE_CHECKING

from judge.reading import lexicon
from judge.reading.languages import CJK_LETTERS
from judge.reading.values.units import UnitWords, unit_words

if TYPE_CHECKING:
    from judge.reading.languages import Conventions

MONTHS = {
    word: int(entry.value)
    for entry in lexicon.entries("calendar")
    if entry.name == "month"
    for word in entry.words
}
# Monday first, as the list gives them.
WEEKDAYS = tuple(
    word for entry in lexicon.entries("calendar") if entry.name == "weekday" for word in entry.words
)

_MON = r"(?P<mon>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
# A month's full name: the longest spelling of each month in the list.
_FULL_MON = (
    r"(?P<mon>"
    + "|".join(max((w for w, m in MONTHS.items() if m == month), key=len) for month in range(1, 13))
    + r")"
)
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>1\d{3}|20\d{2}|21\d{2})"


# Days written as ordinal words, read only in "the first of May": "May first" is too often
# a month name before an adverb to be taken for a date.
def _day_words() -> dict[str, int]:
    ordinals = {
        word: int(entry.value)
        for entry in lexicon.entries("number_words")
        if entry.name == "ordinal" and int(entry.value) <= 31
        for word in entry.words
    }
    tens = {
        word: int(entry.value)
        for entry in lexicon.entries("number_words")
        if entry.name == "ten"
        for word in entry.words
    }
    days = {word: day for word, day in ordinals.items() if day <= 31}
    for ten, base in tens.items():
        for word, day in ordinals.items():
            if day < 10 and base + day <= 31:
                days[f"{ten}-{word}"] = base + day
    return days


DAY_WORDS = _day_words()
_DAY_WORD = r"(?P<dayw>" + "|".join(sorted(DAY_WORDS, key=len, reverse=True)) + r")"
_WD = r"(?:(?P<wd>" + "|".join(WEEKDAYS) + r"),?\s+)?"
_END = r"(?![\w%])"
# Words that introduce a year: "in 1998", "since '98".
_YEAR_CUE_WORDS = (
    r"\b(?:"
    + "|".join(
        re.escape(w)
        for w in sorted(lexicon.words("calendar", name="year_cue"), key=len, reverse=True)
    )
    + ")"
)
# Between the two days of a range: "19-28 April", "April 19 to 28", "April 19 through 28".
_TO = r"(?:\s*-\s*|\s+(?:to|through|until|till)\s+)"

# Decades in words, from the tens ("twenty" -> "twenties"), and the centuries that open them.
_DECADES = {
    word[:-1] + "ies": int(entry.value)
    for entry in lexicon.entries("number_words")
    if entry.name == "ten"
    for word in entry.words
}
_DECADE_WORDS = "|".join(sorted(_DECADES, key=len, reverse=True))
_CENTURIES = {"eighteen": 1800, "nineteen": 1900, "twenty": 2000}
_CENTURY_WORDS = "|".join(_CENTURIES)
_MONTH_CUES = "|".join(sorted(lexicon.words("calendar", name="month_cue"), key=len, reverse=True))
# Quarters and halves of a year, in words ("the third quarter of fiscal 2024") and in shorthand
# ("Q3 2024", "3Q24", "H1 2024", "1H24"), and fiscal years ("FY2022", "fiscal 2022").
_ORDINALS = {
    word: int(entry.value)
    for entry in lexicon.entries("number_words")
    if entry.name == "ordinal" and int(entry.value) <= 4
    for word in entry.words
}
_QUARTER_WORD = "|".join(sorted(_ORDINALS, key=len, reverse=True))
_HALF_WORD = "|".join(w for w, n in _ORDINALS.items() if n <= 2)
_FISCAL = lexicon.alternation(lexicon.words("calendar", name="fiscal_cue"))
# The year of a quarter or half: four digits, or two after "FY" or an apostrophe.
_PERIOD_YEAR = (
    rf"(?:(?P<pfiscal>{_FISCAL})\s?'?(?P<fyear>(?:19|20)\d{{2}}|\d{{2}})"
    r"|'(?P<short>\d{2})|(?P<pyear>(?:19|20)\d{2}))(?![\d%]|\.\d|,\d)"
)
_DECADE_PARTS = {
    word: entry.value
    for entry in lexicon.entries("calendar")
    if entry.name == "decade_part"
    for word in entry.words
}
_PART = "(?P<part>" + lexicon.alternation(_DECADE_PARTS) + ")"
_ERAS = {
    word: int(entry.value)
    for entry in lexicon.entries("calendar")
    if entry.name == "era"
    for word in entry.words
}
_ERA_FIRST = lexicon.alternation(lexicon.words("calendar", name="era_first_year"))
# Most specific first: a span taken by one pattern is not read again by a later one.
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.IGNORECASE))
    for kind, pattern in (
        ("iso", rf"(?<![\d.]){_YEAR}(?P<sep>[-/.])(?P<month>[01]?\d)(?P=sep)(?P<day>[0-3]?\d)"
                r"(?!\d|\.\d)"),
        ("numeric", rf"(?<![\d.])(?P<a>[0-3]?\d)[/.-](?P<b>[0-3]?\d)[/.-]{_YEAR}{_END}"),
        # News datelines give a weekday and a two-digit year: "Fri 15 Feb 19".
        ("dateline", rf"\b(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)[a-z]*\.?,?\s+{_DAY}\s+"
                     rf"{_MON}\s+(?P<short_year>\d{{2}})(?![\d:%.,])"),
        ("day_range", rf"\b{_DAY}{_TO}(?P<day2>[0-3]?\d)(?:st|nd|rd|th)?\s+(?:of\s+)?{_MON}"
                      rf"(?:,?\s+{_YEAR})?{_END}"),
        ("month_day_range", rf"\b{_MON}\s+{_DAY}{_TO}(?P<day2>[0-3]?\d)(?:st|nd|rd|th)?"
                            rf"(?:,?\s+{_YEAR})?{_END}"),
        # Tables and logs join day, month and year with dashes or slashes: "1-May-2019".
        ("day_month", rf"\b(?P<day>[0-3]?\d)[-/]{_MON}[-/]{_YEAR}{_END}"),
        ("day_word_month", rf"\b{_WD}the\s+{_DAY_WORD}\s+of\s+{_MON}(?:,?\s+{_YEAR})?{_END}"),
        ("day_month", rf"\b{_WD}(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MON}(?:,?\s+{_YEAR})?{_END}"),
        ("month_day", rf"\b{_WD}{_MON}\s+{_DAY}(?![\d:])(?:,?\s+{_YEAR})?{_END}"),
        # "Q3 2024", "Q3 FY24", "Q3'24", "Q3" alone; "3Q24", "3Q 2024"; "H1 2024", "1H24".
        ("quarter", rf"\bQ(?P<quarter>[1-4])(?:[\s-]?{_PERIOD_YEAR}|(?![\w-]))"),
        ("quarter", rf"\b(?P<quarter>[1-4])Q(?:(?P<glued>\d{{2}})(?![\d%])|[\s-]?{_PERIOD_YEAR})"),
        ("half", rf"\bH(?P<half>[12])(?:[\s-]?{_PERIOD_YEAR}|(?![\w-]))"),
        ("half", rf"\b(?P<half>[12])H(?:(?P<glued>\d{{2}})(?![\d%])|[\s-]?{_PERIOD_YEAR})"),
        # "the third quarter of fiscal 2024", "third-quarter 2024", "fiscal third quarter",
        # "the third quarter" (its year left to the context); "the first half of 2023".
        ("quarter", rf"\b(?:(?P<fiscal_before>{_FISCAL})\s+)?(?P<quarter_word>{_QUARTER_WORD})"
                    rf"[\s-]+quarter\b(?:,?\s+(?:of\s+)?{_PERIOD_YEAR})?"),
        ("half", rf"\b(?:(?P<fiscal_before>{_FISCAL})\s+)?(?P<half_word>{_HALF_WORD})[\s-]+half"
                 rf"(?:\s+of|-)\s*{_PERIOD_YEAR}"),
        # "Heisei 31", "Reiwa 2", "Heisei gannen": a Japanese era year.
        ("era", rf"\b(?P<era>{lexicon.alternation(_ERAS)})\s+(?P<era_year>\d{{1,2}}|{_ERA_FIRST})"
                r"(?![\d%]|\.\d)"),
        ("month_year", rf"\b{_MON},?\s+(?:of\s+)?{_YEAR}{_END}"),
        # A fiscal year is read as the year it is named by: "FY2021", "FY 21", "FY'21".
        ("fiscal_year", r"\bFY\s?'?(?P<fy>(?:19|20)\d{2}|\d{2})(?![\d%]|\.\d|,\d)"),
        ("fiscal_year", rf"\b(?:{_FISCAL})[\s-]+(?P<fy>(?:19|20)\d{{2}})(?![\d%]|\.\d|,\d)"),
        # "the early 1920s", "mid-1950s", "the late '30s", "the early 20th century".
        ("decade_part", rf"\b(?:the\s+)?{_PART}[\s-]+(?:(?P<decade>1\d{{2}}0|20\d0)(?:\s?'s|s)"
                   r"|'?(?P<decade_s>[1-9]0)'?s)\b"),
        ("century_part", rf"\b(?:the\s+)?{_PART}[\s-]+(?:(?P<century>[1-9]|1\d|2[01])"
                         rf"(?:st|nd|rd|th)|{_DAY_WORD})[\s-]+century\b"
                         r"(?!\s*(?:BCE?\b|B\.C\.))"),
        # "The 19th century", "nineteenth-century"; not "its second century", nor one BC.
        ("century", rf"\b(?:(?P<century>[1-9]|1\d|2[01])(?:st|nd|rd|th)|{_DAY_WORD})[\s-]+"
                    r"century\b(?!\s*(?:BCE?\b|B\.C\.))"),
        # "the 1940s", "1940's", and "1940 's" as tokenised text writes it.
        ("decade", r"\b(?:the\s+)?(?P<decade>1\d{2}0|20\d0)(?:\s?'s|s)\b"),
        # "the '40s", "mid-40s", and a decade's last two digits before "'s" ("the 80's and
        # 90's") or after another decade ("the 1980s and 90s").
        ("short_decade", r"(?:'|\bthe\s+|\bmid-?|\blate\s+|\bearly\s+)(?P<decade>[1-9]0)'?s\b"
                         r"|\b(?P<decade_s>[1-9]0)\s?'s\b"
                         r"|(?:(?<=\d0s\sand\s)|(?<=\d0s\sor\s)|(?<=\d0s\sto\s))"
                         r"(?P<decade_after>[1-9]0)s\b"),
        # A decade in words: "the nineties", "the nineteen-nineties", "the twenty-twenties".
        ("spelled_decade", rf"\b(?:the\s+)?(?:(?P<century_word>{_CENTURY_WORDS})[\s-]+)?"
                           rf"(?P<decade_word>{_DECADE_WORDS})\b"),
        # A year cut to two digits after an apostrophe: "in '98", "May '21". Read only after a
        # word that introduces a year or a month, and before punctuation or a lower-case word,
        # since an opening quote can stand before two digits too ("'12 Angry Men'").
        ("short_year", rf"(?:{_YEAR_CUE_WORDS}|{_MON})\s+'(?P<short_year>\d{{2}})"
                       r"(?=\s*(?:[,.;:)!?]|$)|\s+(?-i:[a-z]))"),
        ("year_range", rf"(?<![\d.,$€£]){_YEAR}\s*[-/]\s*(?P<year2>\d{{4}}|\d{{2}})"
                       r"(?![\d%]|\.\d|,\d)"),
        # Not a year: glued to letters after a hyphen ("2019-nCoV" names a virus).
        ("year", rf"(?<![\d.,$€£#-]){_YEAR}(?![\d%]|\.\d|,\d|-[A-Za-z]|"
                 r"\s?(?:%|per\s?cent|million|billion|thousand|mg|kg|km|ml|people|patients|"
                 r"participants|cases)\b)"),
        ("weekday", r"\b(?P<wd>" + "|".join(WEEKDAYS) + r")s?\b"),
        # "TGIF" ("thank God it's Friday") names the day in chat and mail.
        ("tgif", r"\bTGIF\b"),
        ("month", rf"\b(?:{_MONTH_CUES})[\s-]+{_FULL_MON}\b"),
    )
)  # fmt: skip
_YEAR_CUE = re.compile(rf"{_YEAR_CUE_WORDS}\s+$", re.IGNORECASE)
_CUE_REACH = 24
# A century someone or something has lived through is not a calendar century.
_OWNER = re.compile(r"(?:\b(?:its|their|his|her|our|my|your)|'s)\s+$", re.IGNORECASE)
ANY_YEAR = re.compile(r"(?<!\d)(1\d{3}|20\d{2}|21\d{2})(?!\d)")


@dataclass(frozen=True)
class DateMention:
    """A date as precise as the text gives it; absent parts are None."""

    text: str
    start: int
    end: int
    year: int | None = None
    month: int | None = None
    day: int | None = None
    weekday: int | None = None  # 0 = Monday
    decade: int | None = None  # 1940 for "the 1940s"; 40 for "the '40s" (century unknown)
    century: int | None = None  # 19 for "the 19th century" (the 1800s)
    checkable: bool = True  # False where day and month order is unknown ("03/04/2024")
    quarter: int | None = None  # 3 for "Q3 2024", "the third quarter"
    half: int | None = None  # 1 for "H1 2024", "the first half of 2024"
    fiscal: bool = False  # a company's own year ("FY2022", "the fourth quarter of fiscal 2023")
    part: str | None = None  # "early", "mid" or "late" of a decade or century
    # The first year of a period named by two consecutive years ("2022-23": 2022), on both of
    # its years.
    season: int | None = None


@dataclass(frozen=True)
class _Calendar:
    """How one language writes dates: its month and weekday names, its date patterns, and
    whether a numeric date puts the day first (None: either order, as in English text)."""

    months: dict[str, int]
    weekdays: dict[str, int]
    day_first: bool | None
    patterns: tuple[tuple[str, re.Pattern[str]], ...]
    # The language's unit words, where an amount can look like a year ("1500 millones",
    # "€ 1500"); English's year pattern names its own.
    units: UnitWords | None = None


_ENGLISH = _Calendar(
    months=MONTHS,
    weekdays={word: day for day, word in enumerate(WEEKDAYS)},
    day_first=None,
    patterns=_PATTERNS,
)
# A year, a month and a day in digits with the characters Chinese and Japanese write after
# each ("2019年5月3日", "5月3日"); the locale reading has already turned numerals into digits.
_CJK_DATE = (
    rf"{_YEAR}\s?年\s?(?:(?P<month>1[0-2]|0?[1-9])\s?月(?:\s?(?P<day>[0-3]?\d)\s?[日号號])?)?"
    r"|(?<!\d)(?P<month_only>1[0-2]|0?[1-9])\s?月\s?(?P<day_only>[0-3]?\d)\s?[日号號]"
)
_CJK_NAME = re.compile(f"[{CJK_LETTERS}]")
# The patterns every language shares: ISO dates, numeric dates, year ranges and years.
_SHARED = ("iso", "numeric", "year_range", "year", "decade")


@cache
def _calendar(language: str) -> _Calendar:
    """The calendar of a language other than English, from its CLDR names (babel)."""
    from judge.reading.languages import conventions

    local = conventions(language)
    months = {name: month for name, month in local.months.items() if len(name) >= 3}
    mon = r"(?P<mon>" + "|".join(re.escape(m) for m in sorted(months, key=len, reverse=True)) + r")"
    # Weekdays by their full names only: "mar." and "Di" are other words as often; a name in
    # characters ("星期一", "周一", "月曜日") is never another word.
    weekdays = {
        name: day
        for name, day in local.weekdays.items()
        if len(name) >= 5 or (len(name) >= 2 and _CJK_NAME.search(name))
    }
    wd = "|".join(re.escape(w) for w in sorted(weekdays, key=len, reverse=True))
    # "3. Mai 2019", "3 mai 2019", "1er mai", "3 de mayo de 2019", "3 мая 2019 г.", "3º de maio".
    day = r"(?P<day>[0-3]?\d)(?:\.|er|º|°|ª)?"
    year = rf"(?:,?\s+(?:de\s+|del\s+)?{_YEAR}(?:\s?г\.?|\s?года)?)?"
    to = r"\s*(?:-|–|au|bis|al|a|até|tot|по|до)\s*"
    local_patterns = [
        # "du 4 au 7 juillet 2025", "vom 4. bis 7. Juli", "del 4 al 7 de julio".
        (
            "day_range",
            rf"(?<![\w.]){day}{to}(?P<day2>[0-3]?\d)\.?\s*(?:de\s+)?{mon}\.?{year}(?!\w)",
        ),
        ("day_month", rf"(?<![\w.]){day}\s*(?:de\s+)?{mon}\.?{year}(?!\w)"),
        ("month_day", rf"(?<!\w){mon}\.?\s+{day}(?:,?\s+{_YEAR})?(?![\w%])"),
        ("month_year", rf"(?<!\w){mon}\.?\s+(?:de\s+|del\s+)?{_YEAR}(?!\w)"),
        # "dienstags", "maandags": on that weekday, every week.
        (
            "weekday",
            rf"(?<!\w)(?P<wd>{wd})s?(?!\w)" if language not in {"zh", "ja"} else rf"(?P<wd>{wd})",
        ),
    ]
    if language in {"zh", "ja"}:
        local_patterns.insert(0, ("cjk", _CJK_DATE))
    shared = [(kind, pattern) for kind, pattern in _PATTERNS if kind in _SHARED]
    patterns = [(kind, re.compile(pattern, re.IGNORECASE)) for kind, pattern in local_patterns]
    return _Calendar(
        months=months,
        weekdays=weekdays,
        day_first=local.day_first,
        # ISO and numeric dates first, as in English, then the language's own.
        patterns=(*shared[:2], *patterns, *shared[2:]),
        units=unit_words(language),
    )


def find_dates(text: str, conventions: Conventions | None = None) -> list[DateMention]:
    """Every date in ``text`` (already normalised), most specific reading first, no overlaps,
    read with the calendar of the text's language (English's when no conventions are given)."""
    language = "en" if conventions is None else conventions.language
    calendar = _ENGLISH if language == "en" else _calendar(language)
    # Taken characters, not a list of spans: a passage dense with dates stays linear.
    taken = bytearray(len(text))
    found: list[DateMention] = []
    for kind, pattern in calendar.patterns:
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(taken[start:end]):
                continue
            mentions = list(_read(kind, match, text, calendar))
            if mentions:
                taken[start:end] = b"\x01" * (end - start)
                found.extend(mentions)
    return sorted(found, key=lambda m: m.start)


def _read(
    kind: str, match: re.Match[str], text: str, calendar: _Calendar = _ENGLISH
) -> Iterator[DateMention]:
    groups = match.groupdict()
    span = partial(DateMention, match.group(0).rstrip("."), match.start(), match.end())
    year = int(groups["year"]) if groups.get("year") else None
    month = calendar.months[groups["mon"].casefold().rstrip(".")] if groups.get("mon") else None
    weekday = calendar.weekdays[groups["wd"].casefold()] if groups.get("wd") else None
    if kind == "cjk":
        yield from _cjk(span, groups, year)
    elif kind == "iso":
        month, day = int(groups["month"]), int(groups["day"])
        if _valid(year, month, day):
            yield span(year=year, month=month, day=day)
    elif kind == "numeric":
        yield from _numeric(span, int(groups["a"]), int(groups["b"]), year, calendar.day_first)
    elif kind in {"day_range", "month_day_range"}:
        for day in (int(groups["day"]), int(groups["day2"])):
            if _named_day(month, day):
                yield span(year=year, month=month, day=day)
    elif kind in {"day_month", "month_day", "day_word_month"}:
        day = DAY_WORDS[groups["dayw"].casefold()] if groups.get("dayw") else int(groups["day"])
        if _named_day(month, day) and not _is_may_verb(groups, year):
            yield span(year=year, month=month, day=day, weekday=weekday)
    elif kind == "short_year":
        short = int(groups["short_year"])
        start = match.start("short_year") - 1  # from the apostrophe, or the month before it
        start = match.start("mon") if groups.get("mon") else start
        yield DateMention(
            text[start : match.end()],
            start,
            match.end(),
            year=short + (2000 if short < 50 else 1900),
            month=month,
        )
    elif kind == "dateline":
        day, short = int(groups["day"]), int(groups["short_year"])
        year = short + (2000 if short < 50 else 1900)
        if _valid(year, month, day):
            yield span(year=year, month=month, day=day)
    elif kind == "month_year":
        yield span(year=year, month=month)
    elif kind == "fiscal_year":
        yield span(year=_full_year(groups["fy"]), fiscal=True)
    elif kind in {"quarter", "half"}:
        yield _quarter_or_half(kind, groups, span)
    elif kind == "era":
        first = _ERAS[groups["era"].casefold()]
        number = groups["era_year"]
        yield span(year=first + (int(number) - 1 if number.isdigit() else 0))
    elif kind in {"decade_part", "century_part"}:
        part = _DECADE_PARTS[groups["part"].casefold()]
        if kind == "decade_part":
            yield span(decade=int(str(groups.get("decade") or groups.get("decade_s"))), part=part)
        else:
            digits = groups["century"]
            number = int(digits) if digits else DAY_WORDS[str(groups["dayw"]).casefold()]
            if number <= 21:
                yield span(century=number, part=part)
    elif kind == "century":
        digits = groups["century"]
        number = int(digits) if digits else DAY_WORDS[str(groups["dayw"]).casefold()]
        if number <= 21 and not _OWNER.search(text[max(0, match.start() - 12) : match.start()]):
            yield span(century=number)
    elif kind == "spelled_decade":
        decade = _DECADES[groups["decade_word"].casefold()]
        if groups.get("century_word"):
            decade += _CENTURIES[groups["century_word"].casefold()]
        elif not match.group(0).casefold().startswith("the"):
            return  # "twenties" alone is an age as often as a decade ("in her twenties")
        yield span(decade=decade)
    elif kind in {"decade", "short_decade"}:
        digits = groups.get("decade") or groups.get("decade_s") or groups.get("decade_after")
        yield span(decade=int(str(digits)))
    elif kind == "year_range":
        yield from _year_range(span, year, groups["year2"])
    elif kind == "year":
        # The cue is read just before the year, not over all the text before it: a long
        # text dense with numbers stays linear.
        cue = _YEAR_CUE.search(text, max(0, match.start() - _CUE_REACH), match.start())
        if calendar.units is not None and _is_amount(calendar.units, text, match):
            return
        if year is not None and (year >= 1500 or cue):
            yield span(year=year)
    elif kind == "weekday":
        yield span(weekday=weekday)
    elif kind == "tgif":
        yield span(weekday=calendar.weekdays["friday"])
    elif kind == "month" and groups["mon"] != "may":
        # "this may involve" is the verb, written in lower case: not the month
        yield span(month=month)


def _full_year(written: str) -> int:
    """A year written with two digits or four ("22" is 2022, "98" 1998)."""
    named = int(written)
    return named if named >= 100 else named + (2000 if named < 50 else 1900)


def _quarter_or_half(
    kind: str, groups: dict[str, str | None], span: Callable[..., DateMention]
) -> DateMention:
    """A quarter or half of a year, in shorthand ("Q3 2024", "3Q24", "H1") or in words ("the
    third quarter of fiscal 2024"); its year may be left to the context."""
    written = groups.get(kind)
    word = groups.get(f"{kind}_word")
    number = int(written) if written else _ORDINALS[str(word).casefold()]
    year_text = (
        groups.get("pyear") or groups.get("fyear") or groups.get("short") or groups.get("glued")
    )
    fiscal = bool(groups.get("pfiscal") or groups.get("fiscal_before"))
    year = _full_year(year_text) if year_text else None
    if kind == "quarter":
        return span(year=year, quarter=number, fiscal=fiscal)
    return span(year=year, half=number, fiscal=fiscal)


def _cjk(
    span: Callable[..., DateMention], groups: dict[str, str | None], year: int | None
) -> Iterator[DateMention]:
    if (month_only := groups.get("month_only")) is not None:
        only = int(month_only), int(str(groups["day_only"]))
        if _valid(None, *only):
            yield span(month=only[0], day=only[1])
        return
    month_text, day_text = groups.get("month"), groups.get("day")
    month = int(month_text) if month_text else None
    if day_text is None:
        yield span(year=year, month=month)
    elif _valid(year, month, int(day_text)):
        yield span(year=year, month=month, day=int(day_text))


def _is_amount(words: UnitWords, text: str, match: re.Match[str]) -> bool:
    """Whether the digits of a year have a currency, scale or unit around them."""
    after = text[match.end() : match.end() + 30]
    before = text[max(0, match.start() - 8) : match.start()]
    return bool(
        words.currency_before.search(before)
        or words.scale_word.match(after)
        or words.currency_after.match(after)
        or words.percent_after.match(after)
        or words.measure_after.match(after)
    )


def _numeric(
    span: Callable[..., DateMention], a: int, b: int, year: int | None, day_first: bool | None
) -> Iterator[DateMention]:
    """A numeric date: in the order the language writes it, or either order in English text
    ("03/04/2024"), where only one valid reading makes it checkable."""
    orders = ((a, b), (b, a)) if day_first is None else ((b, a),) if day_first else ((a, b),)
    readings = {(m, d) for m, d in orders if _valid(year, m, d)}
    for month, day in sorted(readings):
        yield span(year=year, month=month, day=day, checkable=len(readings) == 1)


def _year_range(
    span: Callable[..., DateMention], year: int | None, raw_end: str
) -> Iterator[DateMention]:
    if year is None:
        return
    end = int(raw_end) if len(raw_end) == 4 else year // 100 * 100 + int(raw_end)
    if not year < end <= year + 100:
        return  # "2019-20" is a range, "1990-12" is not one
    season = year if end == year + 1 else None
    yield span(year=year, season=season)
    yield span(year=end, season=season)


def _named_day(month: int | None, day: int) -> bool:
    """A day written with its month's name is a date even when the calendar has no such day:
    "31 November" is a date no evidence bears out, not a number to ignore."""
    return month is not None and 1 <= day <= 31


def _valid(year: int | None, month: int | None, day: int) -> bool:
    if month is None or not 1 <= month <= 12:
        return False
    try:
        dt.date(year or 2000, month, day)
    except ValueError:
        return False
    return True


def _is_may_verb(groups: dict[str, str | None], year: int | None) -> bool:
    # "they may 3 times" is not a date; "May 3" with a capital or a year is.
    return (groups.get("mon") or "") == "may" and year is None


def evidence_years(text: str, mentions: list[DateMention]) -> set[int]:
    """Every year the evidence names: in dates, ranges, or as any four-digit number."""
    years = {int(y) for y in ANY_YEAR.findall(text)}
    years.update(m.year for m in mentions if m.year is not None)
    return years


# A year stated relative to another: "a year later", "two years earlier", "the following year".
_RELATIVE_YEAR = re.compile(
    r"\b(?:(?P<count>an?|one|two|three|four|five|six|seven|eight|nine|ten|\d{1,2})\s+years?\s+"
    r"(?P<dir>later|after|afterwards|on|earlier|before|ago|previously)"
    r"|the\s+(?P<rel>following|next|subsequent|previous|preceding|prior)\s+year)\b",
    re.IGNORECASE,
)
_COUNT_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
                "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}  # fmt: skip
# Words that say which way a relative year counts from the date named before it. "after" and
# "before" do not: "closed in 2018, three years after it opened" counts back from 2018.
_FORWARD = frozenset({"later", "afterwards", "on", "following", "next", "subsequent"})
_BACKWARD = frozenset({"earlier", "previously", "previous", "preceding", "prior"})


@dataclass(frozen=True)
class ImpliedDate:
    """A date a text gives only relative to one it names before: "founded in March 2015 and
    opened a year later" gives March 2016. ``sure`` when the words say which way it counts."""

    date: DateMention
    base: DateMention
    years: int  # added to the base's year
    phrase: str
    sure: bool

    def derivation(self) -> str:
        sign = "+" if self.years > 0 else "−"
        unit = "year" if abs(self.years) == 1 else "years"
        return (
            f"{self.date.text} = {self.base.text} {sign} {abs(self.years)} {unit} ({self.phrase!r})"
        )


def implied_dates(text: str, mentions: list[DateMention]) -> list[ImpliedDate]:
    """The dates ``text`` states only relative to a date it names before, as precise as that
    date (its month and day kept). Where the words do not say which way to count, both ways
    are given, not ``sure``: a claim that names them computes them, and a person should
    check."""
    implied: list[ImpliedDate] = []
    for match in _RELATIVE_YEAR.finditer(text):
        named = [m for m in mentions if m.year is not None and m.end <= match.start()]
        if not named:
            continue
        base = named[-1]
        count = match.group("count")
        step = 1 if count is None else _COUNT_WORDS.get(count.casefold()) or int(count)
        word = (match.group("dir") or match.group("rel")).casefold()
        if word in _FORWARD or word in _BACKWARD:
            steps, sure = [step if word in _FORWARD else -step], True
        else:
            steps, sure = [-step, step], False
        for years in steps:
            year = base.year + years if base.year is not None else None
            date = DateMention(
                _written_date(year, base.month, base.day),
                match.start(),
                match.end(),
                year=year,
                month=base.month,
                day=base.day if _valid(year, base.month, base.day or 1) else None,
            )
            implied.append(ImpliedDate(date, base, years, match.group(0), sure))
    return implied


_MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August",
                "September", "October", "November", "December")  # fmt: skip


def _written_date(year: int | None, month: int | None, day: int | None) -> str:
    parts = [str(day)] if day is not None and month is not None else []
    if month is not None:
        parts.append(_MONTH_NAMES[month - 1])
    if year is not None:
        parts.append(str(year))
    return " ".join(parts)


def implied_years(text: str, mentions: list[DateMention]) -> set[int]:
    """The years ``text`` states only relative to a year it names before (both ways where the
    words do not say which): 2020 for "in 2019 ... a year later"."""
    return {i.date.year for i in implied_dates(text, mentions) if i.date.year is not None}
