"""Sentence splitting with exact offsets."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.errors import InputError
from judge.reading.sentences import split_sentences


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
