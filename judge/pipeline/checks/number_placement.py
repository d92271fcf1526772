"""The number placement check: a claim's number must be stated of what the claim states it of.

The number check finds each number somewhere in the cited evidence. A claim can still move a
number from one fact to another of the same passage: "opened items within 30 days" where the
evidence gives opened items 14 days and unopened ones 30. Two readings find that:

* The evidence sentences that restate the claim (those holding nearly all of its other
  content words). When none of them holds the claim's number, and the best of them states
  another value of the same kind where the claim has its number, the number was moved.
* The number's slot: the words around it in its clause (:mod:`number_slots`). When the
  evidence gives those words to another value of the same kind, and to no mention of the
  claim's value nearly as well, the number was moved: "requires Python 3.9" where the evidence
  says "requires Python 3.10" and "Python 3.9 is no longer supported".

Numbers are compared by what they measure, count or number: a unit ("30 days", "$5", "12%"),
the noun a bare number counts ("400 students" is compared with "250 students", not with "250
staff"), or the name right before it ("Python 3.9"). A number that names none of these is not
read, and a claim the evidence does not restate closely is left to the judge.
"""

from __future__ import annotations

from dataclasses import dataclass

from judge.pipeline.checks.outcome import flagged
from judge.reading import Reading, read
from judge.reading.restatement import CONFIDENT_OVERLAP, Grain, restatements, wanted_forms
from judge.reading.values.matching import found_in, same_quantity
from judge.reading.values.quantities import Quantity
from judge.reading.values.slots import Mention
from judge.reading.values.slots import kind as _kind
from judge.reading.words import content_words, word_form
from judge.schemas import CheckOutcome, CheckStatus, Label

# Fewer content words than this say too little for any sentence to restate them.
MIN_CONTENT_WORDS = 3
# A slot is read as given to another value when that value shares at least this many of its
# words, and this many more than the best mention of the claim's own value.
SLOT_SHARED = 2
SLOT_MARGIN = 2


class NumberPlacementCheck:
    """Fails a claim that states a number of the evidence of a fact that has another value."""

    name: str = "number_placement"
    lexicon: tuple[str, ...] = ("function_words",)

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None:
        said = read(claim)
        text = said.text
        numbers = [q for q in said.numbers if _kind(q, text) is not None]
        if not numbers:
            return None
        source = read(evidence)
        wanted = _content(text, numbers)
        restating = _restating(said, source, wanted) if len(wanted) >= MIN_CONTENT_WORDS else []
        # Slots end at every number the claim writes, as in the evidence: "6-foot-4" read with
        # its "4" on one side only would lend the "4"'s words to "6-foot".
        slots = {mention.quantity: mention for mention in said.mentions}
        moved: list[tuple[Quantity, _Moved]] = []
        for number in numbers:
            found = _moved_in_sentence(number, text, restating) or _moved_in_slot(
                slots[number], source
            )
            if found is not None:
                moved.append((number, found))
        if not moved:
            # The slot reading only ever finds a moved number; a pass needs a restating sentence.
            if not restating:
                return None
            return CheckOutcome(
                check=self.name,
                status=CheckStatus.PASSED,
                detail="no number of the claim stands where the evidence sentence that restates "
                "it gives another value",
            )
        reasons = "; ".join(f"{number.text!r} {where.detail}" for number, where in moved)
        return flagged(
            self.name,
            Label.NUMBER_MISMATCH,
            f"Numbers stated of another fact than in the cited evidence: {reasons}",
            list(dict.fromkeys(number.text for number, _ in moved)),
            confident=True,
            sentence=moved[0][1].sentence,
        )


@dataclass(frozen=True)
class _Moved:
    detail: str  # where the evidence states the number's fact with another value
    sentence: str  # the evidence sentence that says so


def _moved_in_sentence(
    number: Quantity, claim: str, restating: list[tuple[str, list[Quantity]]]
) -> _Moved | None:
    """Other values of the number's kind in the best restating sentence, when none of the
    restating sentences holds the number."""
    if not restating or any(found_in(number, stated) for _, stated in restating):
        return None
    sentence, stated = restating[0]
    kind = _kind(number, claim)
    instead = [q for q in stated if _kind(q, sentence) == kind]
    if not instead:
        return None
    return _Moved(
        f"where the sentence that restates the claim gives {_values(instead)}: {sentence!r}",
        sentence,
    )


def _moved_in_slot(number: Mention, evidence: Reading) -> _Moved | None:
    """The evidence value of the number's kind that its slot's words are said of, when the
    evidence says them of no mention of the number itself nearly as well."""
    if len(number.words) < SLOT_SHARED:
        return None
    own, other, best = -1, -1, None
    for mention in evidence.mentions:
        shared = len(number.words & mention.words)
        if same_quantity(number.quantity, mention.quantity):
            own = max(own, shared)
        elif mention.kind == number.kind and shared > other:
            other, best = shared, mention
    if best is None or other < SLOT_SHARED or other < own + SLOT_MARGIN:
        return None
    same_words = ", ".join(sorted(number.words & best.words))
    return _Moved(
        f"where the evidence gives {best.quantity.text!r} with the same words ({same_words})",
        evidence.sentences.at(best.quantity.start),
    )


def _values(quantities: list[Quantity]) -> str:
    return ", ".join(repr(q.text) for q in quantities)


def _content(text: str, numbers: list[Quantity]) -> frozenset[str]:
    """The claim's content words outside its numbers (and their units)."""
    return frozenset(
        word_form(word)
        for word, start, end in content_words(text)
        if not any(q.start <= start and end <= q.end for q in numbers)
        and not any(ch.isdigit() for ch in word)
    )


def _restating(
    claim: Reading, evidence: Reading, wanted: frozenset[str]
) -> list[tuple[str, list[Quantity]]]:
    """The evidence sentences that hold nearly all of ``wanted``, best first, with their
    numbers."""
    found = restatements(
        claim.text,
        evidence,
        wanted_forms(wanted),
        grain=Grain.SENTENCE,
        least=CONFIDENT_OVERLAP,
    )
    return [(r.sentence, list(read(r.sentence).quantities)) for r in found]
