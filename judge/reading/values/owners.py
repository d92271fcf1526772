"""One owner per span: which kind of value a stretch of text is read as.

Each finder reads its own kind (addresses, identifiers, dates, times, numbers) and may find
the same digits: "CVE-2024-3094" holds a year, "May 3, 2019" holds a 3, "10:30" two numbers.
Here, and only here, the kinds are ranked: a web or e-mail address owns what it spans, then an
identifier, a date, a time of day; a number is a number only where none of those stands, and
never inside a citation marker or a list enumerator ("[2]", "8) The report..."), which are
references and layout. A new kind of value is added here, not as an exclusion inside the
checks of the others.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from judge.reading import lexicon
from judge.reading.sentences import enumerator_spans
from judge.reading.values.dates import DateMention
from judge.reading.values.identifiers import Identifier
from judge.reading.values.links import Address, Email
from judge.reading.values.quantities import Quantity
from judge.reading.values.times import ClockTime

__all__ = ["Owned", "assign", "references"]


# Inline citation markers ("[1]", "[2, 3]"), the number of a passage or source an answer
# names ("as stated in passage 2"), and an ordinal that orders an answer's points ("Third,
# ...") are references and layout, not values a text states; so are the numbers that count a
# list's items (judge.reading.sentences.enumerator_spans: "1. Opened items ...", but not
# "40. The body ...", a value in a marker's place).
_LABELS = lexicon.alternation(lexicon.words("references", name="label"))
_ORDINALS = lexicon.alternation(lexicon.words("number_words", name="ordinal"))
_REFERENCES = re.compile(
    r"\[\s*\d+(?:\s*[,;-]\s*\d+)*\s*\]"
    rf"|\b(?i:{_LABELS})\s*#?\s*\d+\b"
    rf"|(?:^|(?<=[.!?:;]\s))(?i:{_ORDINALS})"
    r"(?=\s*,)",
    re.MULTILINE,
)
# Names that hold a number ("coronavirus disease 2019"): owned before any value is read.
_NUMBERED_NAMES = re.compile(
    rf"\b(?i:{lexicon.alternation(lexicon.words('numbered_names'))})(?!\w)"
)


class _Span(Protocol):
    @property
    def start(self) -> int: ...

    @property
    def end(self) -> int: ...


_S = TypeVar("_S", bound=_Span)


class _Taken:
    """Character positions owned so far."""

    def __init__(self, length: int) -> None:
        self._taken = bytearray(length + 1)

    def free(self, spans: Sequence[_S]) -> tuple[_S, ...]:
        """The spans that touch no owned position; they are owned from now on."""
        kept = tuple(s for s in spans if not any(self._taken[s.start : s.end]))
        for span in kept:
            self.take(span.start, span.end)
        return kept

    def take(self, start: int, end: int) -> None:
        self._taken[start:end] = b"\x01" * max(0, end - start)


@dataclass(frozen=True)
class Owned:
    """The values of a text, each span read as one kind only."""

    addresses: tuple[Address, ...]
    emails: tuple[Email, ...]
    identifiers: tuple[Identifier, ...]
    dates: tuple[DateMention, ...]
    times: tuple[ClockTime, ...]
    quantities: tuple[Quantity, ...]


def references(text: str) -> list[tuple[int, int]]:
    """The spans of citation markers and list enumerators in ``text``."""
    return [match.span() for match in _REFERENCES.finditer(text)] + enumerator_spans(text)


def assign(
    text: str,
    addresses: Sequence[Address],
    emails: Sequence[Email],
    identifiers: Sequence[Identifier],
    dates: Sequence[DateMention],
    times: Sequence[ClockTime],
    quantities: Sequence[Quantity],
) -> Owned:
    """Each kind's values outside the spans of the kinds ranked above it."""
    taken = _Taken(len(text))
    for match in _NUMBERED_NAMES.finditer(text):
        taken.take(*match.span())
    owned_addresses = taken.free(addresses)
    owned_emails = taken.free(emails)
    owned_identifiers = taken.free(identifiers)
    owned_dates = taken.free(dates)
    owned_times = taken.free(times)
    for start, end in references(text):
        taken.take(start, end)
    return Owned(
        owned_addresses,
        owned_emails,
        owned_identifiers,
        owned_dates,
        owned_times,
        taken.free(quantities),
    )
