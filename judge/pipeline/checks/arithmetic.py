"""The arithmetic check: a number the claim computes from the evidence's is computed again.

A number the evidence does not state but gives by a unit conversion or by exact arithmetic on
the numbers of the sentences restating the claim (:func:`judge.reading.values.derivation.
derivations`) passes, and the outcome shows each computation ("2.4 percentage points = 18.5% −
16.1%"). A claim that announces a computation ("in total", "combined", "rose by 25%",
"percentage points", "on average") whose number no such computation gives goes to a person, as
does one whose number only some pair of evidence numbers anywhere gives.
"""

from __future__ import annotations

from judge.pipeline.checks.outcome import missing, passed
from judge.reading import read
from judge.reading.values.derivation import arithmetic_cue, derivations
from judge.reading.values.matching import found_in
from judge.schemas import CheckOutcome, CheckStatus, Finding, Label


class ArithmeticCheck:
    """Routes a claim with computed numbers to review: NEEDS_REVIEW, label ``needs_review``."""

    name: str = "arithmetic"
    lexicon: tuple[str, ...] = ("arithmetic",)

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None:
        said = read(claim)
        wanted = said.numbers
        if not wanted:
            return None
        cue = arithmetic_cue(said.folded)
        pool = read(evidence).quantities
        derived = derivations(claim, evidence)
        unstated = [q for q in wanted if not found_in(q, pool) and q.start not in derived]
        if cue is None and not derived:
            return None
        shown = [d.text for d in derived.values()]
        if not unstated:
            return passed(self.name, "The computed numbers of the claim were", shown)
        if cue is None:
            return passed(self.name, "The computed numbers of the claim were", shown)
        how = f"the claim computes them ({cue!r}); a person must confirm the arithmetic"
        tokens = [q.text for q in unstated]
        return missing(
            self.name,
            Label.NEEDS_REVIEW,
            "Computed numbers",
            tokens,
            status=CheckStatus.NEEDS_REVIEW,
            how=how,
            finding=Finding.DERIVED,
        )
