"""What a number is said of: the content words around it within its clause.

In "Tessera now requires Python 3.9 or later" the slot of 3.9 is {tessera, now, requir, later}.
The evidence "Python 3.9 is no longer supported; Tessera now requires Python 3.10 or later"
gives those words to 3.10, and others to 3.9. A clause ends at punctuation, at a conjunction
and at the next number, so the words of a neighbouring fact are not read as this one's.
"""

from __future__ import annotations

import re

from judge.pipeline.checks.quantities import Quantity, counted_noun
from judge.pipeline.claims.sentences import content_words, word_form

# Content words read on each side of the number.
WINDOW = 3

_CLAUSE_BREAK = re.compile(
    r"[,;:()\[\]—–]|\s-\s|\b(?:and|but|or|while|whilst|whereas)\b", re.IGNORECASE
)
# A capitalised content word right before a bare number names it: "Python 3.9", "Phase 2",
# "Route 66"; not a function word that opens a sentence ("In 2019", "About 30").
_NAME_BEFORE = re.compile(r"\b([A-Z][A-Za-z]+)\s+$")


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


def slot(text: str, quantity: Quantity, numbers: list[Quantity], kind_of: str | None) -> set[str]:
    """The content words (word forms) around ``quantity`` in its clause of ``text``, without
    the number's own words and the noun or name its kind is read from."""
    start, end = _clause(text, quantity, numbers)
    skip = _kind_word(kind_of)
    before = _forms(text[start : quantity.start], skip)[-WINDOW:]
    after = _forms(text[quantity.end : end], skip)[:WINDOW]
    return set(before) | set(after)


def _clause(text: str, quantity: Quantity, numbers: list[Quantity]) -> tuple[int, int]:
    start = max(
        [m.end() for m in _CLAUSE_BREAK.finditer(text, 0, quantity.start)]
        + [q.end for q in numbers if q.end <= quantity.start]
        + [0]
    )
    following = _CLAUSE_BREAK.search(text, quantity.end)
    end = min(
        [following.start() if following else len(text)]
        + [q.start for q in numbers if q.start >= quantity.end]
    )
    return start, end


def _forms(text: str, skip: str | None) -> list[str]:
    forms = (word_form(word) for word, _, _ in content_words(text))
    return [form for form in forms if form != skip and not any(ch.isdigit() for ch in form)]


def _kind_word(kind_of: str | None) -> str | None:
    for prefix in ("count of ", "number of "):
        if kind_of is not None and kind_of.startswith(prefix):
            return kind_of.removeprefix(prefix)
    return None
