"""Inline citation markers in an answer: ``[S1]``, ``[S1, S3]``, ``[S1][S2]``, ``[doc7#3]``.

The rule that separates citations from bracketed prose, applied to each bracket group
``[...]`` that sits on one line, outside inline code and fenced code blocks:

* An *item* is a comma-separated part of the group with its surrounding spaces removed. It
  is well formed when it matches the passage-id pattern ``[^\\s\\[\\],]+``.
* An item *looks like an id* when it is one of ``known_ids`` or when it holds a digit and no
  semicolon (``S1``, ``doc7#3``, ``s0-0``, ``12``). Ids without digits (``intro``) are only
  recognised through ``known_ids`` or by touching another citation (``[S1][intro]``).
* A group is a *citation* when all its items are well formed, none holds a semicolon (unless
  known) and at least one looks like an id. ``[sic]``, ``[Figure 3]`` and ``[citation
  needed]`` are prose; ``[1]`` and ``[0, 1]`` are citations (the ledger check rejects ids
  that do not exist).
* A group that touches a citation (``[S1][S2]``: nothing between them) is read as a citation
  too, and must then parse.
* A group is a *malformed citation* when it is empty (``[ ]``, except a markdown task box),
  or when every token in it, split on spaces, commas and semicolons, looks like an id while
  the group is not a citation: ``[S1;S2]``, ``[S1, ]``, ``[S1 S2]``.
* An opening bracket never closed on its line and followed by an id (``policy [S1.``), or a
  closing bracket with no opener right after an id (``policy S1].``), is malformed too,
  except a half-open interval such as ``[0, 1)``.
* A group followed by ``(`` is a markdown link and is never a citation.

With ``strict=True`` a malformed citation raises :class:`judge.errors.InputError` naming
the ``answer`` field and the character position; with ``strict=False`` it is skipped, which
is how evidence passages (where ``[12]`` reference marks are common) are read.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from judge.errors import InputError
from judge.schemas import CharSpan

__all__ = ["CitationMarker", "code_ranges", "parse_citations", "remove_markers", "strip_citations"]

_ITEM_RE = re.compile(r"[^\s\[\],]+")
_ID_LIKE_RE = re.compile(r"[^\s\[\],;]*\d[^\s\[\],;]*")
_GROUP_RE = re.compile(r"\[([^\[\]\n]*)\]")
_TOKEN_SPLIT_RE = re.compile(r"[\s,;]+")
_FENCE_RE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_INLINE_CODE_RE = re.compile(r"`[^`\n]*`")
_TASK_BOX_PREFIX_RE = re.compile(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+\Z")
# The token right after an unclosed "[" (one right before an unmatched "]" stops at these).
_LEAD_TOKEN_RE = re.compile(r"[ \t]*([^\s\[\](),;]+)")
_CLOSE_RE = re.compile(r"[\[\])\n]")
_BRACKET_RE = re.compile(r"[\[\]]")
_SNIPPET_CHARS = 24


@dataclass(frozen=True)
class CitationMarker:
    """One bracket group of citations: the ids it names, in order, and where it stands."""

    ids: tuple[str, ...]
    span: CharSpan


@dataclass
class _Group:
    start: int
    end: int
    content: str
    ids: tuple[str, ...] | None  # the items, when the group follows the citation grammar
    citation: bool


def parse_citations(
    text: str, *, known_ids: Collection[str] | None = None, strict: bool = True
) -> list[CitationMarker]:
    """Every citation marker in ``text``, in order. See the module docstring for the rule."""
    known = frozenset(known_ids or ())
    blocked = code_ranges(text)
    groups: list[_Group] = []
    starts: set[int] = set()
    ends: set[int] = set()
    for match in _GROUP_RE.finditer(text):
        if _inside(match.start(), blocked):
            continue
        starts.add(match.start())
        ends.add(match.end() - 1)
        if text.startswith("(", match.end()):
            continue  # a markdown link
        content = match.group(1)
        if not content.strip() and _is_task_box(text, match.start()):
            continue
        ids = _grammar_ids(content, known)
        citation = ids is not None and any(_looks_like_id(i, known) for i in ids)
        groups.append(_Group(match.start(), match.end(), content, ids, citation))

    _spread_to_touching(groups)
    markers: list[CitationMarker] = []
    for index, group in enumerate(groups):
        if group.citation and group.ids is not None:
            span = CharSpan(start=group.start, end=group.end)
            markers.append(CitationMarker(ids=_unique(group.ids), span=span))
        elif strict and (_touches_citation(index, groups) or _is_attempt(group.content, known)):
            _raise(text, group.start)
    if strict:
        _check_unpaired(text, starts, ends, blocked, known)
    return markers


def strip_citations(
    text: str, *, known_ids: Collection[str] | None = None, strict: bool = True
) -> str:
    """``text`` with its citation markers removed and the space before each marker dropped."""
    return remove_markers(text, parse_citations(text, known_ids=known_ids, strict=strict))


def remove_markers(text: str, markers: Sequence[CitationMarker], offset: int = 0) -> str:
    """Remove ``markers`` (positions relative to ``text`` shifted by ``offset``) from ``text``.

    The blanks before a marker go with it, so ``"policy [S1]."`` becomes ``"policy."``; a
    marker that opens a line takes the blanks after it instead.
    """
    pieces: list[str] = []
    cursor = 0
    opens_line = False  # the previous marker opened its line, so this one may too
    for marker in markers:
        start, end = marker.span.start - offset, marker.span.end - offset
        if start < cursor or end > len(text):
            continue  # outside this text
        cut = start
        while cut > cursor and text[cut - 1] in " \t":
            cut -= 1
        opens_line = cut == 0 or text[cut - 1] == "\n" or (cut == cursor and opens_line)
        if opens_line:
            cut = start
            while end < len(text) and text[end] in " \t":
                end += 1
        pieces.append(text[cursor:cut])
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


def code_ranges(text: str) -> list[tuple[int, int]]:
    """Spans of fenced code blocks and inline code, where brackets are code, not citations."""
    ranges = [(m.start(), m.end()) for m in _FENCE_RE.finditer(text)]
    for match in _INLINE_CODE_RE.finditer(text):
        if not _inside(match.start(), ranges):
            ranges.append((match.start(), match.end()))
    return sorted(ranges)


def _grammar_ids(content: str, known: frozenset[str]) -> tuple[str, ...] | None:
    items = [item.strip() for item in content.split(",")]
    for item in items:
        if not _ITEM_RE.fullmatch(item) or (";" in item and item not in known):
            return None
    return tuple(items)


def _looks_like_id(token: str, known: frozenset[str]) -> bool:
    return token in known or _ID_LIKE_RE.fullmatch(token) is not None


def _is_attempt(content: str, known: frozenset[str]) -> bool:
    tokens = [t for t in _TOKEN_SPLIT_RE.split(content) if t]
    if not tokens:
        return True  # "[]" or "[ ]"
    return all(_looks_like_id(t, known) for t in tokens)


def _spread_to_touching(groups: list[_Group]) -> None:
    # "[S1][intro]": a well-formed group that touches a citation is a citation as well.
    # Groups are in text order, so one pass each way settles every chain.
    order = list(range(len(groups)))
    for indices in (order, order[::-1]):
        for index in indices:
            group = groups[index]
            if not group.citation and group.ids is not None and _touches_citation(index, groups):
                group.citation = True


def _touches_citation(index: int, groups: list[_Group]) -> bool:
    group = groups[index]
    before = groups[index - 1] if index > 0 else None
    after = groups[index + 1] if index + 1 < len(groups) else None
    return (before is not None and before.citation and before.end == group.start) or (
        after is not None and after.citation and after.start == group.end
    )


def _is_task_box(text: str, start: int) -> bool:
    line_start = text.rfind("\n", 0, start) + 1
    return _TASK_BOX_PREFIX_RE.match(text, line_start, start) is not None


def _check_unpaired(
    text: str,
    starts: set[int],
    ends: set[int],
    blocked: list[tuple[int, int]],
    known: frozenset[str],
) -> None:
    for bracket in _BRACKET_RE.finditer(text):
        pos = bracket.start()
        if pos in starts or pos in ends or _inside(pos, blocked):
            continue
        if bracket.group() == "[":
            lead = _LEAD_TOKEN_RE.match(text, pos + 1)
            if lead is None or not _looks_like_id(lead.group(1).rstrip(".!?:"), known):
                continue
            close = _CLOSE_RE.search(text, pos + 1)  # the next bracket, ")" or line break
            if close is not None and close.group() == ")":
                continue  # a half-open interval such as "[0, 1)"
            _raise(text, pos)
        else:
            token_start = pos
            while token_start > 0 and not _stops_token(text[token_start - 1]):
                token_start -= 1
            if token_start < pos and _looks_like_id(text[token_start:pos], known):
                _raise(text, pos)


def _stops_token(char: str) -> bool:
    return char.isspace() or char in "[](),;"


def _raise(text: str, pos: int) -> None:
    snippet = text[max(0, pos - 8) : pos + _SNIPPET_CHARS].replace("\n", " ")
    raise InputError(
        f"malformed citation at character {pos} (near {snippet!r}): "
        "cite as [id] or [id, id], with ids separated by commas",
        field="answer",
    )


def _inside(pos: int, ranges: list[tuple[int, int]]) -> bool:
    return any(start <= pos < end for start, end in ranges)


def _unique(ids: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(ids))
