"""Sentence splitting with exact offsets, shared by claim extraction, evidence selection and
the exact checks.

The splitter is a rule-based scanner that keeps exact offsets into the text it splits:

* A sentence ends after ``.``, ``!``, ``?`` or ``…`` (and any closing quotes or brackets
  right after them) when blank space follows and the next word does not start lower-case.
* Decimals and versions (``3.5``, ``v4.2.1``) never end one: no blank space follows the dot.
* A dot after a known abbreviation does not end a sentence (``lexicon/<language>/abbreviations``,
  English's and the text's language's): titles and Latin forms never (``Dr.``, ``e.g.``,
  ``z. B.``), reference forms before a number (``No. 5``, ``Fig. 2``), and company, month,
  initial and dotted forms (``Inc.``, ``Jan.``, ``J.``, ``U.S.``) only when the next word is a
  usual sentence opener (``The``, ``It``...).
* A dot after a day's number before a month's name (``am 3. Mai``) writes an ordinal.
* Inside a quotation or a parenthesis (paired on one line) no sentence ends: ``He said "Stop.
  Now." and left`` is one sentence, while ``He said 'Stop.' Then he left.`` is two, split
  after the quote.
* Citation markers after the full stop on the same line (``policy. [S1]``) belong to the
  sentence before them, and end it even after an abbreviation (``inkl. MwSt. [S1] Der``), as
  do markers before it (``policy [S1].``).
* A line break ends a sentence unless the next line continues in lower case; list items
  (``- x``, ``* x``, ``1. x``, ``a) x``) always start a new sentence, and their marker is
  part of the item's first sentence span but not of its claim text. A number in a marker's
  place counts the items only when it is 1 or one more than the item number before it; any
  other number there (``40. The body ...``) is a value the sentence states, and stays in its
  claim text (:func:`layout_markers`).
* A piece holding nothing but markers (a line with only ``[S1]``) joins the sentence before.

Sentence spans never overlap and together cover every non-blank character of the text.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache

from judge.reading import lexicon
from judge.reading.citations import CitationMarker, code_ranges, parse_citations, remove_markers
from judge.reading.languages import UNDETERMINED, conventions, detect
from judge.schemas import CharSpan

__all__ = [
    "LIST_MARKER",
    "Preceding",
    "Sentence",
    "counts_items",
    "enumerator_spans",
    "layout_markers",
    "list_marker_spans",
    "markers_within",
    "open_enclosure",
    "preceding",
    "sentence_body",
    "split_sentences",
    "split_with",
]


@dataclass(frozen=True)
class Sentence:
    """A sentence of a text: its exact text, where it stands, and the ids it cites."""

    text: str
    span: CharSpan
    citations: tuple[str, ...] = ()


_TERMINATORS = ".!?…"
_CJK_TERMINATORS = "。！？"
_ALL_TERMINATORS = _TERMINATORS + _CJK_TERMINATORS
_CLOSERS = "\"'”’)»"
LIST_MARKER = re.compile(r"[ \t]*(?:[-*+•‣◦▪]|\d{1,3}[.)]|\(?[A-Za-z]\))[ \t]+(?=\S)")
_ITEM_NUMBER = re.compile(r"[ \t]*(\d{1,3})[.)]")
# An item number left at the end of a sentence cut from an inline list: "such as: 1."
_TRAILING_ITEM_NUMBER = re.compile(r"(?<=[:.!?])\s+(\d{1,3})\.\s*\Z")
_ABBREV_RE = re.compile(r"(?<![^\W_])(?<!\.)((?:[^\W\d_]+\.)*[^\W\d_]+)\Z")
_NEXT_WORD_RE = re.compile(r"[^\W_]+")
# A day's number before its dot: one or two digits standing alone.
_DAY_NUMBER = re.compile(r"(?<![\d.,])[0-3]?\d\Z")
_GROUPS = ("always", "before_number", "may_end", "sentence_opener")


@dataclass(frozen=True)
class _Abbreviations:
    groups: dict[str, frozenset[str]]
    spaced: re.Pattern[str] | None  # the forms of several dotted parts ("z. B.", "p. ex.")
    months: frozenset[str]


@lru_cache(maxsize=16)
def _abbreviations(language: str) -> _Abbreviations:
    """The splitter's word lists by group (always, before_number, may_end, sentence_opener),
    English's with those of ``language``; and the language's month names."""
    languages = ["en"] + (
        [language] if language != "en" and lexicon.has("abbreviations", language) else []
    )
    groups = {
        name: frozenset(
            word.replace(" ", "")
            for code in languages
            for word in lexicon.words("abbreviations", code, name=name)
        )
        for name in _GROUPS
    }
    dotted = sorted((w for w in groups["always"] if "." in w), key=len, reverse=True)
    spaced = (
        re.compile(
            "|".join(
                r"(?<!\w)" + r"\.\s?".join(map(re.escape, w.split("."))) + r"\." for w in dotted
            ),
            re.IGNORECASE,
        )
        if dotted
        else None
    )
    months = frozenset(conventions(language).months) if language != "en" else frozenset()
    return _Abbreviations(groups, spaced, months)


def _spaced(abbreviation: str) -> str:
    """A dotted abbreviation with a space or none after each inner dot ("z. B" for "z.b")."""
    return r"\.\s?".join(re.escape(part) for part in abbreviation.split("."))


def split_sentences(
    text: str,
    *,
    known_ids: Collection[str] | None = None,
    strict: bool = True,
    language: str | None = None,
) -> list[Sentence]:
    """Split ``text`` into sentences with exact offsets (``text[span.start:span.end]``), by
    the abbreviations of ``language`` (detected from the text when not given).

    Citation markers are parsed with :func:`judge.reading.citations.parse_citations`; with
    ``strict=True`` a malformed marker raises :class:`judge.errors.InputError`.
    """
    markers = parse_citations(text, known_ids=known_ids, strict=strict)
    return split_with(
        text,
        markers,
        list_marker_spans(text),
        language=language or detect(text),
        code=code_ranges(text),
    )


@dataclass(frozen=True)
class Preceding:
    """What comes before a text split on its own (a stream splits the text after its last
    cut): whether the text starts a line, and the number of the last list item before it."""

    line_start: bool = True
    item_number: int | None = None


START = Preceding()  # a text split from its beginning


def preceding(text: str) -> Preceding:
    """What ``text`` leaves for the text that follows it."""
    return Preceding(
        line_start=not text or text.endswith("\n"),
        item_number=_last_item_number(text, list_marker_spans(text), None),
    )


def list_marker_spans(text: str, *, line_start: bool = True) -> list[CharSpan]:
    """Spans of list-item markers (``- ``, ``1. ``, ``a) ``) at line starts, blanks included.
    ``line_start=False``: ``text`` begins in the middle of a line, so not with a marker."""
    spans: list[CharSpan] = []
    for start in _line_starts(text):
        if start == 0 and not line_start:
            continue
        match = LIST_MARKER.match(text, start)
        if match is not None:
            spans.append(CharSpan(start=start, end=match.end()))
    return spans


def counts_items(number: int, previous: int | None) -> bool:
    """Whether a number in a list marker's place counts the items (1, or one more than the
    item number before it) rather than states a value."""
    return number == 1 or (previous is not None and number == previous + 1)


def layout_markers(
    text: str, list_markers: Sequence[CharSpan], item_number: int | None = None
) -> list[CharSpan]:
    """The list markers that are layout (bullets, letters, numbers that count the items),
    leaving out those whose number is a value; ``item_number`` is the last item number
    before ``text``."""
    layout: list[CharSpan] = []
    previous = item_number
    for span in list_markers:
        number = _ITEM_NUMBER.match(text, span.start, span.end)
        if number is not None:
            value = int(number.group(1))
            if not counts_items(value, previous):
                continue
            previous = value
        layout.append(span)
    return layout


def enumerator_spans(text: str) -> list[tuple[int, int]]:
    """The item numbers of ``text`` that count a list (with their dot or bracket), at line
    starts and at the end of a sentence cut from an inline list (``such as: 1.``): layout,
    not values."""
    found: list[tuple[int, int]] = []
    previous: int | None = None
    for span in list_marker_spans(text):
        number = _ITEM_NUMBER.match(text, span.start, span.end)
        if number is not None and counts_items(int(number.group(1)), previous):
            previous = int(number.group(1))
            found.append((number.start(1), number.end()))
    trailing = _TRAILING_ITEM_NUMBER.search(text)
    if trailing is not None and counts_items(int(trailing.group(1)), previous):
        found.append((trailing.start(1), trailing.end()))
    return found


def _last_item_number(
    text: str, list_markers: Sequence[CharSpan], item_number: int | None
) -> int | None:
    for span in layout_markers(text, list_markers, item_number):
        number = _ITEM_NUMBER.match(text, span.start, span.end)
        if number is not None:
            item_number = int(number.group(1))
    return item_number


def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer(r"\n", text)]


def split_with(
    text: str,
    markers: Sequence[CitationMarker],
    list_markers: Sequence[CharSpan],
    *,
    language: str,
    code: Sequence[tuple[int, int]],
) -> list[Sentence]:
    """The sentences of ``text`` with what was already read of it: its citation and list
    markers, its ``language`` (whose abbreviations do not end a sentence) and its stretches of
    ``code`` (where no sentence ends)."""
    abbreviations = _abbreviations("en" if language == UNDETERMINED else language)
    blocked = bytearray(len(text))  # 1 where a dot cannot end a sentence
    for start, end in [(m.span.start, m.span.end) for m in markers] + list(code):
        blocked[start:end] = b"\x01" * (end - start)
    for span in list_markers:
        blocked[span.start : span.end] = b"\x01" * (span.end - span.start)
    marker_at = {m.span.start: m.span.end for m in markers}
    quoted = bytearray(len(text) + 1)  # 1 where a cut would fall inside a quotation
    for open_, close in _quote_ranges(text) + _bracket_ranges(text):
        quoted[open_ + 1 : close + 1] = b"\x01" * (close - open_)

    cuts: list[tuple[int, int]] = []  # (end of one sentence, start of the next)
    for block_start, block_end in _blocks(text, list_markers):
        cuts.extend(
            _cuts_in_block(text, block_start, block_end, blocked, marker_at, quoted, abbreviations)
        )
        cuts.append((block_end, block_end))

    pieces: list[tuple[int, int]] = []
    start = 0
    for end, next_start in cuts:
        piece = _trim(text, start, end)
        if piece is not None:
            pieces.append(piece)
        start = next_start
    pieces = _merge_empty(text, pieces, markers, list_markers)
    return [
        Sentence(
            text=text[s:e],
            span=CharSpan(start=s, end=e),
            citations=_ids_within(markers, s, e),
        )
        for s, e in pieces
    ]


def _blocks(text: str, list_markers: Sequence[CharSpan]) -> list[tuple[int, int]]:
    """Runs of lines that may hold one sentence across a line break."""
    item_starts = {span.start for span in list_markers}
    starts = _line_starts(text)
    lines = [
        (start, (starts[i + 1] - 1) if i + 1 < len(starts) else len(text))
        for i, start in enumerate(starts)
    ]
    blocks: list[tuple[int, int]] = []
    block_start = 0
    for (prev_start, prev_end), (start, end) in itertools.pairwise(lines):
        stripped = text[start:end].lstrip()
        continues = (
            bool(text[prev_start:prev_end].strip())
            and bool(stripped)
            and stripped[0].islower()
            and start not in item_starts
        )
        if not continues:
            blocks.append((block_start, prev_end))
            block_start = start
    blocks.append((block_start, len(text)))
    return blocks


def _cuts_in_block(
    text: str,
    start: int,
    end: int,
    blocked: bytearray,
    marker_at: dict[int, int],
    quoted: bytearray,
    abbreviations: _Abbreviations,
) -> list[tuple[int, int]]:
    cuts: list[tuple[int, int]] = []
    pos = start
    while pos < end:
        if blocked[pos] or text[pos] not in _ALL_TERMINATORS:
            pos += 1
            continue
        run_end = pos
        while run_end < end and text[run_end] in _ALL_TERMINATORS:
            run_end += 1
        while run_end < end and text[run_end] in _CLOSERS:
            run_end += 1
        sentence_end, next_start = _after_terminator(text, run_end, end, marker_at)
        if _is_boundary(text, pos, run_end, sentence_end, next_start, end, quoted, abbreviations):
            cuts.append((sentence_end, next_start))
            pos = max(next_start, run_end)
        else:
            pos = run_end
    return cuts


def _after_terminator(text: str, pos: int, end: int, marker_at: dict[int, int]) -> tuple[int, int]:
    """Where the sentence ends (after any trailing markers) and where the next text starts."""
    sentence_end = pos
    cursor = pos
    while True:
        probe = cursor
        while probe < end and text[probe] in " \t\r":
            probe += 1
        if probe in marker_at:
            cursor = sentence_end = marker_at[probe]
            continue
        return sentence_end, probe


def _is_boundary(
    text: str,
    pos: int,
    run_end: int,
    sentence_end: int,
    next_start: int,
    end: int,
    quoted: bytearray,
    abbreviations: _Abbreviations,
) -> bool:
    if next_start >= end:
        return True
    if next_start == sentence_end and text[run_end - 1] not in _CJK_TERMINATORS:
        return False  # no blank after: "3.5", "v4.2.1", "example.com"
    if text[next_start].islower():
        return False
    if quoted[run_end]:
        return False
    if sentence_end > run_end:
        return True  # a citation after the dot closes the sentence: "inkl. MwSt. [S1] Der"
    if text[pos:run_end] == ".":  # a lone dot, no closing quote or bracket after it
        return not _is_abbreviation(text, pos, next_start, abbreviations)
    return True


def _is_abbreviation(text: str, dot: int, next_start: int, known: _Abbreviations) -> bool:
    if known.spaced is not None:
        for form in known.spaced.finditer(text, max(0, dot - 12), min(len(text), dot + 12)):
            if form.start() < dot < form.end():
                return True  # the first dot of "z. B."
    if known.months and _DAY_NUMBER.search(text, max(0, dot - 3), dot):
        next_word = _NEXT_WORD_RE.match(text, next_start)
        if next_word is not None and next_word.group().casefold() in known.months:
            return True  # "am 3. Mai": an ordinal day
    match = _ABBREV_RE.search(text, max(0, dot - 24), dot)
    if match is None:
        return False
    token = match.group(1)
    lowered = token.lower()
    next_char = text[next_start]
    lists = known.groups
    if lowered in lists["always"]:
        return True
    if lowered in lists["before_number"]:
        return next_char.isdigit() or next_char == "#"
    if lowered == "etc":
        return False  # it ends a sentence whenever an upper-case word follows
    if lowered == "al" and not text.endswith("et ", 0, match.start()):
        return False  # "et al." only; "El Al." is a name
    initial = len(token) == 1 and token.isupper()
    dotted = "." in lowered and all(len(part) <= 2 for part in lowered.split("."))  # U.S., Ph.D.
    if lowered in lists["may_end"] or dotted or initial:
        next_word = _NEXT_WORD_RE.match(text, next_start)
        return next_word is None or next_word.group().lower() not in lists["sentence_opener"]
    return False


def _quote_ranges(text: str) -> list[tuple[int, int]]:
    """Pairs of (opening, closing) quote positions, each pair within one line."""
    ranges: list[tuple[int, int]] = []
    for line_start in _line_starts(text):
        line_end = text.find("\n", line_start)
        closed, _ = _quotes_in_line(text, line_start, len(text) if line_end < 0 else line_end)
        ranges.extend(closed)
    return ranges


def _bracket_ranges(text: str) -> list[tuple[int, int]]:
    """Pairs of (opening, closing) parenthesis positions, each pair within one line."""
    ranges: list[tuple[int, int]] = []
    for line_start in _line_starts(text):
        line_end = text.find("\n", line_start)
        closed, _ = _brackets_in_line(text, line_start, len(text) if line_end < 0 else line_end)
        ranges.extend(closed)
    return ranges


def open_enclosure(text: str) -> int | None:
    """Where a quotation, parenthesis or bracket opened on the last line of ``text`` and not
    closed yet begins (the earliest, when several are open): a sentence end after it may
    still move once it closes."""
    start = text.rfind("\n") + 1
    _, quote = _quotes_in_line(text, start, len(text))
    _, bracket = _brackets_in_line(text, start, len(text))
    opened = [position for position in (quote, bracket) if position is not None]
    return min(opened) if opened else None


def _brackets_in_line(text: str, start: int, end: int) -> tuple[list[tuple[int, int]], int | None]:
    """The parenthesis pairs of one line, and where the outermost one left open begins.
    Square brackets only count as open (a citation marker arriving); they hold no sentence."""
    ranges: list[tuple[int, int]] = []
    parens: list[int] = []
    square: list[int] = []
    for pos in range(start, end):
        char = text[pos]
        if char == "(":
            parens.append(pos)
        elif char == ")" and parens:
            ranges.append((parens.pop(), pos))
        elif char == "[":
            square.append(pos)
        elif char == "]" and square:
            square.pop()
    still_open = [stack[0] for stack in (parens, square) if stack]
    return ranges, (min(still_open) if still_open else None)


def _quotes_in_line(text: str, start: int, end: int) -> tuple[list[tuple[int, int]], int | None]:
    """The quotation pairs of one line, and where the outermost one left open begins."""
    ranges: list[tuple[int, int]] = []
    open_quotes: list[tuple[str, int]] = []  # (kind, position)
    for pos in range(start, end):
        char = text[pos]
        if char not in "\"'“”‘’«»":
            continue
        before = text[pos - 1] if pos > start else " "
        after = text[pos + 1] if pos + 1 < end else " "
        kind = "d" if char in '"“”«»' else "s"
        opens = char in "“«‘" or (
            char in "\"'" and (before.isspace() or before in "([{—-") and not after.isspace()
        )
        closes = char in "”»’" or (char in "\"'" and not before.isspace())
        if kind == "s" and closes and not opens and before.isalnum() and after.isalnum():
            continue  # an apostrophe: "don't", "Acme’s"
        if closes and any(k == kind for k, _ in open_quotes):
            while open_quotes:
                open_kind, open_pos = open_quotes.pop()
                if open_kind == kind:
                    ranges.append((open_pos, pos))
                    break
        elif opens:
            open_quotes.append((kind, pos))
    return ranges, (open_quotes[0][1] if open_quotes else None)


def _trim(text: str, start: int, end: int) -> tuple[int, int] | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def _merge_empty(
    text: str,
    pieces: list[tuple[int, int]],
    markers: Sequence[CitationMarker],
    list_markers: Sequence[CharSpan],
) -> list[tuple[int, int]]:
    """Join pieces that hold only markers to the sentence before (or, first, the one after)."""
    merged: list[tuple[int, int]] = []
    pending_start: int | None = None
    for start, end in pieces:
        if _only_markers(text, start, end, markers, list_markers):
            if merged:
                merged[-1] = (merged[-1][0], end)
            elif pending_start is None:
                pending_start = start
            continue
        if pending_start is not None:
            start, pending_start = pending_start, None
        merged.append((start, end))
    if pending_start is not None:
        merged.append((pending_start, pieces[-1][1]))  # nothing but markers in the whole text
    return merged


def _only_markers(
    text: str,
    start: int,
    end: int,
    markers: Sequence[CitationMarker],
    list_markers: Sequence[CharSpan],
) -> bool:
    """Whether ``text[start:end]`` holds nothing but blanks, citation markers and a leading list
    marker: what :func:`sentence_body` would leave blank."""
    start = _after_list_marker(start, list_markers)
    covered = bytearray(end - start)
    for marker in markers_within(markers, start, end):
        covered[marker.span.start - start : marker.span.end - start] = b"\x01" * (
            marker.span.end - marker.span.start
        )
    return all(covered[i - start] or text[i].isspace() for i in range(start, end))


def _after_list_marker(start: int, list_markers: Sequence[CharSpan]) -> int:
    """``start``, or the end of the list marker it stands in."""
    index = bisect.bisect_right(list_markers, start, key=lambda span: span.start) - 1
    if index >= 0 and start < list_markers[index].end:
        return list_markers[index].end
    return start


def sentence_body(
    text: str,
    start: int,
    end: int,
    markers: Sequence[CitationMarker],
    list_markers: Sequence[CharSpan],
) -> str:
    """The words of a sentence: no citation markers, no leading list marker."""
    start = _after_list_marker(start, list_markers)
    return remove_markers(text[start:end], markers_within(markers, start, end), offset=start)


def _ids_within(markers: Sequence[CitationMarker], start: int, end: int) -> tuple[str, ...]:
    ids: dict[str, None] = {}
    for marker in markers_within(markers, start, end):
        ids.update(dict.fromkeys(marker.ids))
    return tuple(ids)


def markers_within(markers: Sequence[CitationMarker], start: int, end: int) -> list[CitationMarker]:
    """The markers (in text order) that lie inside ``start:end``."""
    found: list[CitationMarker] = []
    index = bisect.bisect_left(markers, start, key=lambda marker: marker.span.start)
    while index < len(markers) and markers[index].span.start < end:
        if markers[index].span.end <= end:
            found.append(markers[index])
        index += 1
    return found
