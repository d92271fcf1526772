"""Flips read word by word: an opposite said of the same neighbours as in the evidence.

The clause check (:mod:`polarity`) compares a claim with the evidence clause that holds most of
its words. A summary sentence restates several clauses at once and shares too few words with
any one of them, so a flipped word inside it ("in response to their decreased market
availability" where the evidence has "a response to the increased market availability") goes
unread there. Here each word of the claim with a listed opposite, a negating prefix or an
opposite hyphen prefix ("on-policy" / "off-policy", "single-trial" / "multi-trial") is
looked for in the best-matching evidence sentences. Its counterpart there is a flip when the
content words next to the two (up to four on each side, inside the sentence and clause) share
at least two, each on its own side, and a negation bears on both or neither.

The claim's own word anywhere in the evidence means it speaks of both ("prices rose, then
fell"), and no flip is read; nor in a sentence that makes an exception, nor of a converse,
whose parties may have swapped sides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from judge.reading import Reading, read
from judge.reading.polarity import (
    EXCEPTION,
    NEGATION,
    NOT_NEGATION,
    OPPOSITE,
    plainly_in,
    prefix_negated,
    prefix_negations,
    prefix_opposite,
)
from judge.reading.restatement import TOP_SENTENCES, best_sentences
from judge.reading.words import compounds, content_words, word_form

# Content words read on each side of a word, and how many of them the two sides must share.
WINDOW = 4
MIN_SHARED = 2

_WINDOW_BREAK = re.compile(r"[;:()\[\]]|[.!?]\s|\n")
# How far before a window a negation still bears on it ("did not fall").
_NEGATION_REACH = 12


@dataclass(frozen=True)
class WordFlip:
    said: str  # the claim's word
    instead: str  # its counterpart in the evidence
    sentence: str  # the evidence sentence
    shared: int  # neighbours the two share


@dataclass(frozen=True)
class _Neighbours:
    before: frozenset[str]
    after: frozenset[str]
    negated: bool


def word_flip(claim: str, evidence: Reading) -> WordFlip | None:
    """The first word of ``claim`` (normalised) whose counterpart ``evidence`` states next to
    the same words."""
    tokens = _letter_words(claim)
    written = {word for word, _, _ in tokens}
    ranked = [
        sentence.text
        for sentence in best_sentences(claim, evidence, top=TOP_SENTENCES)
        # "non-refundable, except when damaged" restates what it excepts
        if not EXCEPTION.search(sentence.text)
    ]
    for word, start, end in tokens:
        if word in evidence.written or ("-" in word and plainly_in(word, evidence.text)):
            continue  # the evidence writes it too ("Non - binary" for "non-binary")
        wanted = _counterparts(word)
        around: _Neighbours | None = None
        for sentence in ranked:
            index = read(sentence).view(_by_form)
            for other, at, until in (hit for stem in wanted for hit in index.get(stem, ())):
                if other in written:
                    continue
                around = around or _neighbours(claim, start, end)
                there = _neighbours(sentence, at, until)
                shared = len(around.before & there.before) + len(around.after & there.after)
                if shared >= MIN_SHARED and around.negated == there.negated:
                    return WordFlip(word, other, sentence, shared)
    return None


def _by_form(sentence: Reading) -> dict[str, tuple[tuple[str, int, int], ...]]:
    """The words of an evidence sentence by their form, with their offsets."""
    index: dict[str, list[tuple[str, int, int]]] = {}
    for word, start, end in _letter_words(sentence.text):
        index.setdefault(word_form(word), []).append((word, start, end))
    return {form: tuple(hits) for form, hits in index.items()}


def _letter_words(text: str) -> list[tuple[str, int, int]]:
    """The words of ``text`` that start with a letter, hyphenated ones whole, casefolded."""
    return [(w.casefold(), start, end) for w, start, end in compounds(text) if w[:1].isalpha()]


def _counterparts(word: str) -> frozenset[str]:
    """The forms a flip of ``word`` may be written with: its opposites, the word a prefix
    negates ("suitable" for "unsuitable"), the words that negate it by a prefix ("unsuitable"
    for "suitable") and the opposite hyphen prefix ("off-policy" for "on-policy"). Not
    converses: "Spain beat Italy" is "Italy lost to Spain", whatever the neighbours."""
    form = word_form(word)
    found = set(OPPOSITE.get(form, ()))
    if (bare := prefix_negated(word)) is not None:
        found.add(word_form(bare))
    found |= {word_form(negation) for negation in prefix_negations(word)}
    if (opposite := prefix_opposite(word)) is not None:
        found.add(word_form(opposite))
    found.discard(form)
    return frozenset(found)


def _neighbours(text: str, start: int, end: int) -> _Neighbours:
    breaks = list(_WINDOW_BREAK.finditer(text))
    low = max((m.end() for m in breaks if m.end() <= start), default=0)
    high = min((m.start() for m in breaks if m.start() >= end), default=len(text))
    before = [w for w in content_words(text[low:start]) if not NEGATION.fullmatch(w[0])]
    after = [w for w in content_words(text[end:high]) if not NEGATION.fullmatch(w[0])]
    before, after = before[-WINDOW:], after[:WINDOW]
    first = low + before[0][1] if before else start
    last = end + after[-1][2] if after else end
    span = text[max(low, first - _NEGATION_REACH) : last]
    negated = NEGATION.search(NOT_NEGATION.sub(" ", span)) is not None
    return _Neighbours(
        frozenset(word_form(w) for w, _, _ in before),
        frozenset(word_form(w) for w, _, _ in after),
        negated,
    )
