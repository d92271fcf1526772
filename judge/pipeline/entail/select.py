"""Evidence selection: the few sentences of the cited passages that bear on a claim.

Short premises help a small judge and cost less prefill. Each passage is cut into sentences
(long ones into pieces of at most ``max_unit_chars``), the sentences are ranked against the
claim with BM25 and, when an :class:`Embedder` is given, with sentence-embedding cosine; the
best ``top_k`` and ``neighbours`` sentences either side are returned as contiguous spans in
document order. When nothing in the passages shares a word with the claim (and there is no
embedder), no sentence can be preferred, so the whole passages are returned.

The embedder is optional and loaded at the edge (:mod:`judge.pipeline.entail.embeddings`);
here it is only called. Pure: no I/O.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from judge.reading.ranking import DEFAULT_MAX_UNIT_CHARS, Bm25, bm25_tokens, sentence_bounds
from judge.schemas import Passage

__all__ = [
    "Embedder",
    "PassageCover",
    "SelectedSpan",
    "rank_passages",
    "rank_sentences",
    "select_evidence",
]

logger = logging.getLogger(__name__)

DEFAULT_EMBEDDING_WEIGHT = 0.5


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors; similar meaning, high cosine."""

    model_id: str

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


@dataclass(frozen=True)
class SelectedSpan:
    """A stretch of a passage (character offsets, end exclusive) chosen for a claim.

    ``score`` is the best sentence score in the span, relative to the best sentence overall
    (1.0); 0.0 when the whole passage was returned for want of any match.
    """

    passage_id: str
    start: int
    end: int
    text: str
    score: float


@dataclass(frozen=True)
class _Unit:
    passage_index: int
    start: int
    end: int
    text: str
    tokens: tuple[str, ...]


def select_evidence(
    claim: str,
    passages: Sequence[Passage],
    top_k: int,
    neighbours: int,
    embedder: Embedder | None = None,
    *,
    embedding_weight: float = DEFAULT_EMBEDDING_WEIGHT,
    max_unit_chars: int = DEFAULT_MAX_UNIT_CHARS,
) -> list[SelectedSpan]:
    """The ``top_k`` sentences of ``passages`` nearest ``claim``, ``neighbours`` either side."""
    if top_k < 1 or neighbours < 0 or max_unit_chars < 1:
        raise ValueError("top_k and max_unit_chars must be at least 1, neighbours at least 0")
    units = [u for i, p in enumerate(passages) for u in _units(i, p.text, max_unit_chars)]
    scores = _scores(claim, units, embedder, embedding_weight)
    ranked = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: (-scores[i], i))
    if not ranked:
        return [SelectedSpan(p.id, 0, len(p.text), p.text, 0.0) for p in passages]

    chosen: dict[int, float] = {}  # unit index -> score of the top unit that brought it in
    for top in ranked[:top_k]:
        for index in range(top - neighbours, top + neighbours + 1):
            if 0 <= index < len(units) and units[index].passage_index == units[top].passage_index:
                chosen[index] = max(chosen.get(index, 0.0), scores[top] if index == top else 0.0)

    spans: list[SelectedSpan] = []
    run: list[int] = []
    for index in sorted(chosen):
        if run and (
            index != run[-1] + 1 or units[index].passage_index != units[run[-1]].passage_index
        ):
            spans.append(_span(run, units, chosen, passages))
            run = []
        run.append(index)
    spans.append(_span(run, units, chosen, passages))
    return spans


def rank_sentences(
    claim: str,
    passages: Sequence[Passage],
    embedder: Embedder | None = None,
    *,
    embedding_weight: float = DEFAULT_EMBEDDING_WEIGHT,
    max_unit_chars: int = DEFAULT_MAX_UNIT_CHARS,
) -> list[SelectedSpan]:
    """Every sentence of ``passages`` that matches ``claim`` at all, best first, each its own
    span (``select_evidence`` joins neighbours into runs; a pointer wants single sentences)."""
    units = [u for i, p in enumerate(passages) for u in _units(i, p.text, max_unit_chars)]
    scores = _scores(claim, units, embedder, embedding_weight)
    ranked = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: (-scores[i], i))
    return [
        SelectedSpan(passages[units[i].passage_index].id, units[i].start, units[i].end,
                     units[i].text, scores[i])
        for i in ranked
    ]  # fmt: skip


def rank_passages(
    query: str,
    passages: Sequence[Passage],
    top_k: int,
    embedder: Embedder | None = None,
    *,
    embedding_weight: float = DEFAULT_EMBEDDING_WEIGHT,
) -> list[tuple[str, float]]:
    """The ``top_k`` passages most similar to ``query``, best first, as (id, score).

    BM25 over whole passages, scaled so that the best passage scores 1.0; passages that share
    no word with the query are left out. With an embedder, the passage's similarity is that of
    its closest sentence, mixed in with ``embedding_weight``.
    """
    if top_k < 1:
        raise ValueError("top_k must be at least 1")
    passage_tokens = [bm25_tokens(p.text) for p in passages]
    lexical = _normalised(_bm25(bm25_tokens(query), passage_tokens))
    scores = lexical
    if embedder is not None and passages:
        units = [
            u for i, p in enumerate(passages) for u in _units(i, p.text, DEFAULT_MAX_UNIT_CHARS)
        ]
        closest = [0.0] * len(passages)
        for unit, similarity in zip(
            units, _cosines(query, [u.text for u in units], embedder), strict=True
        ):
            closest[unit.passage_index] = max(closest[unit.passage_index], similarity)
        scores = [
            _mix(lex, sim, embedding_weight) for lex, sim in zip(lexical, closest, strict=True)
        ]
    order = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: (-scores[i], i))
    return [(passages[i].id, scores[i]) for i in order[:top_k]]


class PassageCover:
    """The passages of one ledger with each one's words and each word's rarity, built once:
    every uncited claim of a request is widened against the same ledger."""

    def __init__(self, passages: Sequence[Passage]) -> None:
        self.passages = passages
        self.tokens = {p.id: set(bm25_tokens(p.text)) for p in passages}
        self.rarity = _rarity(list(self.tokens.values()))

    def covering(self, query: str, chosen: Sequence[str], extra: int) -> list[str]:
        """Up to ``extra`` passages besides ``chosen``, each the one holding the most of the
        query's words (weighted by rarity) that no passage chosen so far holds; ties go to the
        passage more similar to the query.

        A sentence that draws on several passages (a summary of a long article split into
        paragraphs) has a number or a name in a passage that shares little else with it, which
        similarity alone leaves out.
        """
        if extra < 1:
            return []
        tokens = self.tokens
        wanted = set(bm25_tokens(query)).difference(*(tokens.get(pid, set()) for pid in chosen))
        taken = set(chosen)
        ranked = rank_passages(query, self.passages, len(self.passages) or 1)
        rest = [pid for pid, _ in ranked if pid not in taken]
        added: list[str] = []
        for _ in range(extra):
            gains = [sum(self.rarity[t] for t in wanted & tokens[pid]) for pid in rest]
            if not gains or max(gains) <= 0:
                break
            pid = rest.pop(gains.index(max(gains)))
            added.append(pid)
            wanted -= tokens[pid]
        return added


def _rarity(docs: Sequence[set[str]]) -> dict[str, float]:
    """Each term's inverse document frequency over ``docs``; 0 for a term in every one."""
    counts: dict[str, int] = {}
    for doc in docs:
        for term in doc:
            counts[term] = counts.get(term, 0) + 1
    return {term: float(np.log(len(docs) / count)) for term, count in counts.items()}


def _units(passage_index: int, text: str, max_chars: int) -> list[_Unit]:
    return [
        _Unit(passage_index, start, end, text[start:end], tokens)
        for start, end, tokens in sentence_bounds(text, max_chars)
    ]


def _span(
    run: list[int], units: list[_Unit], chosen: dict[int, float], passages: Sequence[Passage]
) -> SelectedSpan:
    passage = passages[units[run[0]].passage_index]
    start, end = units[run[0]].start, units[run[-1]].end
    score = max(chosen[i] for i in run)
    return SelectedSpan(passage.id, start, end, passage.text[start:end], score)


def _scores(
    claim: str, units: list[_Unit], embedder: Embedder | None, embedding_weight: float
) -> list[float]:
    lexical = _normalised(_bm25(bm25_tokens(claim), [u.tokens for u in units]))
    if embedder is None or not units:
        return lexical
    similarities = _cosines(claim, [u.text for u in units], embedder)
    return [
        _mix(lex, sim, embedding_weight) for lex, sim in zip(lexical, similarities, strict=True)
    ]


def _bm25(query: Sequence[str], docs: Sequence[Sequence[str]]) -> list[float]:
    if not query or not any(docs):
        return [0.0] * len(docs)
    return [float(score) for score in Bm25(docs).scores(query)]


def _normalised(scores: list[float]) -> list[float]:
    best = max(scores, default=0.0)
    return [s / best for s in scores] if best > 0 else [0.0] * len(scores)


def _cosines(query: str, texts: list[str], embedder: Embedder) -> list[float]:
    vectors = embedder.embed([query, *texts])
    if len(vectors) != len(texts) + 1:
        raise ValueError(f"embedder {embedder.model_id} returned {len(vectors)} vectors")
    head, *rest = (_unit_vector(v) for v in vectors)
    return [sum(a * b for a, b in zip(head, vector, strict=True)) for vector in rest]


def _unit_vector(vector: Sequence[float]) -> list[float]:
    norm = sum(x * x for x in vector) ** 0.5
    return [x / norm for x in vector] if norm > 0 else [0.0] * len(vector)


def _mix(lexical: float, similarity: float, weight: float) -> float:
    return (1.0 - weight) * lexical + weight * max(similarity, 0.0)


# --- embeddings ------------------------------------------------------------------------
