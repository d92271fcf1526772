"""The date check: every date in the claim must be in the evidence, at the claim's precision.

The same date written differently passes ("3 March 2024" = "2024-03-03"). A claim may be less
precise than the evidence ("March 2024" for 3 March 2024) but not more precise. A date whose day
and month order is ambiguous ("03/04/2024") passes when the evidence holds either reading.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from judge.pipeline.checks.outcome import conflicting, located, missing, passed
from judge.reading import Reading, read
from judge.reading.cited import Cited
from judge.reading.restatement import Grain, restatements, wanted_forms
from judge.reading.values.dates import DateMention, ImpliedDate, evidence_years, implied_dates
from judge.reading.values.quantities import Quantity
from judge.schemas import CheckOutcome, CheckStatus, Finding, Label


class DateCheck:
    """Fails a claim naming a date, month, year, decade, century or weekday the evidence does
    not."""

    name: str = "dates"
    lexicon: tuple[str, ...] = ()  # digits, codes and characters: every language

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None:
        return self.check_passages(claim, [("", evidence)])

    def check_passages(
        self, claim: str, passages: Sequence[tuple[str, str]]
    ) -> CheckOutcome | None:
        dates = _stated_dates(list(read(claim).owned.dates))
        if not dates:
            return None
        cited = Cited(passages)
        said, source = read(claim), cited.reading
        context = source.view(_Evidence.of)
        unheld: list[list[DateMention]] = []
        derivations: list[str] = []
        for readings in dates:
            if any(context.holds(m) or _a_count(m, source) for m in readings):
                continue
            computed = next(
                (i for m in readings for i in context.implied_dates if i.sure and _is(m, i.date)),
                None,
            )
            if computed is not None:
                derivations.append(computed.derivation())
            else:
                unheld.append(readings)
        if not unheld:
            return passed(self.name, "Every date of the claim was", derivations)
        derived = [r[0].text for r in unheld if any(m.year in context.implied for m in r)]
        rest = [r for r in unheld if r[0].text not in derived]
        sentence = _restating_sentence(said, source)
        rivals = [
            (readings[0], other)
            for readings in rest
            if (other := _rival(readings[0], sentence)) is not None
        ]
        conflicts = [(mine.text, other.text) for mine, other in rivals]
        absent = [r[0].text for r in rest if all(r[0].text != mine for mine, _ in conflicts)]
        if rivals:
            mine, other = rivals[0]
            outcome = conflicting(
                self.name,
                Label.DATE_MISMATCH,
                "Dates",
                conflicts,
                absent=absent + derived,
                sentence=sentence[2] if sentence else "",
            )
            return located(outcome, claim, (mine.start, mine.end), cited, (other.start, other.end))
        if absent:
            first = next(r[0] for r in rest if r[0].text == absent[0])
            outcome = missing(self.name, Label.DATE_MISMATCH, "Dates", absent + derived)
            return located(outcome, claim, (first.start, first.end), cited)
        return missing(
            self.name,
            Label.NEEDS_REVIEW,
            "Dates",
            derived,
            status=CheckStatus.NEEDS_REVIEW,
            how="the evidence gives them only relative to another year: a person must confirm",
            finding=Finding.DERIVED,
        )


def _restating_sentence(
    claim: Reading, evidence: Reading
) -> tuple[int, int, str, tuple[DateMention, ...]] | None:
    """The evidence sentence that restates the claim, with its dates."""
    found = restatements(
        claim.text, evidence, wanted_forms(claim.content_forms), grain=Grain.SENTENCE
    )
    if not found:
        return None
    start, end = found[0].start, found[0].end
    inside = tuple(m for m in evidence.dates if start <= m.start and m.end <= end)
    return start, end, found[0].sentence, inside


def _rival(
    date: DateMention, sentence: tuple[int, int, str, tuple[DateMention, ...]] | None
) -> DateMention | None:
    """A date of the restating sentence given as precisely as the claim's and different: the
    evidence dates the claim's fact otherwise."""
    if sentence is None:
        return None
    for other in sentence[3]:
        if _grain(other) == _grain(date) and other != date:
            return other
    return None


def _grain(date: DateMention) -> tuple[bool, ...]:
    return (
        date.year is not None,
        date.month is not None,
        date.day is not None,
        date.weekday is not None,
        date.decade is not None,
        date.century is not None,
        date.quarter is not None,
        date.half is not None,
        date.part is not None,
        date.season is not None,
    )


def _stated_dates(mentions: list[DateMention]) -> list[list[DateMention]]:
    """Each date the claim states, as the readings it allows, in reading order: one for most,
    two for an ambiguous one ("03/04/2024", whose readings share its span). The two ends of a
    range are two dates, each of which must hold."""
    ambiguous: dict[tuple[int, int], list[DateMention]] = {}
    dates: list[list[DateMention]] = []
    for mention in mentions:
        if mention.checkable:
            dates.append([mention])
        elif (mention.start, mention.end) in ambiguous:
            ambiguous[mention.start, mention.end].append(mention)
        else:
            dates.append(ambiguous.setdefault((mention.start, mention.end), [mention]))
    return dates


def _is(claim: DateMention, computed: DateMention) -> bool:
    """Whether a claim's date (a year, a month of a year or a day) is a computed one, at the
    claim's precision, which may be less than the computed date's but not more."""
    if claim.year is None or claim.year != computed.year or not _plain(claim):
        return False
    if claim.month is not None and claim.month != computed.month:
        return False
    return claim.day is None or claim.day == computed.day


def _plain(date: DateMention) -> bool:
    """A year, month or day, not a decade, century, quarter, half, season or weekday."""
    parts = (date.decade, date.century, date.quarter, date.half, date.season, date.weekday)
    return all(part is None for part in parts)


def _weekday(year: int, month: int, day: int) -> int | None:
    try:
        return dt.date(year, month, day).weekday()
    except ValueError:
        return None  # "31 November": no weekday


def _a_count(mention: DateMention, evidence: Reading) -> bool:
    """Whether a bare four-digit "year" of the claim is a number the evidence writes as one:
    "1730 samples" for the evidence's "1,730 samples" is no date."""
    if mention.year is None or mention.month is not None or mention.weekday is not None:
        return False
    if not mention.text.isdigit():
        return False
    return any(
        q.value == mention.year and q.unit is None and not q.ordinal and "," in q.text
        for q in evidence.quantities
    )


# The years of a decade each part names ("the early 1920s": 1920 to 1923); a century's part
# spans ten times as many (calendar.toml, decade_part).
PART_YEARS = {"early": (0, 3), "mid": (3, 6), "late": (6, 9)}
_QUARTER_MONTHS = {q: frozenset(range(3 * q - 2, 3 * q + 1)) for q in range(1, 5)}
_HALF_MONTHS = {1: frozenset(range(1, 7)), 2: frozenset(range(7, 13))}


def _months_of(date: DateMention) -> frozenset[int]:
    if date.quarter is not None:
        return _QUARTER_MONTHS.get(date.quarter, frozenset())
    if date.half is not None:
        return _HALF_MONTHS.get(date.half, frozenset())
    return frozenset()


class _Evidence:
    """The dates of a cited evidence text, with the years and weekdays they give: made once
    per reading, not once per claim."""

    @classmethod
    def of(cls, reading: Reading) -> _Evidence:
        found = list(reading.dates)
        evidence = cls(
            found, evidence_years(reading.text, found), implied_dates(reading.text, found)
        )
        evidence.language = reading.language
        evidence.numbers = reading.quantities
        return evidence

    def __init__(
        self, mentions: list[DateMention], years: set[int], implied: list[ImpliedDate]
    ) -> None:
        self.mentions = mentions
        self.years = years
        self.implied_dates = implied
        # Years given relative to another where the words do not say which way: a claim
        # naming one goes to review. Those the words orient are computed (``implied_dates``).
        self.implied = {i.date.year for i in implied if i.date.year is not None and not i.sure}
        self.named_years = {m.year for m in mentions if m.year is not None}
        self.language = "en"
        self.numbers: tuple[Quantity, ...] = ()
        self.weekdays = {m.weekday for m in mentions if m.weekday is not None}
        self.weekdays.update(
            weekday
            for m in mentions
            if m.year is not None and m.month is not None and m.day is not None
            if (weekday := _weekday(m.year, m.month, m.day)) is not None
        )

    def holds(self, claim: DateMention) -> bool:
        if claim.weekday is not None and claim.weekday not in self.weekdays:
            return False
        if claim.decade is not None:
            return self._decade(claim.decade, claim.part)
        if claim.century is not None:
            return self._century(claim.century, claim.part)
        if claim.quarter is not None or claim.half is not None:
            return self._part_of_year(claim)
        if claim.season is not None:
            return self._season(claim.season)
        if claim.month is None:
            return claim.year is None or claim.year in self.years
        return any(self._same_day(claim, m) for m in self.mentions if m.month == claim.month)

    def _part_of_year(self, claim: DateMention) -> bool:
        """A quarter or half: the same one named in the evidence (its year there, or given
        elsewhere in it), or, for a calendar quarter or half, a date the evidence gives in it."""
        for other in self.mentions:
            if (other.quarter, other.half) != (claim.quarter, claim.half):
                continue
            if claim.year is None or other.year == claim.year:
                return True
            if other.year is None and claim.year in self.years:
                return True
        if self.language != "en" and claim.year is None:
            # Evidence in another language names quarters in its own words ("terceiro
            # trimestre"): the quarter's number, read there as a number, bears it out.
            return any(
                q.value == (claim.quarter or claim.half) and not q.unit for q in self.numbers
            )
        if claim.fiscal or claim.year is None:
            return False
        months = _months_of(claim)
        return any(
            m.year == claim.year and m.month in months and not m.fiscal for m in self.mentions
        )

    def _season(self, first: int) -> bool:
        """A period named by two consecutive years ("2022-23"): the same one in the evidence,
        or either year where the evidence names no other such period holding it ("the 2023
        season")."""
        seasons = {m.season for m in self.mentions if m.season is not None}
        if first in seasons:
            return True
        if any(first <= s + 1 and s <= first + 1 for s in seasons):
            return False  # the evidence names 2021-22 or 2023-24 where the claim has 2022-23
        return first in self.years or first + 1 in self.years

    def _same_day(self, claim: DateMention, other: DateMention) -> bool:
        if claim.day is not None and other.day != claim.day:
            return False
        if claim.year is None or other.year == claim.year:
            return True
        # Evidence often leaves the year of a date to its context ("on July 17" in a 2020 paper).
        return other.year is None and claim.year in self.years

    def _decade(self, decade: int, part: str | None = None) -> bool:
        if part is not None:
            return self._decade_part(decade, part)
        if decade >= 1000 and decade % 100 == 0:
            # "The 1800s" is said of the century as often as of its first ten years.
            return any(m.decade == decade for m in self.mentions) or self._century(
                decade // 100 + 1
            )
        if decade >= 1000:
            return any(m.decade == decade for m in self.mentions) or any(
                decade <= year < decade + 10 for year in self.years
            )
        return any(m.decade is not None and m.decade % 100 == decade for m in self.mentions) or any(
            year % 100 // 10 * 10 == decade for year in self.years
        )

    def _decade_part(self, decade: int, part: str) -> bool:
        """ "The early 1920s": the same part of the same decade, or a year in it; "the early
        1600s", the early part of the century."""
        if decade >= 1000 and decade % 100 == 0:
            return self._century(decade // 100 + 1, part)
        low, high = PART_YEARS[part]
        for other in self.mentions:
            if other.decade is None or other.part != part:
                continue
            if other.decade == decade or (other.decade % 100 == decade % 100 and decade < 1000):
                return True
        if decade >= 1000:
            return any(decade + low <= year <= decade + high for year in self.named_years)
        return any(decade + low <= year % 100 <= decade + high for year in self.named_years)

    def _century(self, century: int, part: str | None = None) -> bool:
        # The 19th century is 1801-1900 by count and the 1800s in speech: either bears it out.
        first = (century - 1) * 100
        if part is not None:
            low, high = PART_YEARS[part]
            return any(m.century == century and m.part == part for m in self.mentions) or any(
                first + 10 * low <= year <= first + 10 * high + 9 for year in self.years
            )
        return (
            any(m.century == century for m in self.mentions)
            or any(m.decade is not None and first <= m.decade < first + 100 for m in self.mentions)
            or any(first <= year <= first + 100 for year in self.years)
        )
