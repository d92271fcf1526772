"""The certainty check: a claim must not state as fact what its evidence only hedges.

"The drug reduces deaths" against "the drug may reduce deaths" turns a possibility into a
finding, the overstatement a summary most easily makes and a small judge most easily passes:
every content word is in the evidence. The claim is compared with the evidence clause that
restates it, as the polarity check finds it (at least 80 % of its content words). When that
clause hedges ("might", "possibly", "likely", "suggests", "appears to", "may" or "could" before
a verb of cause and effect: "may reduce", "could lead to", "may be linked to") and
the claim, with the same polarity, hedges nothing, the claim is ``hedge_added``: its certainty
is what the evidence does not carry. A claim that hedges in any of these words, or that the
evidence restates with fewer words, is left alone; negation is the polarity check's.
"""

from __future__ import annotations

import re

from judge.pipeline.checks.outcome import flagged
from judge.reading import lexicon, read
from judge.reading.polarity import (
    claim_side,
    is_polar_content,
    read_clause,
    restating_clause,
    words_of,
)
from judge.reading.restatement import CONFIDENT_OVERLAP
from judge.reading.words import word_form
from judge.schemas import CheckOutcome, Finding, Label

# "may" and "could" also grant permission or state an ability ("items may be returned within
# 30 days", "customers could cancel"): they hedge only before a verb of cause and effect or a
# perfect ("may have caused"), as findings are hedged.
_MODAL_HEDGE = (
    rf"(?:{lexicon.alternation(lexicon.words('epistemic_hedges', name='modal'))})\s+"
    rf"(?:{lexicon.alternation(lexicon.words('epistemic_hedges', name='effect'))})s?"
)
_HEDGE_WORDS = lexicon.alternation(lexicon.words("epistemic_hedges", name="hedge"))
_HEDGE = re.compile(
    rf"\b(?:{_MODAL_HEDGE}|{_HEDGE_WORDS})\b",
    re.IGNORECASE,
)
# Words by which a claim hedges too, though they do not hedge evidence: "can" says what is
# possible, "would" what follows, "indicates" and "according to" whose finding it is.
_CLAIM_ONLY = lexicon.alternation(lexicon.words("epistemic_hedges", name="claim_only"))
_CLAIM_HEDGE = re.compile(rf"{_HEDGE.pattern}|\b(?:{_CLAIM_ONLY})\b", re.IGNORECASE)


# Content words from a hedge on read for what it is said of (the hedge's own among them).
_HEDGED_REACH = 4


def _hedging(clause: str, claimed: frozenset[str]) -> re.Match[str] | None:
    """The first hedge of the evidence clause said of what the claim states: one of the
    content words right after it is a word of the claim ("may reduce deaths" for "reduces
    deaths"); "gave the victim some potentially unhelpful advice" hedges the advice's worth,
    not the giving."""
    for hedge in _HEDGE.finditer(clause):
        # From the hedge on: "may be effective" holds its verb, "suggests that X" is followed.
        after = [w for w in words_of(clause[hedge.start() :]) if is_polar_content(w)]
        if {word_form(w) for w in after[:_HEDGED_REACH]} & claimed:
            return hedge
    return None


class CertaintyCheck:
    """Flags a claim that states flatly what the evidence clause restating it hedges."""

    name: str = "certainty"
    lexicon: tuple[str, ...] = ("epistemic_hedges",)

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None:
        text = read(claim).text
        source = read(evidence)
        if _CLAIM_HEDGE.search(text) or not _HEDGE.search(source.text):
            return None
        found = restating_clause(text, source)
        if found is None or found.overlap < CONFIDENT_OVERLAP:
            return None
        hedge = _hedging(found.clause.text, read_clause(text).words)
        if hedge is None or found.clause.negated != claim_side(text, found.clause).negated:
            return None
        return flagged(
            self.name,
            Label.HEDGE_ADDED,
            f"the evidence hedges ({hedge.group(0)!r}) what the claim states as fact: "
            f"claim {text!r}, evidence {found.clause.text!r}",
            (text,),
            confident=True,
            sentence=found.sentence,
            finding=Finding.ABSENT,
        )
