"""The number check: every number in the claim must be in the evidence.

Numbers compare as quantities, not strings: thousands separators, currency symbols and codes,
"per cent", scale words ("1.5 million", "$1.5M"), number words ("thirty", "a dozen", "one in
five"), ordinals and Unicode digits are normalised first, and a claim number may be a rounding
of an evidence number (see ``matching``). Not read here: dates and years (the date check), times
of day (the time check), codes (the identifier check), number words used as words ("one of",
"the first", "second half"), digits inside names ("COVID-19", "3D"), citation markers and list
enumerators. A score or tally ("won 3-1") must match a pair of the evidence as a pair
(``scores``). A number the claim computes from evidence numbers (a unit conversion, or a total
the claim announces) is left to the arithmetic check.
"""

from __future__ import annotations

import re

from judge.pipeline.checks.clock_times import find_times
from judge.pipeline.checks.date_mentions import find_dates
from judge.pipeline.checks.derivation import arithmetic_cue, by_arithmetic, by_conversion
from judge.pipeline.checks.identifiers import find_identifiers
from judge.pipeline.checks.kinds import kind_conflict
from judge.pipeline.checks.matching import found_in
from judge.pipeline.checks.outcome import missing, passed
from judge.pipeline.checks.quantities import (
    Quantity,
    evidence_quantities,
    find_quantities,
    masked,
)
from judge.pipeline.checks.scores import score_conflicts
from judge.pipeline.checks.text import normalise
from judge.schemas import CheckOutcome, Label

# Inline citation markers ("[1]", "[2, 3]") and list enumerators ("8) The report...") are
# references and layout, not numbers the claim states.
_NOT_STATED = re.compile(
    r"\[\s*\d+(?:\s*[,;-]\s*\d+)*\s*\]|^\s*\(?\d{1,2}[.)]\s+(?=[A-Za-z])", re.MULTILINE
)


def claim_quantities(text: str) -> list[Quantity]:
    """The numbers of a normalised claim that the number check is responsible for."""
    spans = [(d.start, d.end) for d in find_dates(text)]
    spans += [(t.start, t.end) for t in find_times(text)]
    spans += [(i.start, i.end) for i in find_identifiers(text)]
    spans += [m.span() for m in _NOT_STATED.finditer(text)]
    return [q for q in masked(find_quantities(text), spans) if q.checkable]


class NumberCheck:
    """Fails a claim holding a number that no evidence number equals or rounds to."""

    name: str = "numbers"

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None:
        text = normalise(claim)
        wanted = claim_quantities(text)
        if not wanted:
            return None
        pool = evidence_quantities(evidence)
        computes = arithmetic_cue(text.casefold()) is not None
        absent = [
            q.text
            for q in wanted
            if not found_in(q, pool)
            and by_conversion(q, pool) is None
            and not (computes and by_arithmetic(q, pool))
        ]
        seen = normalise(evidence)
        absent += [
            f"{q.text} (the evidence says {other.text})"
            for q in wanted
            if q.text not in absent and (other := kind_conflict(q, text, seen, pool)) is not None
        ]
        absent += score_conflicts(text, seen)
        if absent:
            return missing(
                self.name,
                Label.NUMBER_MISMATCH,
                "Numbers",
                absent,
                how="compared as values of the same kind, allowing only rounding to the claim's "
                "precision",
            )
        return passed(self.name, "Every number of the claim was")
