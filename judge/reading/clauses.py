"""The one clause splitter, at two grains.

* A *clause* says one thing: it ends at a semicolon, a colon (not a web address's), a bracket,
  a contrasting conjunction ("but", "whereas", "although", "unless", "except"), a comma before
  one, or a sentence end inside a quotation. A negation stays inside the clause it negates,
  so the polarity rules read clauses.
* A *phrase* is a clause's smaller part: it also ends at every comma, a spaced dash, an em
  dash and the conjunctions "and", "or", "while". The words around a number or a name are read
  within its phrase, so a neighbouring fact's words are not taken for its own.
"""

from __future__ import annotations

import re

from judge.reading import lexicon

__all__ = ["clause_spans", "clauses", "phrase_bounds", "phrase_spans"]


def _conjunctions(*groups: str) -> str:
    return lexicon.alternation(
        w for group in groups for w in lexicon.words("conjunctions", name=group)
    )


# Which conjunctions break where: en/conjunctions.toml.
_ENDS_CLAUSE = _conjunctions("contrast", "exception")
_AFTER_COMMA = _conjunctions("contrast", "exception", "while", "after_comma")
_ENDS_PHRASE = _conjunctions("contrast", "while", "joining")
CLAUSE_BREAK = re.compile(
    rf"[;()]|:(?!//)|,\s+(?=(?:{_AFTER_COMMA})\b)|\b(?:{_ENDS_CLAUSE})\b"
    # A sentence end inside a quotation, which the sentence splitter keeps whole: in '"This
    # must not be true. Robert was a great bloke."' the "not" is not said of Robert.
    r"|(?<=[.!?])\s+(?=[\"'\u201c\u2018]?[A-Z])",
    re.IGNORECASE,
)
PHRASE_BREAK = re.compile(
    rf"[,;:()\[\]]|\s[-–—]\s|—|\b(?:{_ENDS_PHRASE})\b",
    re.IGNORECASE,
)


def clauses(text: str) -> list[str]:
    """The clauses of ``text``, stripped, empty ones left out."""
    return [text[start:end].strip() for start, end in clause_spans(text)]


def clause_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each non-empty clause of ``text``."""
    return _spans(text, CLAUSE_BREAK)


def phrase_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each phrase of ``text``, empty ones included: a phrase is bounded by
    the breaks around it, and callers read the words between."""
    spans = []
    start = 0
    for match in PHRASE_BREAK.finditer(text):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(text)))
    return spans


def phrase_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """The start and end of the phrase of ``text`` holding ``start:end``: the nearest breaks
    before and after it (their far edges)."""
    before = max((m.end() for m in PHRASE_BREAK.finditer(text, 0, start)), default=0)
    after = next((m.start() for m in PHRASE_BREAK.finditer(text, end)), len(text))
    return before, after


def _spans(text: str, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
    spans = []
    start = 0
    for match in pattern.finditer(text):
        if text[start : match.start()].strip():
            spans.append((start, match.start()))
        start = match.end()
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans
