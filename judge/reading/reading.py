"""A text read once: its normalised form, sentences, words, and typed values, each computed on
first use and kept with the text.

Every exact check of every claim reads the same cited evidence: :func:`read` keeps the last
readings (one cache for all of them), so a passage's sentences, numbers, dates and names are
found once per request, whatever the number of claims and checks that read them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property, lru_cache
from typing import TypeVar, cast

from judge.reading.languages import Conventions, conventions, detect
from judge.reading.locale import reading_text
from judge.reading.normalise import Normalised, for_checking
from judge.reading.ranking import SentenceIndex
from judge.reading.values.dates import DateMention, find_dates
from judge.reading.values.identifiers import Identifier, find_identifiers
from judge.reading.values.intervals import Range, find_ranges
from judge.reading.values.links import Address, Email, find_addresses, find_emails
from judge.reading.values.names import NameForms, NameRun, name_forms, name_runs
from judge.reading.values.owners import Owned, assign
from judge.reading.values.quantities import Quantity, find_quantities, tokenised_readings
from judge.reading.values.scores import Score, find_scores
from judge.reading.values.slots import Mention, mentions
from judge.reading.values.times import ClockTime, find_times
from judge.reading.words import compounds, content_forms

__all__ = ["READINGS_KEPT", "Reading", "read"]

READINGS_KEPT = 128
T = TypeVar("T")


class Reading:
    """One text as the exact checks read it. ``raw`` is the text as given; ``text`` the text
    every offset refers to: normalised, with numbers written in words as digits in the
    text's own language (:mod:`judge.reading.locale`); ``language`` that language."""

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.normalised: Normalised = for_checking(raw)
        self.language = detect(self.normalised.text)
        self.text = reading_text(self.normalised.text, self.language)
        self.conventions: Conventions = conventions(self.language)
        self._views: dict[Callable[[Reading], object], object] = {}

    def view(self, make: Callable[[Reading], T]) -> T:
        """``make(self)``, made once per reading: a check's own view of the text (the years
        and weekdays its dates give, the hours it names) kept with the reading, so no check
        needs a cache of its own."""
        if make not in self._views:
            self._views[make] = make(self)
        return cast(T, self._views[make])

    @cached_property
    def folded(self) -> str:
        """The normalised text, casefolded, for matching phrases regardless of case."""
        return self.text.casefold()

    @cached_property
    def sentences(self) -> SentenceIndex:
        """The sentences, ranked against a claim on demand."""
        return SentenceIndex(self.text)

    @cached_property
    def content_forms(self) -> frozenset[str]:
        return content_forms(self.text)

    @cached_property
    def written(self) -> frozenset[str]:
        """Every word and compound the text writes, casefolded."""
        return frozenset(word.casefold() for word, _, _ in compounds(self.text))

    # --- values, as each finder reads them -------------------------------------------------

    @cached_property
    def quantities(self) -> tuple[Quantity, ...]:
        """Every number, wherever it stands: in evidence, a claim's number may be borne out by
        digits another value holds ("the 12th" of "December 12th" for "12"); with the second
        readings of numbers tokenised text splits ("100, 000")."""
        found = find_quantities(self.text, self.conventions)
        found += tokenised_readings(self.text, self.conventions)
        return tuple(sorted(found, key=lambda q: q.start))

    @cached_property
    def dates(self) -> tuple[DateMention, ...]:
        return tuple(find_dates(self.text, self.conventions))

    @cached_property
    def times(self) -> tuple[ClockTime, ...]:
        return tuple(find_times(self.text, self.language))

    @cached_property
    def identifiers(self) -> tuple[Identifier, ...]:
        return tuple(find_identifiers(self.text))

    @cached_property
    def addresses(self) -> tuple[Address, ...]:
        return tuple(find_addresses(self.text))

    @cached_property
    def emails(self) -> tuple[Email, ...]:
        return tuple(find_emails(self.text))

    @cached_property
    def scores(self) -> tuple[Score, ...]:
        return tuple(find_scores(self.text))

    @cached_property
    def owned(self) -> Owned:
        """The values with one owner per span (:mod:`judge.reading.values.owners`)."""
        return assign(
            self.text,
            self.addresses,
            self.emails,
            self.identifiers,
            self.dates,
            self.times,
            self.quantities,
        )

    @cached_property
    def numbers(self) -> tuple[Quantity, ...]:
        """The numbers the text states as numbers: owned by no other value, and used as
        numbers, not as words or names ("one of", "3D")."""
        return tuple(q for q in self.owned.quantities if q.checkable)

    @cached_property
    def ranges(self) -> tuple[Range, ...]:
        """The ranges the text's numbers state ("3-5%", "between 3 and 5 percent")."""
        return tuple(find_ranges(self.text, self.owned.quantities))

    @cached_property
    def mentions(self) -> tuple[Mention, ...]:
        """Every number with what it is said of (:mod:`judge.reading.values.slots`)."""
        return tuple(mentions(self.text, self.quantities))

    # --- names ----------------------------------------------------------------------------

    @cached_property
    def names(self) -> tuple[NameRun, ...]:
        return tuple(name_runs(self.text))

    @cached_property
    def name_forms(self) -> NameForms:
        return name_forms(self.text)


@lru_cache(maxsize=READINGS_KEPT)
def read(text: str) -> Reading:
    """The reading of ``text``, made once and kept among the last ``READINGS_KEPT``."""
    return Reading(text)
