"""Converses: words whose opposite says the same thing with its parties swapped.

"Symptoms appeared before the test" and "the test came after the symptoms" agree; "symptoms
appeared after the test" does not. "Spain beat Italy" is "Italy lost to Spain", but "Spain lost
to Italy" is not. So a converse flips a sentence only when everything else it says stays in
place: the words the two sides share come in the same order before the converse word, and
after it too (in any order where nothing is compared "than" another). The polarity check asks
this of its best-matching evidence clause.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from judge.reading import lexicon
from judge.reading.polarity import CONVERSE_IDIOMS, CONVERSES
from judge.reading.words import compounds, content_words, word_form

_THAN = re.compile(r"\bthan\b", re.IGNORECASE)
# Words of both sides at least this many, so that "order" says something.
MIN_SHARED = 2
# "no more", "more or less", "after all": not a comparison with a converse (the word lists'
# idioms); and a bound on a number ("more than 50", "at least two") is the number check's.
# A bound on anything else ("at least through next season"), or on "one", which the number
# check does not read as a value ("at least one dose"), is read here: "at most" says otherwise.
_BOUNDS = lexicon.alternation(w for w in lexicon.words("limits") if w[0].isalpha() and " " in w)
_IDIOM = re.compile(
    "|".join(rf"\b{re.escape(idiom)}\b".replace(r"\ ", r"\s+") for idiom in CONVERSE_IDIOMS)
    + rf"|\b(?:{_BOUNDS})\s+(?:\d|two\b|three\b)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Converse:
    said: str  # the claim's word
    instead: str  # the evidence's converse of it


def converse_flip(claim: str, evidence: str) -> Converse | None:
    """A converse word of ``claim`` whose counterpart ``evidence`` (its best-matching clause)
    states instead, with the rest of both in the same order."""
    claim_words = _converse_words(claim)
    evidence_words = _converse_words(evidence)
    written_there = {word for word, _ in evidence_words}
    written_here = {word for word, _ in claim_words}
    # A word written twice on one side ("told ... tell") has no one place to keep in order.
    shared = (_once(claim) & _once(evidence)) - set(CONVERSES)
    if len(shared) < MIN_SHARED:
        return None
    compared = bool(_THAN.search(claim) or _THAN.search(evidence))
    for said, at in claim_words:
        if said in written_there:
            continue
        for instead, there in evidence_words:
            if instead not in CONVERSES[said] or instead in written_here:
                continue
            if _same_order_around(claim, at, evidence, there, shared, compared=compared):
                return Converse(said, instead)
    return None


def _once(text: str) -> set[str]:
    """The content word forms ``text`` writes exactly once."""
    counts = Counter(word_form(word) for word, _, _ in content_words(text))
    return {form for form, count in counts.items() if count == 1}


def _converse_words(text: str) -> list[tuple[str, int]]:
    """The converse words of ``text`` (casefolded) with their offsets, idioms left out."""
    idioms = [match.span() for match in _IDIOM.finditer(text)]
    found = []
    for written, start, _ in compounds(text):
        word = written.casefold()
        if word in CONVERSES and not any(s <= start < e for s, e in idioms):
            found.append((word, start))
    return found


def _same_order_around(
    claim: str, at: int, evidence: str, there: int, shared: set[str], *, compared: bool
) -> bool:
    """Whether the words both sides share (``shared``) come in the same order before the
    converse word, and after it in the same order, or in any order where neither side
    compares with a "than" (``compared``): "after the warehouse receives the item" restates
    "after the item is received at the warehouse"; "higher in Paris than in Rome" is not
    "lower in Rome than in Paris"."""
    if _ordered(claim[:at], shared) != _ordered(evidence[:there], shared):
        return False
    after, after_there = _ordered(claim[at:], shared), _ordered(evidence[there:], shared)
    if compared:
        return after == after_there
    return set(after) == set(after_there)


def _ordered(text: str, shared: set[str]) -> list[str]:
    """The shared word forms of ``text`` in order, each once."""
    seen: dict[str, None] = {}
    for word, _, _ in content_words(text):
        form = word_form(word)
        if form in shared and form not in CONVERSES:
            seen.setdefault(form)
    return list(seen)
