"""An answer's text read once: its citation markers, list markers and sentences, and which
sentences hold something to check. Claim extraction (stage 2), the coverage check and the
answer screens all read this one reading instead of parsing the answer again.

    reading = read_answer("Refunds take 5 days [S1]. Sure!", known_ids=["S1"])
    reading.sentences, reading.factual  # two sentences; (True, False)
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cached_property

from judge.reading import lexicon
from judge.reading.citations import CitationMarker, code_ranges, parse_citations, remove_markers
from judge.reading.languages import detect
from judge.reading.sentences import (
    LIST_MARKER,
    START,
    Preceding,
    Sentence,
    layout_markers,
    list_marker_spans,
    sentence_body,
    split_with,
)
from judge.reading.words import content_words, is_discourse
from judge.schemas import CharSpan

__all__ = ["AnswerReading", "fact_words", "is_factual", "read_answer"]

_STOCK_PHRASE_RE = re.compile(
    rf"\b(?:{lexicon.alternation(lexicon.phrases('stock_phrases'), any_space=False)})\b",
    re.IGNORECASE,
)
_HEADING_MAX_WORDS = 3
_HEADING_RE = re.compile(r"\s*(?:#{1,6}\s|\*\*[^*]+\*\*:?\s*\Z|__[^_]+__:?\s*\Z)")


@dataclass(frozen=True)
class AnswerReading:
    """The answer text and what was read of it, with exact offsets into it."""

    text: str
    language: str
    markers: tuple[CitationMarker, ...]
    # The list markers that are layout (a bullet, a letter, a number counting the items); a
    # number in a marker's place that counts nothing ("40. The body ...") is a value, kept.
    layout_markers: tuple[CharSpan, ...]
    sentences: tuple[Sentence, ...]

    @cached_property
    def bodies(self) -> tuple[str, ...]:
        """Each sentence's words without citation markers or a leading list marker, blanks
        folded: the text of the claim it becomes."""
        return tuple(
            " ".join(
                sentence_body(
                    self.text, s.span.start, s.span.end, self.markers, self.layout_markers
                ).split()
            )
            for s in self.sentences
        )

    @cached_property
    def factual(self) -> tuple[bool, ...]:
        """Whether each sentence holds something to check (:func:`is_factual`)."""
        return tuple(is_factual(s.text) for s in self.sentences)

    @cached_property
    def fact_words(self) -> tuple[tuple[str, int, int], ...]:
        """The answer's content words that are not the conversation around it, with offsets."""
        return tuple(fact_words(self.text))

    @cached_property
    def unclaimable(self) -> tuple[tuple[int, int], ...]:
        """Stretches no claim has to account for: citation and list markers, and sentences
        that hold nothing to check (headings, pleasantries)."""
        spans = [(m.span.start, m.span.end) for m in self.markers]
        spans += [(s.start, s.end) for s in self.layout_markers]
        spans += [
            (s.span.start, s.span.end)
            for s, factual in zip(self.sentences, self.factual, strict=True)
            if not factual
        ]
        return tuple(spans)


def read_answer(
    text: str,
    *,
    known_ids: Collection[str] | None = None,
    strict: bool = True,
    sentences: Sequence[Sentence] | None = None,
    after: Preceding = START,
) -> AnswerReading:
    """Read ``text`` once. With ``strict`` a malformed citation marker raises
    :class:`judge.errors.InputError`. ``sentences`` are those already cut from ``text`` (a
    stream cuts them as the text arrives); without them the text is split here. ``after`` is
    what precedes ``text`` when it is the rest of a longer text (a stream)."""
    markers = parse_citations(text, known_ids=known_ids, strict=strict)
    code = code_ranges(text)
    language = detect(text)
    list_markers = list_marker_spans(text, line_start=after.line_start)
    layout = layout_markers(text, list_markers, after.item_number)
    if sentences is None:
        sentences = split_with(text, markers, list_markers, language=language, code=code)
    return AnswerReading(text, language, tuple(markers), tuple(layout), tuple(sentences))


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
        return len(fact_words(body)) > _HEADING_MAX_WORDS
    return bool(fact_words(body))


def fact_words(text: str) -> list[tuple[str, int, int]]:
    """The content words of ``text`` that are not the conversation around an answer."""
    return [word for word in content_words(text) if not is_discourse(word[0])]
