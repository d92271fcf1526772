"""The number placement check: a claim's number must be stated of what the claim states it of.

The number check finds each number somewhere in the cited evidence. A claim can still move a
number from one fact to another of the same passage: "opened items within 30 days" where the
evidence gives opened items 14 days and unopened ones 30. Here the claim is compared with the
evidence sentences that restate it: those holding (nearly) all of its other content words.
When none of them holds the claim's number, and the best of them states another value of the
same unit where the claim has its number, the number was moved.

Numbers are compared by what they measure or count: a unit ("30 days", "$5", "12%"), or the
noun a bare number counts ("400 students" is compared with "250 students", not with "250
staff"). A number that names neither is not read, and a claim no sentence restates closely is
left to the judge.
"""

from __future__ import annotations

from judge.pipeline.checks.matching import found_in
from judge.pipeline.checks.numbers import claim_quantities
from judge.pipeline.checks.quantities import Quantity, counted_noun, find_quantities
from judge.pipeline.checks.text import normalise
from judge.pipeline.claims.sentences import content_words, word_form
from judge.pipeline.entail.select import sentence_index
from judge.schemas import CheckOutcome, CheckStatus, Label

# Share of the claim's other content words a sentence must hold to restate the claim.
RESTATING_OVERLAP = 0.8
# Fewer content words than this say too little for any sentence to restate them.
MIN_CONTENT_WORDS = 3
# Sentences compared: the best-ranked, as the polarity check reads them.
TOP_SENTENCES = 3


class NumberPlacementCheck:
    """Fails a claim that states a number of the evidence of a fact that has another value."""

    name: str = "number_placement"

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None:
        text = normalise(claim)
        numbers = [q for q in claim_quantities(text) if _kind(q, text) is not None]
        if not numbers:
            return None
        wanted = _content(text, numbers)
        if len(wanted) < MIN_CONTENT_WORDS:
            return None
        restating = _restating(text, normalise(evidence), wanted)
        if not restating:
            return None
        moved: list[tuple[Quantity, list[Quantity], str]] = []
        for number in numbers:
            if any(found_in(number, stated) for _, stated in restating):
                continue
            sentence, stated = restating[0]
            kind = _kind(number, text)
            instead = [q for q in stated if _kind(q, sentence) == kind]
            if instead:
                moved.append((number, instead, sentence))
        if not moved:
            return CheckOutcome(
                check=self.name,
                status=CheckStatus.PASSED,
                detail="no number of the claim stands where the evidence sentence that restates "
                "it gives another value",
            )
        reasons = "; ".join(
            f"{number.text!r} where the sentence that restates the claim gives "
            f"{', '.join(repr(q.text) for q in instead)}: {sentence!r}"
            for number, instead, sentence in moved
        )
        return CheckOutcome(
            check=self.name,
            status=CheckStatus.FAILED,
            label=Label.NUMBER_MISMATCH,
            detail=f"Numbers stated of another fact than in the cited evidence: {reasons}",
            missing=tuple(dict.fromkeys(number.text for number, _, _ in moved)),
        )


def _kind(quantity: Quantity, text: str) -> str | None:
    """What ``quantity`` (a number of ``text``) measures or counts, if it says."""
    if quantity.unit is not None:
        return quantity.unit
    noun = counted_noun(text[quantity.end :]) if quantity.counts else None
    return None if noun is None else f"count of {word_form(noun)}"


def _content(text: str, numbers: list[Quantity]) -> frozenset[str]:
    """The claim's content words outside its numbers (and their units)."""
    return frozenset(
        word_form(word)
        for word, start, end in content_words(text)
        if not any(q.start <= start and end <= q.end for q in numbers)
        and not any(ch.isdigit() for ch in word)
    )


def _restating(
    claim: str, evidence: str, wanted: frozenset[str]
) -> list[tuple[str, list[Quantity]]]:
    """The evidence sentences that hold most of ``wanted``, best first, with their numbers."""
    found: list[tuple[float, str, list[Quantity]]] = []
    for sentence in sentence_index("evidence", evidence).rank(claim, top=TOP_SENTENCES):
        held = wanted & {word_form(word) for word, _, _ in content_words(sentence.text)}
        share = len(held) / len(wanted)
        if share >= RESTATING_OVERLAP:
            found.append((share, sentence.text, find_quantities(sentence.text)))
    found.sort(key=lambda item: -item[0])
    return [(text, stated) for _, text, stated in found]
