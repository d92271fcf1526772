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

from judge.pipeline.checks.outcome import flagged
from judge.pipeline.checks.polarity.converses import converse_flip
from judge.pipeline.checks.polarity.role_swaps import parties_swapped
from judge.pipeline.checks.polarity.word_flips import word_flip
from judge.reading import Reading, read
from judge.reading.clauses import clauses
from judge.reading.polarity import (
    EXCEPTION,
    MIN_CONTENT_WORDS,
    NEGATION,
    NOT_NEGATION,
    OPPOSITE,
    SIDE,
    Clause,
    claim_side,
    is_polar_content,
    plainly_in,
    prefix_negated,
    read_clause,
    restating_clause,
    words_of,
)
from judge.reading.restatement import CONFIDENT_OVERLAP
from judge.reading.words import word_form
from judge.schemas import CheckOutcome, CheckStatus, Label

# Neighbours a word-by-word flip must share to be confident (see :mod:`word_flips`).
CONFIDENT_NEIGHBOURS = 3


class PolarityCheck:
    """Flags a claim that negates, or un-negates, the evidence sentence it restates."""

    name: str = "polarity"
    lexicon: tuple[str, ...] = ("negation", "opposites", "converses")

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None:
        text = read(claim).text
        stated = read_clause(text)
        if len(stated.readings) < MIN_CONTENT_WORDS:
            return None
        source = read(evidence)
        best = restating_clause(text, source)
        if best is None:
            return self._word_flip(text, source)
        clause, sentence, overlap = best.clause, best.sentence, best.overlap
        restated = claim_side(text, clause)
        flip = _flip(restated, clause, text, source.text)
        negation_said_elsewhere = restated.negated and not clause.negated
        if flip is not None and negation_said_elsewhere and _negation_restated(text, source):
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
            if (flipped := self._word_flip(text, source)) is not None:
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

    def _word_flip(self, claim: str, evidence: Reading) -> CheckOutcome | None:
        """A flip read word by word, where no clause restates the claim or the one that does
        keeps its polarity: with three shared neighbours or more, contradicted."""
        flip = word_flip(claim, evidence)
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


def _negation_restated(claim: str, evidence: Reading) -> bool:
    """Whether every negated clause of the (normalised) claim is restated, negated, by an
    evidence clause: the best clause of the claim as a whole may be another of its sentence's
    clauses."""
    parts = [read_clause(part) for part in clauses(claim)]
    negated = [part for part in parts if part.negated]
    if not negated or len(negated) == len(parts):
        return False
    for part in negated:
        best = restating_clause(part.text, evidence)
        if best is None or not best.clause.negated or best.overlap < CONFIDENT_OVERLAP:
            return False
    return True


def _flip(claim: Clause, evidence: Clause, claim_text: str, evidence_text: str) -> str | None:
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
        shared = negated.words & plain.words
        if not _negation_governs(negated.text, shared, anywhere=negated is evidence):
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
    claim: Clause, evidence: Clause, claim_text: str, evidence_text: str
) -> tuple[str, str] | None:
    """A claim word and the opposite the evidence clause states instead. Not when either side
    also states the other's sense ("prices rose after a fall in demand" speaks of two things),
    or when the evidence writes the claim's word anywhere."""
    for stem in sorted(claim.words - evidence.words):
        for other in sorted(OPPOSITE.get(stem, frozenset()) & (evidence.words - claim.words)):
            if SIDE[stem] & evidence.words or SIDE[other] & claim.words:
                continue
            said, instead = _surface(stem, claim.text), _surface(other, evidence.text)
            if said is None or instead is None:
                continue
            if plainly_in(said, evidence_text) or plainly_in(instead, claim_text):
                continue
            return said, instead
    return None


def _surface(form: str, text: str) -> str | None:
    """The word of ``text`` (casefolded) whose form is ``form``."""
    return next((word for word in words_of(text) if word_form(word) == form), None)


_CONJUNCT = re.compile(r",?\s+\b(?:and|or)\b\s+", re.IGNORECASE)


def _negation_governs(text: str, shared: AbstractSet[str], *, anywhere: bool) -> bool:
    """Whether the negation of a clause bears on what the two sides share: in "store credit
    does not expire and can be used in any store", the "not" belongs to "expire", and a claim
    that store credit can be used in any store restates the other conjunct. The word after the
    negation decides when there is one; else the conjuncts' shared words are counted.

    In an evidence clause (``anywhere``) the word after a negation decides even without a
    conjunction: in "the second draft law would close jobs to women who choose not to have
    children" the "not" belongs to "have", which a claim about the law does not say. A claim
    that negates a word the evidence puts otherwise ("X cannot neutralise Y" against "X
    traps Y") still denies what the evidence states."""
    parts = [read_clause(part) for part in _CONJUNCT.split(text) if part.strip()]
    if len(parts) < 2 and not anywhere:
        return True
    # The word a negation is said of decides: both sides state "composed" in "is not 100%
    # composed of" against "is 100% composed of", however much more they share; the other side
    # never states "expire".
    heads = {head for part in parts if part.negated for head in _negated_heads(part.text)}
    if heads:
        return bool(heads & shared)
    if len(parts) < 2:
        return True
    under = sum(len(part.words & shared) for part in parts if part.negated)
    free = sum(len(part.words & shared) for part in parts if not part.negated)
    return under >= free


def _negated_heads(text: str) -> set[str]:
    """The stem of the first content word after each negation of ``text``."""
    plain = NOT_NEGATION.sub(" ", text)
    heads = set()
    for negation in NEGATION.finditer(plain):
        head = next((w for w in words_of(plain[negation.end() :]) if is_polar_content(w)), None)
        if head is not None:
            heads.add(word_form(head))
    return heads


def _reads_as(word: str, form: str, *, prefixed: bool) -> bool:
    """Whether ``word`` is read as ``form``: by the word it negates by a prefix when
    ``prefixed``, else as itself without a negating prefix."""
    bare = prefix_negated(word)
    if prefixed:
        return bare is not None and word_form(bare) == form
    return bare is None and word_form(word) == form


def _first_unused(
    stems: AbstractSet[str], claim: str, evidence: str, *, prefixed: bool
) -> str | None:
    """The first form whose claim word the evidence never writes as the claim does: where the
    evidence has "unopened item" and also "Opened items", "opened items" is the other group
    the evidence speaks of, not a negation of it."""
    for stem in sorted(stems):
        surfaces = {word for word in words_of(claim) if _reads_as(word, stem, prefixed=prefixed)}
        if not any(plainly_in(surface, evidence) for surface in surfaces):
            return stem
    return None
