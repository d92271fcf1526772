"""What a number is said of: the content words around it within its phrase.

In "Tessera now requires Python 3.9 or later" the slot of 3.9 is {tessera, now, requir, later}.
The evidence "Python 3.9 is no longer supported; Tessera now requires Python 3.10 or later"
gives those words to 3.10, and others to 3.9. A slot ends at a phrase break (punctuation, a
conjunction: :mod:`judge.reading.clauses`) and at the next number, so the words of a
neighbouring fact are not read as this one's.

Evidence can be long and hold thousands of numbers, so its breaks are found once and each
number's phrase by bisection; a reading keeps its mentions (``Reading.mentions``).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from judge.reading.clauses import PHRASE_BREAK
from judge.reading.values.quantities import Quantity, counted_noun
from judge.reading.words import content_words, word_form

# Content words read on each side of the number, and how far to look for them.
WINDOW = 3
_REACH = 200

# A capitalised content word right before a bare number names it: "Python 3.9", "Phase 2",
# "Route 66"; not a function word that opens a sentence ("In 2019", "About 30").
_NAME_BEFORE = re.compile(r"\b([A-Z][A-Za-z]+)\s+$")


@dataclass(frozen=True)
class Mention:
    """A number of a text with what it is of (:func:`kind`) and its slot's words."""

    quantity: Quantity
    kind: str | None
    words: frozenset[str]


def kind(quantity: Quantity, text: str) -> str | None:
    """What ``quantity`` (a number of ``text``) measures, counts or numbers, if it says."""
    if quantity.unit is not None:
        return quantity.unit
    if quantity.counts:
        noun = counted_noun(text[quantity.end :])
        return None if noun is None else f"count of {word_form(noun)}"
    if quantity.ordinal:
        return None
    name = _NAME_BEFORE.search(text[max(0, quantity.start - 40) : quantity.start])
    if name is None or not content_words(name.group(1)):
        return None
    return f"number of {word_form(name.group(1))}"


def mentions(text: str, numbers: Sequence[Quantity]) -> list[Mention]:
    """Each of ``numbers`` (the numbers of ``text``, in order) with its kind and slot."""
    clauses = _Clauses(text, numbers)
    found = []
    for number in numbers:
        number_kind = kind(number, text)
        found.append(Mention(number, number_kind, clauses.slot(number, number_kind)))
    return found


class _Clauses:
    """The clause around each number of one text, by bisection over its breaks and numbers."""

    def __init__(self, text: str, numbers: Sequence[Quantity]) -> None:
        self.text = text
        breaks = list(PHRASE_BREAK.finditer(text))
        self.break_ends = [m.end() for m in breaks]
        self.break_starts = [m.start() for m in breaks]
        self.number_ends = sorted(q.end for q in numbers)
        self.number_starts = sorted(q.start for q in numbers)

    def slot(self, quantity: Quantity, kind_of: str | None) -> frozenset[str]:
        """The content words (word forms) around ``quantity`` in its clause, without the
        number's own words and the noun or name its kind is read from."""
        start, end = self._bounds(quantity)
        skip = _kind_word(kind_of)
        before = _forms(self.text[max(start, quantity.start - _REACH) : quantity.start], skip)
        after = _forms(self.text[quantity.end : min(end, quantity.end + _REACH)], skip)
        return frozenset(before[-WINDOW:]) | frozenset(after[:WINDOW])

    def _bounds(self, quantity: Quantity) -> tuple[int, int]:
        start = max(
            _last_at_most(self.break_ends, quantity.start),
            _last_at_most(self.number_ends, quantity.start),
        )
        end = min(
            _first_at_least(self.break_starts, quantity.end, len(self.text)),
            _first_at_least(self.number_starts, quantity.end, len(self.text)),
        )
        return start, end


def _last_at_most(positions: list[int], limit: int) -> int:
    index = bisect.bisect_right(positions, limit)
    return positions[index - 1] if index else 0


def _first_at_least(positions: list[int], limit: int, default: int) -> int:
    index = bisect.bisect_left(positions, limit)
    return positions[index] if index < len(positions) else default


def _forms(text: str, skip: str | None) -> list[str]:
    forms = (word_form(word) for word, _, _ in content_words(text))
    return [form for form in forms if form != skip and not any(ch.isdigit() for ch in form)]


def _kind_word(kind_of: str | None) -> str | None:
    for prefix in ("count of ", "number of "):
        if kind_of is not None and kind_of.startswith(prefix):
            return kind_of.removeprefix(prefix)
    return None
