"""Premises: the evidence text a claim is judged against, cut into token-bounded windows.

Pure: token counts come from :mod:`judge.pipeline.entail.tokens`, which loads the tokenizer.
A claim citing several passages is judged against their concatenation, each passage introduced
by its id in square brackets. Evidence longer than ``window_tokens`` is cut into overlapping
windows on sentence boundaries; every :class:`~judge.schemas.judging.PremisePiece` maps a stretch
of the premise text back to the exact offsets of its passage.

Token counts use tiktoken's ``cl100k_base`` encoding. It is not the judge model's tokenizer, so
window sizes are approximate (within about 20 % for Qwen-family models); the budget only needs
to keep prompts well inside the context window.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from judge.pipeline.entail.tokens import count_tokens, encoding
from judge.schemas import Claim, EvidenceLedger, Passage
from judge.schemas.judging import Premise, PremisePiece

_PASSAGE_GAP = "\n\n"
_SPAN_GAP = "\n…\n"  # between two non-adjacent spans of one passage
_SENTENCE_END = re.compile(r"[.!?…][\"'”’)\]]*\s+|\n\s*")


@dataclass(frozen=True)
class SourceSpan:
    """A stretch of one passage (character offsets, end exclusive) to judge against."""

    passage_id: str
    start: int
    end: int


@dataclass(frozen=True)
class _Unit:
    passage_id: str
    start: int
    end: int
    tokens: int


def whole_passages(passages: Sequence[Passage]) -> list[SourceSpan]:
    return [SourceSpan(p.id, 0, len(p.text)) for p in passages]


def premises_for_claim(
    claim: Claim,
    ledger: EvidenceLedger,
    *,
    window_tokens: int,
    overlap_tokens: int,
    spans: Sequence[SourceSpan] | None = None,
) -> list[Premise]:
    """Premises over the passages a claim cites, in citation order (or over ``spans``)."""
    passages: list[Passage] = []
    for passage_id in claim.citations:
        passage = ledger.get(passage_id)
        if passage is None:
            raise ValueError(f"claim {claim.id!r} cites {passage_id!r}, which is not in the ledger")
        if passage not in passages:
            passages.append(passage)
    if spans is not None:
        for span in spans:
            passage = ledger.get(span.passage_id)
            if passage is not None and passage not in passages:
                passages.append(passage)
    return build_premises(
        passages, spans, window_tokens=window_tokens, overlap_tokens=overlap_tokens
    )


def build_premises(
    passages: Sequence[Passage],
    spans: Sequence[SourceSpan] | None = None,
    *,
    window_tokens: int,
    overlap_tokens: int,
) -> list[Premise]:
    """Windows over ``spans`` (default: the whole passages), in the order given.

    Raises ``ValueError`` for an empty selection, an unknown passage id or a span outside
    its passage: the caller built a wrong selection, which must not be judged.
    """
    texts = {p.id: p.text for p in passages}
    chosen = whole_passages(passages) if spans is None else list(spans)
    if not chosen:
        raise ValueError("no evidence to build a premise from")
    for span in chosen:
        text = texts.get(span.passage_id)
        if text is None:
            raise ValueError(f"span names unknown passage {span.passage_id!r}")
        if not 0 <= span.start < span.end <= len(text):
            raise ValueError(f"span {span} lies outside passage {span.passage_id!r}")
    spans = _coalesce(chosen)
    one_window = _fits_by_bytes(spans, texts, window_tokens)
    # Within the byte bound no sentence is cut and everything fits one window, whatever the
    # exact counts: the tokenizer (a fifth of a second to load) is not needed.
    count = _utf8_bytes if one_window else count_tokens
    units: list[_Unit] = []
    for span in spans:
        units.extend(_units(span, texts[span.passage_id], window_tokens, count))
    units = [u for u in units if texts[u.passage_id][u.start : u.end].strip()]
    if not units:
        raise ValueError("the selected evidence is blank")
    windows = [units] if one_window else _pack(units, window_tokens, overlap_tokens)
    return [_premise(window, texts, index, len(windows)) for index, window in enumerate(windows)]


def _coalesce(spans: Sequence[SourceSpan]) -> list[SourceSpan]:
    """Merge each span into the one before it when they touch or overlap in one passage, so
    no text is shown twice."""
    merged: list[SourceSpan] = []
    for span in spans:
        last = merged[-1] if merged else None
        if last and last.passage_id == span.passage_id and last.start <= span.start <= last.end:
            merged[-1] = SourceSpan(last.passage_id, last.start, max(last.end, span.end))
        else:
            merged.append(span)
    return merged


def _fits_by_bytes(spans: Sequence[SourceSpan], texts: dict[str, str], window_tokens: int) -> bool:
    """Whether the spans, a header each, fit one sentence's budget counted in UTF-8 bytes: a
    token is at least one byte, so then they fit one window counted in tokens too."""
    size = sum(
        _utf8_bytes(texts[span.passage_id][span.start : span.end])
        + _header_size(span.passage_id, _utf8_bytes)
        for span in spans
    )
    return size <= min(_sentence_budget(window_tokens), window_tokens)


def _utf8_bytes(text: str) -> int:
    return len(text.encode("utf-8"))


def _header_size(passage_id: str, count: Callable[[str], int]) -> int:
    """What the passage header ("[S1]" and its line break) costs, by ``count``, and one more."""
    return count(f"[{passage_id}]\n") + 1


def _sentence_budget(window_tokens: int) -> int:
    return max(16, window_tokens - 32)  # room for the passage header


def _units(
    span: SourceSpan, text: str, window_tokens: int, count: Callable[[str], int]
) -> list[_Unit]:
    """Sentences of the span (each keeps its trailing whitespace, its size by ``count``), long
    ones cut by tokens."""
    bounds = [span.start]
    for match in _SENTENCE_END.finditer(text, span.start, span.end):
        if span.start < match.end() < span.end:
            bounds.append(match.end())
    bounds.append(span.end)
    units: list[_Unit] = []
    budget = _sentence_budget(window_tokens)
    for start, end in itertools.pairwise(bounds):
        if start >= end:
            continue
        tokens = count(text[start:end])
        if tokens <= budget:
            units.append(_Unit(span.passage_id, start, end, tokens))
        else:
            units.extend(_cut(span.passage_id, text, start, end, budget))
    return units


def _cut(passage_id: str, text: str, start: int, end: int, budget: int) -> list[_Unit]:
    """Cut one over-long sentence at token boundaries."""
    enc = encoding()
    tokens = enc.encode_ordinary(text[start:end])
    _, offsets = enc.decode_with_offsets(tokens)
    cuts = [start + offsets[i] for i in range(0, len(tokens), budget)] + [end]
    units: list[_Unit] = []
    for a, b in itertools.pairwise(cuts):
        if a < b:
            units.append(_Unit(passage_id, a, b, count_tokens(text[a:b])))
    return units


def _cost(window: Sequence[_Unit]) -> int:
    total = 0
    previous: str | None = None
    for unit in window:
        if unit.passage_id != previous:
            total += _header_size(unit.passage_id, count_tokens)
            previous = unit.passage_id
        total += unit.tokens
    return total


def _pack(units: Sequence[_Unit], window_tokens: int, overlap_tokens: int) -> list[list[_Unit]]:
    """Greedy windows of whole units; each new window repeats the previous one's last units
    (at most ``overlap_tokens`` of them) so a fact spanning a cut is seen whole once."""
    windows: list[list[_Unit]] = []
    current: list[_Unit] = []
    for unit in units:
        if current and _cost([*current, unit]) > window_tokens:
            windows.append(current)
            carried: list[_Unit] = []
            for previous in reversed(current[1:]):
                if sum(u.tokens for u in carried) + previous.tokens > overlap_tokens:
                    break
                carried.insert(0, previous)
            while carried and _cost([*carried, unit]) > window_tokens:
                carried.pop(0)
            current = carried
        current.append(unit)
    windows.append(current)
    return windows


def _premise(window: Sequence[_Unit], texts: dict[str, str], index: int, count: int) -> Premise:
    runs: list[list[_Unit]] = []
    for unit in window:
        last = runs[-1][-1] if runs else None
        if (
            last is not None
            and last.passage_id == unit.passage_id
            and last.end <= unit.start
            and not texts[unit.passage_id][last.end : unit.start].strip()
        ):
            runs[-1].append(unit)  # contiguous up to whitespace: one stretch of the passage
        else:
            runs.append([unit])
    parts: list[str] = []
    pieces: list[PremisePiece] = []
    length = 0
    previous: str | None = None
    for run in runs:
        passage_id = run[0].passage_id
        text = texts[passage_id]
        start, end = run[0].start, run[-1].end
        # Trim whitespace at the run's edges; offsets move with it.
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if passage_id != previous:
            lead = ("" if previous is None else _PASSAGE_GAP) + f"[{passage_id}]\n"
        else:
            lead = _SPAN_GAP
        parts.append(lead)
        length += len(lead)
        pieces.append(PremisePiece(passage_id, length, length + end - start, start))
        parts.append(text[start:end])
        length += end - start
        previous = passage_id
    return Premise(
        text="".join(parts), pieces=tuple(pieces), window_index=index, window_count=count
    )
