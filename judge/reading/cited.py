"""The cited evidence of a claim as passages, and where in them a span a check read stands.

The checks that read values are given the claim's cited passages, not one string: each is a
text of its own, with its id. What the checks compare is read from the passages joined in
citation order (the ranking of sentences and the values are those of the joined reading, so a
claim drawing on two passages is read against both), and every span a finding names is put
back in its passage: the passage's id and the offsets into the passage's own text, as given
(before normalisation), with the text at those offsets. A span is found by its text near where
it stands in the reading, so what normalisation changed elsewhere does not move it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from judge.reading.reading import Reading, read

__all__ = ["SEPARATOR", "Cited", "Located", "locate_in"]

SEPARATOR = "\n\n"  # between passages: a paragraph break no sentence or value runs across


@dataclass(frozen=True)
class Located:
    """A span of one passage: its id (empty for a text given without one), the offsets into
    the passage's text and the text there."""

    passage_id: str
    start: int
    end: int
    text: str


class Cited:
    """The passages a claim cites, in citation order, as (id, text) pairs."""

    def __init__(self, passages: Iterable[tuple[str, str]]) -> None:
        self.passages = tuple(passages)
        self.text = SEPARATOR.join(text for _, text in self.passages)
        starts, offset = [], 0
        for _, text in self.passages:
            starts.append(offset)
            offset += len(text) + len(SEPARATOR)
        self._starts = tuple(starts)

    @classmethod
    def of(cls, text: str, passage_id: str = "") -> Cited:
        """One text, as a check called on a string reads it."""
        return cls([(passage_id, text)])

    @cached_property
    def reading(self) -> Reading:
        """The joined passages, read once (:func:`judge.reading.read` keeps it)."""
        return read(self.text)

    def locate(self, start: int, end: int) -> Located | None:
        """The passage span of the reading's characters ``start:end``; None where the span's
        text cannot be found in the passages as given."""
        found = locate_in(self.text, self.reading.text, start, end)
        if found is None:
            return None
        raw_start, raw_end = found
        for (passage_id, text), offset in zip(
            reversed(self.passages), reversed(self._starts), strict=True
        ):
            if raw_start >= offset:
                local_start = raw_start - offset
                local_end = min(raw_end - offset, len(text))
                return Located(passage_id, local_start, local_end, text[local_start:local_end])
        return None


_SPACE = re.compile(r"\s+")
# Characters the normalisation writes one way that a text may write another.
_LOOSE = {"-": "[-‐‑‒–—−]", "'": "['’‘`]", '"': '["“”]'}


def _loose(part: str) -> str:
    return "".join(_LOOSE.get(ch, re.escape(ch)) for ch in part)


# How far from where it should stand a span's text is looked for.
_REACH = 400


def locate_in(raw: str, normalised: str, start: int, end: int) -> tuple[int, int] | None:
    """The offsets in ``raw`` of the characters ``start:end`` of ``normalised`` (its
    normalised reading): the occurrence of their text nearest to where they stand, blank space
    read as any blank space; None where the text is not in ``raw``."""
    wanted = normalised[start:end].strip()
    if not wanted:
        return None
    start += len(normalised[start:end]) - len(normalised[start:end].lstrip())
    expected = start * len(raw) // max(1, len(normalised))
    pattern = re.compile(r"\s+".join(_loose(part) for part in _SPACE.split(wanted)), re.IGNORECASE)
    low = max(0, expected - _REACH)
    best: tuple[int, int] | None = None
    for match in pattern.finditer(raw, low, min(len(raw), expected + len(wanted) + _REACH)):
        if best is None or abs(match.start() - expected) < abs(best[0] - expected):
            best = match.span()
    if best is None:
        anywhere = pattern.search(raw)
        best = anywhere.span() if anywhere else None
    return best
