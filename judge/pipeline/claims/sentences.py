"""Claims from an answer's sentences: the one-claim-per-sentence baseline, and the coverage
check, all over the answer's one reading (:mod:`judge.reading.answer`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from judge.reading.answer import AnswerReading, read_answer
from judge.reading.sentences import START, Preceding, Sentence
from judge.reading.words import word_form, words
from judge.schemas import CharSpan, Claim, ClaimOrigin, CoverageReport

__all__ = [
    "coverage",
    "extract_sentence_claims",
    "sentence_claims",
    "split_answer",
]


def extract_sentence_claims(
    answer: str, *, known_ids: Collection[str] | None = None
) -> list[Claim]:
    """One claim per sentence of ``answer``: text without citations, span, cited ids.

    Raises :class:`judge.errors.InputError` on a malformed citation. Sentences without
    content ("Sure!") become claims too; :func:`judge.reading.answer.is_factual` tells them
    apart.
    """
    return sentence_claims(read_answer(answer, known_ids=known_ids))


def split_answer(
    answer: str,
    *,
    known_ids: Collection[str] | None = None,
    after: Preceding = START,
) -> tuple[list[Sentence], list[Claim]]:
    """The sentences of ``answer`` and the one-claim-per-sentence baseline, from one reading.
    ``after``: what precedes ``answer`` when it is the rest of a longer text (a stream).

    Raises :class:`judge.errors.InputError` on a malformed citation."""
    reading = read_answer(answer, known_ids=known_ids, after=after)
    return list(reading.sentences), sentence_claims(reading)


def sentence_claims(reading: AnswerReading) -> list[Claim]:
    """One claim per sentence of the answer that holds any words besides its markers."""
    claims: list[Claim] = []
    for index, (sentence, body) in enumerate(zip(reading.sentences, reading.bodies, strict=True)):
        if not body:
            continue  # an answer of nothing but markers
        claims.append(
            Claim(
                id=f"c{len(claims) + 1}",
                text=body,
                span=sentence.span,
                sentence_index=index,
                citations=sentence.citations,
                origin=ClaimOrigin.SENTENCE,
            )
        )
    return claims


# --- coverage --------------------------------------------------------------------------


def coverage(reading: AnswerReading, claims: Sequence[Claim]) -> CoverageReport:
    """Which content of the answer no claim accounts for.

    A content word (citation markers and list markers aside) is covered by a claim whose span
    holds it, or, for decomposed claims and claims without a span, by a claim whose text holds
    the same word form; a decomposed claim with a span only covers words inside that span.
    A conclusion claim covers nothing: it restates the whole answer. Words of non-factual
    sentences (headings) are not counted. A factual sentence with no claim (by
    ``sentence_index`` or by span) is reported as well.
    """
    excluded = reading.unclaimable
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
    for word, start, end in reading.fact_words:
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
    for index, (sentence, factual) in enumerate(
        zip(reading.sentences, reading.factual, strict=True)
    ):
        if index in claimed or not factual:
            continue
        s = sentence.span
        if not any(span.start < s.end and s.start < span.end for span in spans):
            report.sentences_without_claims.append(s)
    return report
