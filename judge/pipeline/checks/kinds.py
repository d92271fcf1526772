"""Numbers of another kind: a claim's "3%" is not the "3 percentage points" it restates.

The number check finds a claim number anywhere in the cited evidence, so "margin rose 3%"
passes on "margin rose 3 percentage points ... revenue grew 3%". Here the evidence sentence the
claim restates (the one sharing most of its words) decides: when it holds the claim's value only
as a number of another kind (percent against percentage points, money, a unit), the claim has
changed the kind of its number, whatever unrelated figure elsewhere matches.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from judge.pipeline.checks import units
from judge.pipeline.checks.matching import rounds_to, same_quantity
from judge.pipeline.checks.quantities import Quantity

_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?](?!\d)|$)")
_WORD = re.compile(r"[a-z]{3,}")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.casefold()))


def restated_sentence(claim: str, evidence: str) -> tuple[int, int] | None:
    """Span of the evidence sentence sharing most words with the claim (at least two)."""
    wanted = _words(claim)
    best: tuple[int, tuple[int, int] | None] = (1, None)
    for match in _SENTENCE.finditer(evidence):
        shared = len(wanted & _words(match.group(0)))
        if shared > best[0]:
            best = (shared, match.span())
    return best[1]


def kind_conflict(
    quantity: Quantity, claim: str, evidence: str, pool: Sequence[Quantity]
) -> Quantity | None:
    """The evidence number of the restated sentence that has the claim number's value but
    another kind, when that sentence has no number of the claim's own kind and value.
    ``claim`` and ``evidence`` are normalised; ``pool`` holds the evidence's quantities."""
    if quantity.unit is None:
        return None
    span = restated_sentence(claim, evidence)
    if span is None:
        return None
    inside = [q for q in pool if span[0] <= q.start and q.end <= span[1]]
    if any(same_quantity(quantity, q) for q in inside):
        return None
    return next(
        (
            q
            for q in inside
            if q.unit is not None
            and not units.compatible(quantity.unit, q.unit)
            and rounds_to(quantity, q.value)
        ),
        None,
    )
