"""Claims from an answer's sentences: the one-claim-per-sentence baseline, structured claims,
and the coverage check. The sentences themselves are split by :mod:`judge.reading.sentences`.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from judge.errors import InputError
from judge.reading.sentences import (
    LIST_MARKER,
    Preceding,
    Sentence,
    layout_markers,
    list_marker_spans,
    sentence_body,
    split_with,
)
from judge.reading.words import content_words, is_discourse, word_form, words
from judge.schemas import CharSpan, Claim, ClaimOrigin, CoverageReport, StructuredClaim
from judge.text.citations import parse_citations, remove_markers

__all__ = [
    "claims_from_structured",
    "coverage",
    "extract_sentence_claims",
    "is_factual",
    "split_answer",
]

# --- claims ----------------------------------------------------------------------------

START = Preceding()  # a text split from its beginning

_STOCK_PHRASE_RE = re.compile(
    r"\b(?:feel free|do not hesitate|don't hesitate|reach out|happy to help|glad to help)\b",
    re.IGNORECASE,
)
_HEADING_MAX_WORDS = 3
_HEADING_RE = re.compile(r"\s*(?:#{1,6}\s|\*\*[^*]+\*\*:?\s*\Z|__[^_]+__:?\s*\Z)")


def is_factual(text: str) -> bool:
    """Whether ``text`` holds something to check: at least one content word.

    Stock phrases ("feel free to ask", "let me know") are not content. Markdown headings and
    lines that are only bold (``## Results``, ``**Summary**``) are structure, not claims,
    unless they hold a number.
    """
    body = remove_markers(text, parse_citations(text, strict=False))
    body = _STOCK_PHRASE_RE.sub(" ", body)
    marker = LIST_MARKER.match(body)
    if marker is not None and layout_markers(body, [CharSpan(start=0, end=marker.end())]):
        body = body[marker.end() :]  # a marker that is layout; "40. ..." states a value
    if _HEADING_RE.match(body) and not any(ch.isdigit() for ch in body):
        # "## Results" is structure; "## Opened items get a full refund" states a fact.
        return len(_fact_words(body)) > _HEADING_MAX_WORDS
    return bool(_fact_words(body))


def _fact_words(text: str) -> list[tuple[str, int, int]]:
    """The content words of ``text`` that are not the conversation around an answer."""
    return [word for word in content_words(text) if not is_discourse(word[0])]


def extract_sentence_claims(
    answer: str, *, known_ids: Collection[str] | None = None
) -> list[Claim]:
    """One claim per sentence of ``answer``: text without citations, span, cited ids.

    Raises :class:`judge.errors.InputError` on a malformed citation. Sentences without
    content ("Sure!") become claims too; :func:`is_factual` tells them apart.
    """
    return split_answer(answer, known_ids=known_ids)[1]


def split_answer(
    answer: str,
    *,
    known_ids: Collection[str] | None = None,
    after: Preceding = START,
) -> tuple[list[Sentence], list[Claim]]:
    """The sentences of ``answer`` and the one-claim-per-sentence baseline, from one split.
    ``after``: what precedes ``answer`` when it is the rest of a longer text (a stream).

    Raises :class:`judge.errors.InputError` on a malformed citation."""
    markers = parse_citations(answer, known_ids=known_ids, strict=True)
    list_markers = list_marker_spans(answer, line_start=after.line_start)
    layout = layout_markers(answer, list_markers, after.item_number)
    sentences = split_with(answer, markers, list_markers)
    claims: list[Claim] = []
    for index, sentence in enumerate(sentences):
        span = sentence.span
        body = sentence_body(answer, span.start, span.end, markers, layout)
        claim_text = " ".join(body.split())
        if not claim_text:
            continue  # an answer of nothing but markers
        claims.append(
            Claim(
                id=f"c{len(claims) + 1}",
                text=claim_text,
                span=span,
                sentence_index=index,
                citations=sentence.citations,
                origin=ClaimOrigin.SENTENCE,
            )
        )
    return sentences, claims


def claims_from_structured(items: Sequence[StructuredClaim]) -> list[Claim]:
    """Claims given by the caller, with the chunk ids each one cites."""
    claims: list[Claim] = []
    for index, item in enumerate(items):
        text = " ".join(item.text.split())
        if not text:
            raise InputError(f"claim {index} has no text", field="claims")
        claims.append(
            Claim(
                id=f"c{index + 1}",
                text=text,
                citations=tuple(item.cited_ids),
                origin=ClaimOrigin.STRUCTURED,
            )
        )
    return claims


# --- coverage --------------------------------------------------------------------------


def coverage(answer: str, claims: Sequence[Claim], sentences: Sequence[Sentence]) -> CoverageReport:
    """Which content of ``answer`` no claim accounts for.

    A content word (citation markers and list markers aside) is covered by a claim whose span
    holds it, or, for decomposed claims and claims without a span, by a claim whose text holds
    the same word form; a decomposed claim with a span only covers words inside that span.
    A conclusion claim covers nothing: it restates the whole answer. Words of non-factual
    sentences (headings) are not counted. A factual sentence with no claim (by
    ``sentence_index`` or by span) is reported as well.
    """
    excluded = [(m.span.start, m.span.end) for m in parse_citations(answer, strict=False)]
    excluded += [(s.start, s.end) for s in layout_markers(answer, list_marker_spans(answer))]
    excluded += [(s.span.start, s.span.end) for s in sentences if not is_factual(s.text)]
    by_span: list[CharSpan] = []
    by_words: list[tuple[CharSpan | None, frozenset[str]]] = []
    for claim in claims:
        if claim.origin is ClaimOrigin.CONCLUSION:
            continue  # it restates the answer as a whole, so it would cover anything
        if claim.span is not None and claim.origin is not ClaimOrigin.DECOMPOSED:
            by_span.append(claim.span)
        else:
            forms = frozenset(word_form(w) for w, _, _ in words(claim.text))
            by_words.append((claim.span, forms))

    report = CoverageReport()
    for word, start, end in _fact_words(answer):
        if any(s <= start < e for s, e in excluded):
            continue
        if any(span.start <= start and end <= span.end for span in by_span):
            continue
        form = word_form(word)
        if any(
            form in forms and (span is None or (span.start <= start and end <= span.end))
            for span, forms in by_words
        ):
            continue
        report.uncovered_words.append(word)
        report.uncovered_spans.append(CharSpan(start=start, end=end))

    claimed = {c.sentence_index for c in claims if c.sentence_index is not None}
    spans = [c.span for c in claims if c.span is not None]
    for index, sentence in enumerate(sentences):
        if index in claimed or not is_factual(sentence.text):
            continue
        s = sentence.span
        if not any(span.start < s.end and s.start < span.end for span in spans):
            report.sentences_without_claims.append(s)
    return report
