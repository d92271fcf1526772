"""The polarity check: a claim must not flip the polarity of the evidence sentence it restates.

Entailment models are weakest on negation, antonyms and quantifiers, so these are read
here, exactly. The claim is compared with its best-matching evidence sentence (BM25, as
evidence selection ranks them), clause by clause, for five kinds of flip:

* a word the claim states plainly that the evidence negates by prefix ("refunded" against
  "non-refundable", "available" against "unavailable"), or the other way round;
* a word of the claim whose opposite the evidence states instead ("rose" against "fell",
  "positive" against "negative"), from a short list of opposites that hold of one thing, not
  converses ("A sold to B" is "B bought from A"); comparatives only outside a "than";
* a negation ("not", "never", "no longer", "without", "fails to") on one side only;
* opposite quantifiers ("all" against "none", "always" against "never");
* two names around the same words, the other way round ("Italy beat Spain" against "Spain
  beat Italy"; :mod:`role_swaps`).

Two negations cancel ("never refunded" keeps the polarity of "non-refundable"). A claim that
says "always", "never", "all" or "none" where its evidence sentence makes an exception
("except", "unless") needs review.

Confident only when the claim's content words are (nearly) all in that clause: then the flip is
``contradicted``. With fewer shared words it is ``needs_review``. A claim whose words match no
evidence sentence is left to the judge.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache

from judge.pipeline.checks.converses import converse_flip
from judge.pipeline.checks.outcome import flagged
from judge.pipeline.checks.polarity_words import (
    COMPARATIVES,
    EXCEPTION,
    NEGATING_PREFIX,
    NEGATION,
    NOT_NEGATION,
    OPPOSITE,
    SIDE,
    THAN,
    converse_stems,
    opposite_stems,
    plainly_in,
    word_stem,
    words_of,
)
from judge.pipeline.checks.role_swaps import parties_swapped
from judge.pipeline.checks.text import normalise
from judge.pipeline.checks.word_flips import word_flip
from judge.pipeline.entail.select import sentence_index
from judge.schemas import CheckOutcome, CheckStatus, Label

# Share of the claim's content words the evidence clause must hold for each outcome.
CONFIDENT_OVERLAP = 0.8
REVIEW_OVERLAP = 0.6
# Neighbours a word-by-word flip must share to be confident (see :mod:`word_flips`).
CONFIDENT_NEIGHBOURS = 3
# Claims this short share too few words with any clause for the overlap to mean anything.
MIN_CONTENT_WORDS = 2

_UNIVERSAL = re.compile(r"\b(?:all|every|always|everyone|everything|entirely)\b", re.IGNORECASE)
_NONE = re.compile(r"\b(?:none|never|no\s+one|nobody|nothing)\b", re.IGNORECASE)
_SOME = re.compile(r"\b(?:some|sometimes|occasionally)\b", re.IGNORECASE)
# Quantifiers are compared as such, never as content words the clauses must share.
_QUANTIFIER_WORD = re.compile(
    rf"{_UNIVERSAL.pattern}|{_NONE.pattern}|{_SOME.pattern}", re.IGNORECASE
)
_CLAUSE_BREAK = re.compile(
    # A colon, but not a URL's ("https://...").
    r"[;()]|:(?!//)|,\s+(?=(?:but|except|whereas|while|although|though|unless|yet|not|rather)\b)"
    r"|\b(?:but|except|whereas|although|though|unless)\b"
    # A sentence end inside a quotation, which the sentence splitter keeps whole: in '"This
    # must not be true. Robert was a great bloke."' the "not" is not said of Robert.
    r"|(?<=[.!?])\s+(?=[\"'\u201c\u2018]?[A-Z])",
    re.IGNORECASE,
)
_FUNCTION_WORDS = frozenset(
    re.findall(
        r"\w+",
        "a an the and or of to in on at by for from with as is are was were be been being it its "
        "this that these those there their they them he she his her we our you your i me my do "
        "does did has have had will would can could may might shall should must than then also "
        "well very more most less least such so too only just into onto about over under after "
        "before when which who whom whose what where why how if while because per each both "
        "other any",
    )
)


@dataclass(frozen=True)
class _Clause:
    text: str
    words: frozenset[str]  # stems of content words
    prefixed: frozenset[str]  # stems that carry a negating prefix ("refund" of "non-refundable")
    negated: bool
    quantifier: str | None  # "all", "none" or "some"
    # Per content word, its readings: the stem, and the stem without a negating prefix where it
    # may have one ("increase" is also read as a negated "crease"). A word is held when either is.
    readings: frozenset[frozenset[str]] = frozenset()


class PolarityCheck:
    """Flags a claim that negates, or un-negates, the evidence sentence it restates."""

    name: str = "polarity"

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None:
        text = normalise(claim)
        stated = _clause(text)
        if len(stated.readings) < MIN_CONTENT_WORDS:
            return None
        best = _best_clause(text, normalise(evidence), stated)
        if best is None:
            return self._word_flip(text, evidence)
        clause, sentence, overlap = best
        restated = _restating(text, clause)
        flip = _flip(restated, clause, text, normalise(evidence))
        negation_said_elsewhere = restated.negated and not clause.negated
        if flip is not None and negation_said_elsewhere and _negation_restated(text, evidence):
            flip = None  # "..., but would not say where": another clause says it so
        absolute = restated.quantifier in {"all", "none"} and not EXCEPTION.search(text)
        if flip is None and absolute and EXCEPTION.search(sentence):
            # "never refunded" against "non-refundable, except when damaged": not a flip, but
            # an absolute the evidence does not grant.
            return CheckOutcome(
                check=self.name,
                status=CheckStatus.NEEDS_REVIEW,
                label=Label.NEEDS_REVIEW,
                detail=f"the claim states without exception what the evidence limits: "
                f"claim {text!r}, evidence {sentence!r}",
                missing=(text,),
                evidence_sentence=sentence,
            )
        if flip is None:
            if (flipped := self._word_flip(text, evidence)) is not None:
                return flipped
            return CheckOutcome(
                check=self.name,
                status=CheckStatus.PASSED,
                detail=f"the claim keeps the polarity of the evidence: {clause.text!r}",
            )
        return flagged(
            self.name,
            Label.CONTRADICTED,
            f"{flip}: claim {text!r}, evidence {clause.text!r}",
            (text,),
            confident=overlap >= CONFIDENT_OVERLAP,
            sentence=sentence,
        )

    def _word_flip(self, claim: str, evidence: str) -> CheckOutcome | None:
        """A flip read word by word, where no clause restates the claim or the one that does
        keeps its polarity: with three shared neighbours or more, contradicted."""
        flip = word_flip(claim, normalise(evidence))
        if flip is None:
            return None
        return flagged(
            self.name,
            Label.CONTRADICTED,
            f"the claim says {flip.said!r} where the evidence says {flip.instead!r} of the same "
            f"words: claim {claim!r}, evidence {flip.sentence!r}",
            (claim,),
            confident=flip.shared >= CONFIDENT_NEIGHBOURS,
            sentence=flip.sentence,
        )


@dataclass(frozen=True)
class Restatement:
    """The evidence clause that restates a claim best, as the polarity check reads it."""

    clause: str
    sentence: str  # the evidence sentence holding it
    overlap: float  # the share of the claim's content words it holds
    negated: bool  # whether the clause is negated
    claim_negated: bool  # whether the claim's clauses that share its words are


def restatement(claim: str, evidence: str) -> Restatement | None:
    """The evidence clause that restates ``claim`` (both normalised) best, if any holds at
    least ``REVIEW_OVERLAP`` of its content words."""
    stated = _clause(claim)
    if len(stated.readings) < MIN_CONTENT_WORDS:
        return None
    best = _best_clause(claim, evidence, stated)
    if best is None:
        return None
    clause, sentence, overlap = best
    restated = _restating(claim, clause)
    return Restatement(clause.text, sentence, overlap, clause.negated, restated.negated)


def _best_clause(claim: str, evidence: str, stated: _Clause) -> tuple[_Clause, str, float] | None:
    """The evidence clause sharing most of the claim's content words, inside the claim's
    best-matching sentences, with its sentence and the share it holds."""
    ranked = sentence_index("evidence", evidence).rank(claim, top=3)
    best: tuple[_Clause, str, float] | None = None
    for sentence in ranked:
        for part in _CLAUSE_BREAK.split(sentence.text):
            clause = _clause(part.strip())
            # A word whose opposite the clause states is held too: the clause restates the
            # claim, with that word flipped.
            stated_there = clause.words | clause.prefixed | opposite_stems(clause.words)
            stated_there |= converse_stems(clause.words)
            held = sum(1 for r in stated.readings if r & stated_there) / len(stated.readings)
            if held >= REVIEW_OVERLAP and (best is None or held > best[2]):
                best = (clause, sentence.text, held)
    return best


def _negation_restated(claim: str, evidence: str) -> bool:
    """Whether every negated clause of the (normalised) claim is restated, negated, by an
    evidence clause: the best clause of the claim as a whole may be another of its sentence's
    clauses."""
    evidence = normalise(evidence)
    parts = [_clause(part.strip()) for part in _CLAUSE_BREAK.split(claim) if part.strip()]
    negated = [part for part in parts if part.negated]
    if not negated or len(negated) == len(parts):
        return False
    for part in negated:
        if len(part.readings) < MIN_CONTENT_WORDS:
            return False
        best = _best_clause(part.text, evidence, part)
        if best is None or not best[0].negated or best[2] < CONFIDENT_OVERLAP:
            return False
    return True


def _restating(claim: str, evidence: _Clause) -> _Clause:
    """The claim read over its clauses that share a word with the evidence clause, so an aside
    ("I'm not sure, but ...") lends its negation to nothing."""
    parts = [_clause(part.strip()) for part in _CLAUSE_BREAK.split(claim)]
    shared = evidence.words | evidence.prefixed
    kept = [c for c in parts if (c.words | c.prefixed) & shared] or parts
    if len(kept) == 1:
        return kept[0]
    return _clause(" ".join(c.text for c in kept))


def _flip(claim: _Clause, evidence: _Clause, claim_text: str, evidence_text: str) -> str | None:
    """What turned polarity between the two clauses, if anything."""
    # A prefix negates as "not" does, and two negations cancel: "never refunded" keeps the
    # polarity of "non-refundable".
    negated_there = claim.words & evidence.prefixed - evidence.words
    if word := _first_unused(negated_there, claim_text, evidence_text, prefixed=False):
        if claim.negated == evidence.negated:
            return f"the evidence negates {word!r} by its prefix"
        return None
    negated_here = evidence.words & claim.prefixed - claim.words
    if word := _first_unused(negated_here, claim_text, evidence_text, prefixed=True):
        if claim.negated == evidence.negated:
            return f"the claim negates {word!r} by its prefix"
        return None
    opposed = _opposed(claim, evidence, claim_text, evidence_text)
    if opposed is None and (converse := converse_flip(claim.text, evidence.text)) is not None:
        opposed = converse.said, converse.instead
    if opposed is not None:
        if claim.negated == evidence.negated:  # "did not fall" is no flip of "rose"
            said, instead = opposed
            return f"the claim says {said!r} where the evidence says {instead!r}"
        return None
    quantifiers = {claim.quantifier, evidence.quantifier}
    # "all" against "some" is the hedge check's business; "none" against either is a flip.
    if None not in quantifiers and "none" in quantifiers and len(quantifiers) == 2:
        return f"the claim says {claim.quantifier!r}, the evidence {evidence.quantifier!r}"
    if claim.negated != evidence.negated and claim.quantifier == evidence.quantifier:
        negated, plain = (claim, evidence) if claim.negated else (evidence, claim)
        if not _negation_governs(negated.text, negated.words & plain.words):
            return None
        side = "claim" if claim.negated else "evidence"
        return f"only the {side} is negated"
    if claim.negated == evidence.negated and (
        swap := parties_swapped(claim.text, evidence.text, evidence_text)
    ):
        return (
            f"the claim says {swap.first} {swap.relation} {swap.second}, the evidence the "
            "other way round"
        )
    return None


def _opposed(
    claim: _Clause, evidence: _Clause, claim_text: str, evidence_text: str
) -> tuple[str, str] | None:
    """A claim word and the opposite the evidence clause states instead. Not when either side
    also states the other's sense ("prices rose after a fall in demand" speaks of two things),
    when the evidence writes the claim's word anywhere, or for comparatives beside a "than"."""
    compared = bool(THAN.search(claim.text) or THAN.search(evidence.text))
    for stem in sorted(claim.words - evidence.words):
        for other in sorted(OPPOSITE.get(stem, frozenset()) & (evidence.words - claim.words)):
            if SIDE[stem] & evidence.words or SIDE[other] & claim.words:
                continue
            said, instead = _surface(stem, claim.text), _surface(other, evidence.text)
            if said is None or instead is None:
                continue
            if compared and {said, instead} & COMPARATIVES:
                continue
            if plainly_in(said, evidence_text) or plainly_in(instead, claim_text):
                continue
            return said, instead
    return None


def _surface(stem: str, text: str) -> str | None:
    """The word of ``text`` (casefolded) that stems to ``stem``."""
    return next((word for word in words_of(text) if word_stem(word) == stem), None)


_CONJUNCT = re.compile(r",?\s+\b(?:and|or)\b\s+", re.IGNORECASE)


def _negation_governs(text: str, shared: AbstractSet[str]) -> bool:
    """Whether the negation of a clause bears on what the two sides share: in "store credit
    does not expire and can be used in any store", the "not" belongs to "expire", and a claim
    that store credit can be used in any store restates the other conjunct. The word after the
    negation decides when there is one; else the conjuncts' shared words are counted."""
    parts = [_clause(part) for part in _CONJUNCT.split(text) if part.strip()]
    if len(parts) < 2:
        return True
    # The word a negation is said of decides: both sides state "composed" in "is not 100%
    # composed of" against "is 100% composed of", however much more they share; the other side
    # never states "expire".
    heads = {head for part in parts if part.negated for head in _negated_heads(part.text)}
    if heads:
        return bool(heads & shared)
    under = sum(len(part.words & shared) for part in parts if part.negated)
    free = sum(len(part.words & shared) for part in parts if not part.negated)
    return under >= free


def _negated_heads(text: str) -> set[str]:
    """The stem of the first content word after each negation of ``text``."""
    plain = NOT_NEGATION.sub(" ", text)
    heads = set()
    for negation in NEGATION.finditer(plain):
        head = next((w for w in words_of(plain[negation.end() :]) if _is_content(w)), None)
        if head is not None:
            heads.add(word_stem(head))
    return heads


def _first_unused(
    stems: AbstractSet[str], claim: str, evidence: str, *, prefixed: bool
) -> str | None:
    """The first stem whose claim word the evidence never writes as the claim does: where the
    evidence has "unopened item" and also "Opened items", "opened items" is the other group
    the evidence speaks of, not a negation of it."""
    for stem in sorted(stems):
        surfaces = {
            word
            for word in words_of(claim)
            if word_stem(NEGATING_PREFIX.sub("", word) if prefixed else word) == stem
            and (NEGATING_PREFIX.match(word) is not None) == prefixed
        }
        if not any(plainly_in(surface, evidence) for surface in surfaces):
            return stem
    return None


@lru_cache(maxsize=1024)
def _clause(text: str) -> _Clause:
    plain = NOT_NEGATION.sub(" ", text)
    words: set[str] = set()
    prefixed: set[str] = set()
    readings: set[frozenset[str]] = set()
    # A negation of more than one word ("failed to", "no longer") is no content either.
    for word in words_of(NEGATION.sub(" ", plain)):
        if not _is_content(word):
            continue
        bare = NEGATING_PREFIX.sub("", word)
        reading = {word_stem(word)}
        if bare != word and len(word_stem(bare)) >= 4:
            # Both readings: "increase" is not a negated "crease"; the claim and evidence
            # comparison only counts a prefix when the plain form is absent on that side.
            prefixed.add(word_stem(bare))
            reading.add(word_stem(bare))
        words.add(word_stem(word))
        readings.add(frozenset(reading))
    prefixed -= words
    quantifier = (
        "none" if _NONE.search(plain) else "all" if _UNIVERSAL.search(plain)
        else "some" if _SOME.search(plain) else None
    )  # fmt: skip
    return _Clause(text, frozenset(words), frozenset(prefixed), bool(NEGATION.search(plain)),
                   quantifier, frozenset(readings))  # fmt: skip


def _is_content(word: str) -> bool:
    return not (
        word in _FUNCTION_WORDS
        or NEGATION.fullmatch(word)
        or _QUANTIFIER_WORD.fullmatch(word)
        or len(word) < 3
    )
