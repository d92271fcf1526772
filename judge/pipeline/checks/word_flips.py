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
fell"), and no flip is read; nor in a sentence that makes an exception, nor of a comparative
beside a "than", nor of a converse, whose parties may have swapped sides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from judge.pipeline.checks.polarity_words import (
    COMPARATIVES,
    EXCEPTION,
    NEGATING_PREFIX,
    NEGATION,
    NOT_NEGATION,
    OPPOSITE,
    THAN,
    word_stem,
)
from judge.pipeline.claims.sentences import content_words, word_form
from judge.pipeline.entail.select import sentence_index

# Content words read on each side of a word, and how many of them the two sides must share.
WINDOW = 4
MIN_SHARED = 2
# Evidence sentences read for each claim, best-matching first.
TOP_SENTENCES = 5

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'-]*")
_WINDOW_BREAK = re.compile(r"[;:()\[\]]|[.!?]\s|\n")
_HYPHEN_PREFIX = re.compile(r"^(on|off|single|multi|pre|post|over|under|intra|inter)-(\w.+)$")
_OPPOSITE_PREFIX = {
    "on": "off", "off": "on", "single": "multi", "multi": "single", "pre": "post",
    "post": "pre", "over": "under", "under": "over", "intra": "inter", "inter": "intra",
}  # fmt: skip
_PREFIXES = ("un", "non", "in", "im", "ir", "il")
_ADJECTIVE_ENDINGS = ("able", "ible", "ent", "ant", "ive", "al", "ar", "ate", "ete", "ous")
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


def word_flip(claim: str, evidence: str) -> WordFlip | None:
    """The first word of ``claim`` (normalised) whose counterpart ``evidence`` states next to
    the same words."""
    tokens = [(m.group(0).casefold(), m.start(), m.end()) for m in _TOKEN.finditer(claim)]
    written = {word for word, _, _ in tokens}
    in_evidence = _words_of(evidence)
    ranked = [
        sentence.text
        for sentence in sentence_index("evidence", evidence).rank(claim, top=TOP_SENTENCES)
        # "non-refundable, except when damaged" restates what it excepts
        if not EXCEPTION.search(sentence.text)
    ]
    claim_compares = THAN.search(claim) is not None
    for word, start, end in tokens:
        if word in in_evidence:
            continue
        wanted = _counterparts(word)
        around: _Neighbours | None = None
        for sentence in ranked:
            if word in COMPARATIVES and (claim_compares or THAN.search(sentence)):
                continue  # "higher in A than in B" is "lower in B than in A"
            index = _by_stem(sentence)
            for other, at, until in (hit for stem in wanted for hit in index.get(stem, ())):
                if other in written:
                    continue
                around = around or _neighbours(claim, start, end)
                there = _neighbours(sentence, at, until)
                shared = len(around.before & there.before) + len(around.after & there.after)
                if shared >= MIN_SHARED and around.negated == there.negated:
                    return WordFlip(word, other, sentence, shared)
    return None


@lru_cache(maxsize=16)
def _words_of(evidence: str) -> frozenset[str]:
    """The words an evidence text writes, casefolded: read once per text."""
    return frozenset(m.group(0).casefold() for m in _TOKEN.finditer(evidence))


@lru_cache(maxsize=256)
def _by_stem(sentence: str) -> dict[str, tuple[tuple[str, int, int], ...]]:
    """The words of an evidence sentence by each stem they are read as, with their offsets."""
    index: dict[str, list[tuple[str, int, int]]] = {}
    for match in _TOKEN.finditer(sentence):
        word = match.group(0).casefold()
        for stem in _stems(word):
            index.setdefault(stem, []).append((word, match.start(), match.end()))
    return {stem: tuple(hits) for stem, hits in index.items()}


def _counterparts(word: str) -> frozenset[str]:
    """The stems a flip of ``word`` may be written with."""
    stem = word_stem(word)
    # Not converses: "Spain beat Italy" is "Italy lost to Spain", whatever the neighbours.
    found = set(OPPOSITE.get(stem, ()))
    bare = NEGATING_PREFIX.sub("", word)
    if bare != word and _negates(word[: len(word) - len(bare)], bare):
        found.add(word_stem(bare))  # "unsuitable" against "suitable"
    # "suitable" against "unsuitable", "accurate" against "inaccurate"
    found |= {word_stem(prefix + word) for prefix in _PREFIXES if _negates(prefix, word)}
    if prefixed := _HYPHEN_PREFIX.match(word):
        found.add(word_stem(f"{_OPPOSITE_PREFIX[prefixed.group(1)]}-{prefixed.group(2)}"))
    found.discard(stem)
    return frozenset(found)


def _negates(prefix: str, bare: str) -> bool:
    """Whether ``prefix`` before ``bare`` negates it: "un" and "non" before any word of four
    letters or more; "in", "im", "ir" and "il" only before adjectives ("inaccurate", not
    "inform"); never "dis" ("discover", "discount")."""
    prefix = prefix.rstrip("-")
    if len(bare) < 4 or prefix == "dis":
        return False
    return prefix in {"un", "non"} or bare.endswith(_ADJECTIVE_ENDINGS)


def _stems(word: str) -> frozenset[str]:
    """The stems ``word`` is read as: its own, and for a negating prefix with a hyphen
    ("non-renewable"), the stem without it ("nonrenew")."""
    stem = word_stem(word)
    bare = NEGATING_PREFIX.sub("", word)
    prefix = word[: len(word) - len(bare)].rstrip("-")
    if bare == word or not _negates(prefix, bare):
        return frozenset({stem})
    return frozenset({stem, word_stem(prefix + bare)})


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
