"""Sentence splitting, sentence claims, structured claims and the coverage check."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.errors import InputError
from judge.pipeline.claims.sentences import (
    claims_from_structured,
    content_words,
    coverage,
    extract_sentence_claims,
    is_factual,
    split_sentences,
    word_form,
)
from judge.schemas import CharSpan, Claim, ClaimOrigin, StructuredClaim


def _texts(text: str) -> list[str]:
    sentences = split_sentences(text)
    for sentence in sentences:
        assert text[sentence.span.start : sentence.span.end] == sentence.text
    return [s.text for s in sentences]


# --- splitting -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Dr. Lee joined Acme Inc. in 2019. She leads sales.",
            ["Dr. Lee joined Acme Inc. in 2019.", "She leads sales."],
        ),
        (
            "Use a ladder, e.g. an aluminium one, i.e. light. Then climb.",
            ["Use a ladder, e.g. an aluminium one, i.e. light.", "Then climb."],
        ),
        (
            "The Bears vs. the Lions ended 3 to 1. Fans cheered.",
            ["The Bears vs. the Lions ended 3 to 1.", "Fans cheered."],
        ),
        (
            "Bring pens, paper, etc. The exam starts at nine.",
            ["Bring pens, paper, etc.", "The exam starts at nine."],
        ),
        (
            "The U.S. Senate voted. It passed in the U.S. The law is new.",
            ["The U.S. Senate voted.", "It passed in the U.S.", "The law is new."],
        ),
        (
            "Item No. 7 is out of stock. See Fig. 2 for details.",
            ["Item No. 7 is out of stock.", "See Fig. 2 for details."],
        ),
        (
            "The answer is No. The form was filed in Jan. 2020.",
            ["The answer is No.", "The form was filed in Jan. 2020."],
        ),
        (
            "Smith et al. found it. The airline El Al. Flights resumed.",
            ["Smith et al. found it.", "The airline El Al.", "Flights resumed."],
        ),
        (
            "See web.example.org. Pages load fast.",
            ["See web.example.org.", "Pages load fast."],
        ),
        (
            "J. R. R. Tolkien wrote it. It sold well.",
            ["J. R. R. Tolkien wrote it.", "It sold well."],
        ),
    ],
)
def test_abbreviations(text: str, expected: list[str]) -> None:
    assert _texts(text) == expected


def test_decimals_and_versions_do_not_split() -> None:
    text = "The rate rose 3.5% to 4.25 points. Version v4.2.1 fixed it. Visit example.com now."
    assert _texts(text) == [
        "The rate rose 3.5% to 4.25 points.",
        "Version v4.2.1 fixed it.",
        "Visit example.com now.",
    ]


def test_quotes() -> None:
    assert _texts("He said 'Stop.' Then he left.") == ["He said 'Stop.'", "Then he left."]
    assert _texts('She said "Wait. Not yet." and sat down. Later she left.') == [
        'She said "Wait. Not yet." and sat down.',
        "Later she left.",
    ]
    assert _texts("The sign read “Closed. Back soon.” We waited.") == [
        "The sign read “Closed. Back soon.”",
        "We waited.",
    ]
    assert _texts("Don't panic. It's fine.") == ["Don't panic.", "It's fine."]


def test_other_terminators() -> None:
    assert _texts("Really?! Yes. Wait... what happened? Nothing!") == [
        "Really?!",
        "Yes.",
        "Wait... what happened?",
        "Nothing!",
    ]
    assert _texts("Yahoo! is a portal. It is old.") == ["Yahoo! is a portal.", "It is old."]


def test_list_items_are_their_own_sentences() -> None:
    text = (
        "Here is what I found:\n- Refunds take 30 days\n* Shipping is free. Returns are easy.\n"
        "1. First step\n2) Second step\n  + nested item"
    )
    assert _texts(text) == [
        "Here is what I found:",
        "- Refunds take 30 days",
        "* Shipping is free.",
        "Returns are easy.",
        "1. First step",
        "2) Second step",
        "+ nested item",
    ]


def test_lower_case_list_items_still_split() -> None:
    assert _texts("Options:\n- refunds within 30 days\n- store credit") == [
        "Options:",
        "- refunds within 30 days",
        "- store credit",
    ]


def test_letter_list_items_split() -> None:
    assert _texts("a) refunds within 30 days\nb) store credit") == [
        "a) refunds within 30 days",
        "b) store credit",
    ]


def test_closing_quote_after_an_abbreviation_ends_the_sentence() -> None:
    assert _texts('The label read "Made in the U.S." Buyers liked it.') == [
        'The label read "Made in the U.S."',
        "Buyers liked it.",
    ]


def test_line_breaks() -> None:
    text = "The policy allows\nreturns within 30 days.\n\n## Summary\nRefunds are fast"
    assert _texts(text) == [
        "The policy allows\nreturns within 30 days.",
        "## Summary",
        "Refunds are fast",
    ]


def test_citations_attach_to_the_sentence_they_follow() -> None:
    text = "Refunds take 30 days. [S1] Shipping is free [S2]. Returns are easy.[S3][S4] Done."
    sentences = split_sentences(text)
    assert [(s.text, s.citations) for s in sentences] == [
        ("Refunds take 30 days. [S1]", ("S1",)),
        ("Shipping is free [S2].", ("S2",)),
        ("Returns are easy.[S3][S4]", ("S3", "S4")),
        ("Done.", ()),
    ]


def test_citations_on_their_own_line_join_the_sentence_before() -> None:
    sentences = split_sentences("Refunds take 30 days.\n[S1]\nShipping is free.")
    assert [(s.text, s.citations) for s in sentences] == [
        ("Refunds take 30 days.\n[S1]", ("S1",)),
        ("Shipping is free.", ()),
    ]


def test_citation_opening_the_next_line_is_its_own() -> None:
    sentences = split_sentences("Refunds take 30 days.\n[S2] Shipping is free.")
    assert [s.citations for s in sentences] == [(), ("S2",)]


def test_citation_followed_by_lower_case_does_not_split() -> None:
    assert _texts("Refunds are allowed. [S1] and then shipped.") == [
        "Refunds are allowed. [S1] and then shipped."
    ]


def test_cjk_terminators_split_without_spaces() -> None:
    assert _texts("价格上涨了。然后下降了。") == ["价格上涨了。", "然后下降了。"]


def test_split_rejects_malformed_citations_unless_lenient() -> None:
    with pytest.raises(InputError):
        split_sentences("Refunds take 30 days [S1;S2].")
    assert [s.citations for s in split_sentences("A [S1;S2]. B [S3].", strict=False)] == [
        (),
        ("S3",),
    ]


def test_empty_text() -> None:
    assert split_sentences("") == []
    assert split_sentences("  \n ") == []


_ALPHABET = st.sampled_from(
    [*"abcXY 12.,!?;:'\"“”()-*#\n\t", "[S1]", "[S2, S3]", " e.g. ", "Dr. ", "3.5", "\n- "]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_ALPHABET, max_size=40).map("".join))
def test_sentence_spans_partition_the_text(text: str) -> None:
    with contextlib.suppress(InputError):  # strict parsing may reject a marker, nothing else
        split_sentences(text)
    sentences = split_sentences(text, strict=False)
    covered = bytearray(len(text))
    previous_end = 0
    for sentence in sentences:
        span = sentence.span
        assert previous_end <= span.start < span.end
        assert text[span.start : span.end] == sentence.text
        assert sentence.text == sentence.text.strip()
        covered[span.start : span.end] = b"\x01" * (span.end - span.start)
        previous_end = span.end
    assert all(covered[i] for i, ch in enumerate(text) if not ch.isspace())


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


def test_word_forms() -> None:
    assert word_form("Refunds") == word_form("refunded") == word_form("refund")
    assert word_form("policies") == word_form("policy")
    assert word_form("used") == word_form("uses") == word_form("use")
    assert word_form("don't") == "not"
    assert word_form("1,000") == "1000"
    assert word_form("3.5") == "3.5"
    assert word_form("Acme's") == word_form("acme")
    # Irregular verbs: the past forms read as the base form; nouns that are also past forms
    # ("left", "found") keep their own.
    assert word_form("met") == word_form("meets") == word_form("meeting")
    assert word_form("rose") == word_form("rising") and word_form("won") == word_form("wins")
    assert word_form("left") != word_form("leave") and word_form("found") != word_form("find")


def test_content_words_skip_function_and_conversation_words() -> None:
    found = [w for w, _, _ in content_words("Sure, here is the fee: it is not $1,000 [S1].")]
    assert found == ["fee", "not", "1,000", "S1"]


def _sentence_claims(answer: str) -> tuple[list[Claim], list[CharSpan]]:
    claims = extract_sentence_claims(answer)
    return claims, [c.span for c in claims if c.span is not None]


def test_sentence_claims_cover_the_whole_answer() -> None:
    answer = "Sure! Refunds take 30 days [S1].\n- Shipping is free"
    claims, _ = _sentence_claims(answer)
    report = coverage(answer, claims, split_sentences(answer))
    assert report.complete
    assert report.uncovered_words == []


def test_dropped_sentence_is_reported() -> None:
    answer = "Refunds take 30 days [S1]. Shipping is free. Thanks!"
    claims, _ = _sentence_claims(answer)
    kept = [c for c in claims if c.sentence_index != 1]
    report = coverage(answer, kept, split_sentences(answer))
    assert report.uncovered_words == ["Shipping", "free"]
    assert [answer[s.start : s.end] for s in report.uncovered_spans] == ["Shipping", "free"]
    assert [answer[s.start : s.end] for s in report.sentences_without_claims] == [
        "Shipping is free."
    ]
    assert not report.complete


def test_decomposed_claims_cover_by_word_form_within_their_span() -> None:
    answer = "Acme refunds purchases within 30 days and ships for free [S1]."
    sentences = split_sentences(answer)
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
    assert coverage(answer, complete, sentences).complete

    partial = [fact(1, "Acme refunds purchases within 30 days.")]
    report = coverage(answer, partial, sentences)
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
    report = coverage(answer, only_first, sentences)
    assert report.uncovered_words == ["Beta", "ships", "free"]
    assert [answer[s.start : s.end] for s in report.sentences_without_claims] == [
        "Beta ships for free."
    ]


def test_conclusion_claims_cover_nothing() -> None:
    answer = "Acme ships for free."
    conclusion = Claim(id="conclusion", text="Acme ships for free.", origin=ClaimOrigin.CONCLUSION)
    report = coverage(answer, [conclusion], split_sentences(answer))
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
    assert coverage(answer, [fact], sentences).complete
