"""Sentence claims, structured claims and the coverage check."""

from __future__ import annotations

import pytest

from judge.errors import InputError
from judge.pipeline.claims.extract import claims_from_structured
from judge.pipeline.claims.sentences import coverage, extract_sentence_claims
from judge.reading.answer import is_factual, read_answer
from judge.reading.sentences import split_sentences
from judge.schemas import CharSpan, Claim, ClaimOrigin, StructuredClaim

# --- claims ----------------------------------------------------------------------------


def test_extract_sentence_claims() -> None:
    answer = "Sure! Refunds take 30 days [S1]. Shipping is free. [S2]\n- Returns need a receipt"
    claims = extract_sentence_claims(answer)
    assert [c.id for c in claims] == ["c1", "c2", "c3", "c4"]
    assert [c.text for c in claims] == [
        "Sure!",
        "Refunds take 30 days.",
        "Shipping is free.",
        "Returns need a receipt",
    ]
    assert [c.citations for c in claims] == [(), ("S1",), ("S2",), ()]
    assert [c.sentence_index for c in claims] == [0, 1, 2, 3]
    assert all(c.origin is ClaimOrigin.SENTENCE for c in claims)
    spans = [c.span for c in claims]
    assert all(s is not None for s in spans)
    assert [answer[s.start : s.end] for s in spans if s is not None] == [
        "Sure!",
        "Refunds take 30 days [S1].",
        "Shipping is free. [S2]",
        "- Returns need a receipt",
    ]
    assert [is_factual(c.text) for c in claims] == [False, True, True, True]


def test_extract_collapses_line_breaks_and_keeps_the_list_marker_out() -> None:
    claims = extract_sentence_claims("1. The fee is\n   charged monthly [S1].")
    assert [c.text for c in claims] == ["The fee is charged monthly."]


def test_extract_raises_on_malformed_citation() -> None:
    with pytest.raises(InputError) as caught:
        extract_sentence_claims("Refunds take 30 days [S1, ].")
    assert caught.value.field == "answer"


def test_extract_with_known_ids() -> None:
    claims = extract_sentence_claims("Refunds take 30 days [policy].", known_ids={"policy"})
    assert claims[0].citations == ("policy",)
    assert claims[0].text == "Refunds take 30 days."


def test_answer_of_only_markers_gives_no_claim() -> None:
    assert extract_sentence_claims("[S1]") == []


@pytest.mark.parametrize(
    "text",
    [
        "Sure!",
        "Here is what I found:",
        "I hope this helps.",
        "Let me know if you need anything else.",
        "Feel free to ask!",
        "Don't hesitate to reach out.",
        "Great question!",
        "## Summary",
        "**Overview**",
        "**Refund policy**",
        "[S1]",
        "",
    ],
)
def test_not_factual(text: str) -> None:
    assert not is_factual(text)


@pytest.mark.parametrize(
    "text",
    [
        "Refunds take 30 days.",
        "It is not allowed.",
        "No.",
        "The fee is 5.",
        "Based on the sources, members ship free.",
        "## 2023 results",
        "- Shipping is free [S1]",
    ],
)
def test_factual(text: str) -> None:
    assert is_factual(text)


def test_claims_from_structured() -> None:
    items = [
        StructuredClaim(text="Refunds take 30 days.", chunk_id="S1"),
        StructuredClaim(text="  Shipping\nis free. ", chunk_ids=["S2", "S3"], chunk_id="S2"),
        StructuredClaim(text="Returns are easy."),
    ]
    claims = claims_from_structured(items)
    assert [c.id for c in claims] == ["c1", "c2", "c3"]
    assert [c.text for c in claims] == [
        "Refunds take 30 days.",
        "Shipping is free.",
        "Returns are easy.",
    ]
    assert [c.citations for c in claims] == [("S1",), ("S2", "S3"), ()]
    assert all(c.origin is ClaimOrigin.STRUCTURED and c.span is None for c in claims)


def test_structured_claim_without_text_is_an_input_error() -> None:
    with pytest.raises(InputError) as caught:
        claims_from_structured([StructuredClaim(text="   ")])
    assert caught.value.field == "claims"


# --- words and coverage ----------------------------------------------------------------


# --- words and coverage ----------------------------------------------------------------


def _sentence_claims(answer: str) -> tuple[list[Claim], list[CharSpan]]:
    claims = extract_sentence_claims(answer)
    return claims, [c.span for c in claims if c.span is not None]


def test_sentence_claims_cover_the_whole_answer() -> None:
    answer = "Sure! Refunds take 30 days [S1].\n- Shipping is free"
    claims, _ = _sentence_claims(answer)
    report = coverage(read_answer(answer), claims)
    assert report.complete
    assert report.uncovered_words == []


def test_dropped_sentence_is_reported() -> None:
    answer = "Refunds take 30 days [S1]. Shipping is free. Thanks!"
    claims, _ = _sentence_claims(answer)
    kept = [c for c in claims if c.sentence_index != 1]
    report = coverage(read_answer(answer), kept)
    assert report.uncovered_words == ["Shipping", "free"]
    assert [answer[s.start : s.end] for s in report.uncovered_spans] == ["Shipping", "free"]
    assert [answer[s.start : s.end] for s in report.sentences_without_claims] == [
        "Shipping is free."
    ]
    assert not report.complete


def test_decomposed_claims_cover_by_word_form_within_their_span() -> None:
    answer = "Acme refunds purchases within 30 days and ships for free [S1]."
    parent = extract_sentence_claims(answer)[0]

    def fact(k: int, text: str) -> Claim:
        return Claim(
            id=f"c1.{k}",
            text=text,
            span=parent.span,
            sentence_index=0,
            citations=("S1",),
            origin=ClaimOrigin.DECOMPOSED,
            parent_id="c1",
        )

    complete = [fact(1, "Acme refunded a purchase within 30 days."), fact(2, "Acme ships free.")]
    assert coverage(read_answer(answer), complete).complete

    partial = [fact(1, "Acme refunds purchases within 30 days.")]
    report = coverage(read_answer(answer), partial)
    assert report.uncovered_words == ["ships", "free"]
    assert report.sentences_without_claims == []


def test_decomposed_claim_does_not_cover_words_outside_its_span() -> None:
    answer = "Acme ships for free. Beta ships for free."
    sentences = split_sentences(answer)
    first = sentences[0].span
    only_first = [
        Claim(
            id="c1.1",
            text="Acme ships for free.",
            span=first,
            sentence_index=0,
            origin=ClaimOrigin.DECOMPOSED,
            parent_id="c1",
        )
    ]
    report = coverage(read_answer(answer), only_first)
    assert report.uncovered_words == ["Beta", "ships", "free"]
    assert [answer[s.start : s.end] for s in report.sentences_without_claims] == [
        "Beta ships for free."
    ]


def test_conclusion_claims_cover_nothing() -> None:
    answer = "Acme ships for free."
    conclusion = Claim(id="conclusion", text="Acme ships for free.", origin=ClaimOrigin.CONCLUSION)
    report = coverage(read_answer(answer), [conclusion])
    assert report.uncovered_words == ["Acme", "ships", "free"]


def test_coverage_ignores_markers_and_headings() -> None:
    answer = "## Summary\n1. Acme ships free [S12]."
    sentences = split_sentences(answer)
    fact = Claim(
        id="c2.1",
        text="Acme ships free.",
        span=sentences[1].span,
        sentence_index=1,
        origin=ClaimOrigin.DECOMPOSED,
        parent_id="c2",
    )
    assert coverage(read_answer(answer), [fact]).complete
