"""Inline citation parsing: formats, prose brackets, malformed markers."""

from __future__ import annotations

import pytest

from judge.errors import InputError
from judge.reading.citations import parse_citations, remove_markers, strip_citations


def _ids(text: str, **kwargs: object) -> list[tuple[str, ...]]:
    return [m.ids for m in parse_citations(text, **kwargs)]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Refunds take 30 days [S1].", [("S1",)]),
        ("Refunds take 30 days [S1, S3].", [("S1", "S3")]),
        ("Refunds take 30 days [S1,S3].", [("S1", "S3")]),
        ("Refunds take 30 days [S1][S2].", [("S1",), ("S2",)]),
        ("See [doc7#3] and [s0-0].", [("doc7#3",), ("s0-0",)]),
        ("Numbered style [1] works [2, 3].", [("1",), ("2", "3")]),
        ("Repeated ids [S1, S1] count once.", [("S1",)]),
        ("Padded [ S1 ] is read.", [("S1",)]),
    ],
)
def test_citation_formats(text: str, expected: list[tuple[str, ...]]) -> None:
    assert _ids(text) == expected


def test_marker_spans_point_at_the_brackets() -> None:
    text = "Fee is $5 [S1]. Tax [S2, S3] applies."
    markers = parse_citations(text)
    assert [text[m.span.start : m.span.end] for m in markers] == ["[S1]", "[S2, S3]"]


@pytest.mark.parametrize(
    "text",
    [
        "He wrote 'teh' [sic] in the memo.",
        "The value is missing [citation needed].",
        "As shown [Figure 3], sales grew.",
        "A [link](http://example.com/a1) and [v2](http://example.com).",
        "- [ ] open task\n- [x] done task",
        "The range [0, 1) is half open.",
        "Index it as `rows[0]` or `x[S1;S2]`.",
        "```\nvalues[i, j] = [1; 2]\n```",
        "No brackets at all.",
    ],
)
def test_prose_brackets_are_not_citations_and_not_errors(text: str) -> None:
    assert parse_citations(text) == []


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ("Refunds take 30 days [S1;S2].", 21),
        ("Refunds take 30 days [S1; S2].", 21),
        ("Refunds take 30 days [ ].", 21),
        ("Refunds take 30 days [].", 21),
        ("Refunds take 30 days [S1, ].", 21),
        ("Refunds take 30 days [,S1].", 21),
        ("Refunds take 30 days [S1 S2].", 21),
        ("Refunds take 30 days [S1.", 21),
        ("Refunds take 30 days [S1, S2. Then more.", 21),
        ("Refunds take 30 days S1].", 23),
        ("Refunds take 30 days [S1][see above].", 25),
    ],
)
def test_malformed_citations_raise_with_position(text: str, position: int) -> None:
    with pytest.raises(InputError) as caught:
        parse_citations(text)
    assert caught.value.field == "answer"
    assert f"character {position}" in str(caught.value)


def test_lenient_mode_skips_malformed_markers() -> None:
    text = "Good [S1]. Bad [S2;S3]. Open [S4"
    assert _ids(text, strict=False) == [("S1",)]


def test_known_ids_without_digits_are_citations() -> None:
    text = "The policy [intro] says so [faq, terms]."
    assert _ids(text) == []
    assert _ids(text, known_ids={"intro", "faq", "terms"}) == [("intro",), ("faq", "terms")]


def test_a_group_touching_a_citation_is_a_citation() -> None:
    assert _ids("Stated [S1][intro].") == [("S1",), ("intro",)]
    assert _ids("Stated [intro][S1].") == [("intro",), ("S1",)]


def test_strip_citations_tidies_spaces() -> None:
    assert strip_citations("The policy allows refunds [S1].") == "The policy allows refunds."
    assert strip_citations("The policy. [S1] Next one [S2][S3].") == "The policy. Next one."
    assert strip_citations("Fee [S1] is $5.") == "Fee is $5."
    assert strip_citations("[S1] [S2] Opening marker.\n[S3] Second line.") == (
        "Opening marker.\nSecond line."
    )
    assert strip_citations("He wrote [sic] here.") == "He wrote [sic] here."


def test_strip_citations_raises_on_malformed() -> None:
    with pytest.raises(InputError):
        strip_citations("Broken [S1;S2].")


def test_remove_markers_with_offset() -> None:
    answer = "First part. Second part [S2]."
    markers = parse_citations(answer)
    sentence_start = answer.index("Second")
    assert remove_markers(answer[sentence_start:], markers, offset=sentence_start) == (
        "Second part."
    )
