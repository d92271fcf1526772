"""The one finder of the evidence that restates a claim, with one set of thresholds.

The evidence sentences are ranked against the claim (BM25, as evidence selection ranks them);
within the best ``TOP_SENTENCES``, each part at the asked grain (the sentence, its clauses or
its phrases: :mod:`judge.reading.clauses`) is scored by the share of the wanted words it holds.
A part that holds at least ``REVIEW_OVERLAP`` of them restates the claim; one that holds
``CONFIDENT_OVERLAP`` restates it closely enough for a check to be sure of a flip or a swap
read against it. Checks ask with their own wanted words (the claim's content words, or those
around a number or a name) and, where a part's words read more than their forms (opposites,
negating prefixes), with their own reading of a part.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum

from judge.reading.clauses import clause_spans, phrase_spans
from judge.reading.ranking import Ranked
from judge.reading.reading import Reading
from judge.reading.words import content_forms

__all__ = [
    "CONFIDENT_OVERLAP",
    "REVIEW_OVERLAP",
    "TOP_SENTENCES",
    "Grain",
    "Restatement",
    "best_sentences",
    "restatements",
    "wanted_forms",
]

CONFIDENT_OVERLAP = 0.8
REVIEW_OVERLAP = 0.6
TOP_SENTENCES = 3

Wanted = Sequence[frozenset[str]]  # each wanted word as the forms that hold it


class Grain(Enum):
    SENTENCE = "sentence"
    CLAUSE = "clause"
    PHRASE = "phrase"


@dataclass(frozen=True)
class Restatement:
    """A part of an evidence sentence that restates a claim."""

    text: str  # the part (a clause, a phrase or the whole sentence), stripped
    sentence: str  # the evidence sentence holding it
    start: int  # the part's offsets in the evidence text
    end: int
    overlap: float  # the share of the wanted words it holds


def best_sentences(query: str, evidence: Reading, top: int = TOP_SENTENCES) -> list[Ranked]:
    """The evidence sentences that match ``query`` best, best first."""
    return evidence.sentences.rank(query, top=top)


def restatements(
    query: str,
    evidence: Reading,
    wanted: Wanted,
    *,
    grain: Grain,
    with_sentence: bool = False,
    forms_of: Callable[[str], frozenset[str]] = content_forms,
    least: float = REVIEW_OVERLAP,
    sentences: Sequence[Ranked] | None = None,
) -> list[Restatement]:
    """The parts of the best-matching evidence sentences that hold at least ``least`` of
    ``wanted``, best first (ties in sentence rank and then text order). With
    ``with_sentence``, each whole sentence is a candidate too, after its parts."""
    if not wanted:
        return []
    ranked = best_sentences(query, evidence) if sentences is None else sentences
    found: list[tuple[float, int, Restatement]] = []
    order = 0
    for sentence in ranked:
        for start, end in _parts(sentence.text, grain, with_sentence=with_sentence):
            part = sentence.text[start:end]
            held = forms_of(part)
            overlap = sum(1 for forms in wanted if forms & held) / len(wanted)
            if overlap >= least:
                restatement = Restatement(
                    part.strip(),
                    sentence.text,
                    sentence.start + start,
                    sentence.start + end,
                    overlap,
                )
                found.append((overlap, order, restatement))
            order += 1
    found.sort(key=lambda item: (-item[0], item[1]))
    return [restatement for _, _, restatement in found]


def wanted_forms(forms: frozenset[str] | set[str]) -> list[frozenset[str]]:
    """Wanted words that each hold by their own form alone."""
    return [frozenset({form}) for form in sorted(forms)]


def _parts(text: str, grain: Grain, *, with_sentence: bool) -> Iterator[tuple[int, int]]:
    if grain is Grain.CLAUSE:
        yield from clause_spans(text)
    elif grain is Grain.PHRASE:
        yield from ((s, e) for s, e in phrase_spans(text) if text[s:e].strip())
    if grain is Grain.SENTENCE or with_sentence:
        yield 0, len(text)
