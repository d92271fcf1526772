"""Sentences as ranking units, and BM25 over them: which sentences of a text bear on a claim.

Evidence selection (what the judge reads) and the exact checks (which evidence sentence
restates a claim) rank the same units the same way: each sentence of the splitter, long ones
cut into pieces of at most ``max_chars`` at a blank, scored by BM25 over content word forms.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt
from rank_bm25 import BM25Plus

from judge.reading.sentences import split_sentences
from judge.reading.words import content_words, word_form

__all__ = [
    "DEFAULT_MAX_UNIT_CHARS",
    "Bm25",
    "Ranked",
    "SentenceIndex",
    "bm25_tokens",
    "sentence_bounds",
]

DEFAULT_MAX_UNIT_CHARS = 600


@dataclass(frozen=True)
class Ranked:
    """A sentence (offsets into its text, end exclusive) and its score relative to the best
    sentence (1.0)."""

    start: int
    end: int
    text: str
    score: float


@lru_cache(maxsize=4096)
def bm25_tokens(text: str) -> tuple[str, ...]:
    """The terms BM25 ranks by: content word forms; numbers stay terms ("1,000" is "1000")."""
    return tuple(word_form(word) for word, _, _ in content_words(text))


@lru_cache(maxsize=128)
def sentence_bounds(text: str, max_chars: int) -> tuple[tuple[int, int, tuple[str, ...]], ...]:
    """(start, end, BM25 terms) of each sentence of ``text``, long ones cut at a blank."""
    bounds: list[tuple[int, int]] = []
    for sentence in split_sentences(text, strict=False):
        start, end = sentence.span.start, sentence.span.end
        while end - start > max_chars:
            # Cut an unpunctuated run (a table, a long list) at the last blank in reach.
            cut = text.rfind(" ", start + 1, start + max_chars)
            cut = start + max_chars if cut < 0 else cut
            bounds.append((start, cut))
            start = cut
            while start < end and text[start].isspace():
                start += 1
        if start < end:
            bounds.append((start, end))
    return tuple((start, end, bm25_tokens(text[start:end])) for start, end in bounds)


class Bm25:
    """BM25 over a fixed list of documents (each a sequence of terms), the one ranker of the
    package: Okapi scoring with BM25+'s IDF at delta 0, which stays positive on the tiny corpora
    seen here (a term in half of two sentences would get IDF 0 under Okapi). Postings are built
    once, so scoring many queries against the same documents costs a pass over each query's
    terms."""

    def __init__(self, docs: Sequence[Sequence[str]]) -> None:
        self.size = len(docs)
        self._model = BM25Plus(list(docs), delta=0.0) if any(docs) else None
        self._postings: dict[str, tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]] = {}
        if self._model is None:
            return
        found: dict[str, tuple[list[int], list[float]]] = {}
        for index, frequencies in enumerate(self._model.doc_freqs):
            for term, count in frequencies.items():
                where, counts = found.setdefault(term, ([], []))
                where.append(index)
                counts.append(float(count))
        self._postings = {
            term: (np.asarray(where, dtype=np.int64), np.asarray(counts, dtype=np.float64))
            for term, (where, counts) in found.items()
        }
        self._lengths = np.asarray(self._model.doc_len, dtype=np.float64)

    def scores(self, query: Sequence[str]) -> npt.NDArray[np.float64]:
        """Each document's score for ``query`` (a term given twice counts twice)."""
        scores = np.zeros(self.size, dtype=np.float64)
        model = self._model
        if model is None:
            return scores
        k1, b = model.k1, model.b
        for term in query:
            posting = self._postings.get(term)
            if posting is None:
                continue
            where, counts = posting
            norm = k1 * (1 - b + b * self._lengths[where] / model.avgdl) + counts
            scores[where] += (model.idf.get(term) or 0.0) * (counts * (k1 + 1) / norm)
        return scores


class SentenceIndex:
    """The sentences of one text with their BM25 postings, built once per text: ranking many
    claims against the same evidence then costs a pass over each claim's terms, not a new index
    and a pass over every sentence each time."""

    def __init__(self, text: str, max_chars: int = DEFAULT_MAX_UNIT_CHARS) -> None:
        self.text = text
        self.units = sentence_bounds(text, max_chars)
        self._bm25 = Bm25([terms for _, _, terms in self.units])

    def rank(self, query: str, top: int | None = None) -> list[Ranked]:
        """The ``top`` sentences (all, by default) that match ``query`` at all, best first."""
        terms = bm25_tokens(query)
        if not terms:
            return []
        scores = self._bm25.scores(terms)
        best = float(scores.max()) if len(scores) else 0.0
        if best <= 0:
            return []
        matched = np.flatnonzero(scores > 0)
        order = matched[np.lexsort((matched, -scores[matched]))][:top]
        ranked = []
        for i in order.tolist():
            start, end, _ = self.units[i]
            ranked.append(Ranked(start, end, self.text[start:end], float(scores[i]) / best))
        return ranked

    def at(self, offset: int) -> str:
        """The sentence holding ``offset``, or "" past the last one."""
        return next((self.text[s:e] for s, e, _ in self.units if s <= offset < e), "")
