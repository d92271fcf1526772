"""The arithmetic check: a claim that computes what the evidence does not state needs a person.

It fires on a claim that announces a computation ("in total", "combined", "rose by 25%",
"percentage points", "on average") or converts a unit ("3 weeks" for 21 days), and only when
the resulting number is not itself in the evidence: a total the evidence states is just a fact.
"""

from __future__ import annotations

from judge.pipeline.checks.outcome import missing, passed
from judge.reading import read
from judge.reading.values.derivation import arithmetic_cue, by_conversion
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
        unstated = [q for q in wanted if not found_in(q, pool)]
        converted = [(q, c) for q in unstated if (c := by_conversion(q, pool)) is not None]
        if cue is None and not converted:
            return None
        if not unstated:
            return passed(self.name, "The computed numbers of the claim were")
        if converted and cue is None:
            how = "; ".join(f"{q.text!r} converts {c.text!r}" for q, c in converted)
            tokens = [q.text for q, _ in converted]
        else:
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
