"""Whether a claim number not stated in the evidence is computed from numbers that are.

A claim may convert a unit ("3 weeks" for 21 days) or do arithmetic ("a total of 150" for 75 and
75, "rose 25%" for 100 to 125). Such a number is not a mismatch, but a person has to confirm it.
Pairwise arithmetic is only tried when the claim says it computes ("total", "combined", "rose
by", a share of "either X or Y"): over many evidence numbers, some pair lands on almost any small
number by chance.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from decimal import Decimal, DivisionByZero, InvalidOperation

from judge.reading import lexicon
from judge.reading.values import units
from judge.reading.values.matching import rounds_to
from judge.reading.values.quantities import Quantity


def _cue_pattern() -> re.Pattern[str]:
    phrases = sorted(lexicon.words("arithmetic"), key=len, reverse=True)
    alternatives = []
    for phrase in phrases:
        body = re.escape(phrase).replace(r"\ ", r"\s+")
        if phrase == "either":
            body = r"either\b[^.;]*\bor"  # a share of "either X or Y"
        # A phrase that opens with a letter starts a word; "-fold higher" follows a number.
        alternatives.append(rf"(?<![\w-]){body}" if phrase[0].isalpha() else body)
    return re.compile(r"(?:" + "|".join(alternatives) + r")\b")


_IDIOMS = re.compile(
    "|".join(
        rf"\b{re.escape(idiom)}\b"
        for entry in lexicon.entries("arithmetic")
        for idiom in entry.idioms
    )
)


ARITHMETIC_CUE = _cue_pattern()
_POOL_LIMIT = 60  # distinct evidence values tried pairwise; bounds the work per claim


def arithmetic_cue(folded_claim: str) -> str | None:
    """The words by which a (casefolded) claim says it computes, if any."""
    match = ARITHMETIC_CUE.search(_IDIOMS.sub(" ", folded_claim))
    return match.group(0) if match else None


def by_conversion(claim: Quantity, evidence: Sequence[Quantity]) -> Quantity | None:
    """An evidence number that is the claim number in another unit of the same dimension."""
    if units.dimension(claim.unit) is None or claim.unit is None:
        return None
    for candidate in evidence:
        if candidate.unit is None or candidate.unit == claim.unit:
            continue
        converted = units.convert(candidate.value, candidate.unit, claim.unit)
        if converted is not None and rounds_to(claim, converted):
            return candidate
    return None


def by_arithmetic(claim: Quantity, evidence: Sequence[Quantity]) -> bool:
    """Whether a sum, difference, ratio or percentage of two evidence numbers gives the claim's."""
    pool = _pool(claim, evidence)
    return any(rounds_to(claim, result) for result in _results(pool))


def _pool(claim: Quantity, evidence: Sequence[Quantity]) -> list[Decimal]:
    """Evidence values to combine; a value stated twice may be added to itself (75 + 75)."""
    counts: dict[Decimal, int] = {}
    for candidate in evidence:
        if candidate.unit is not None and claim.unit is not None and not _related(claim, candidate):
            continue
        if candidate.value not in counts and len(counts) >= _POOL_LIMIT:
            continue
        counts[candidate.value] = min(counts.get(candidate.value, 0) + 1, 2)
    return [value for value, count in counts.items() for _ in range(count)]


def _related(claim: Quantity, candidate: Quantity) -> bool:
    # A percentage-point or percentage claim may come from percentages or from raw counts.
    if claim.unit in {units.PERCENT, units.POINTS}:
        return candidate.unit in {units.PERCENT, units.POINTS, None}
    return units.compatible(claim.unit, candidate.unit)


def _results(pool: list[Decimal]) -> Iterator[Decimal]:
    for i, a in enumerate(pool):
        for b in pool[i + 1 :]:
            yield a + b
            yield abs(a - b)
            for x, y in ((a, b), (b, a)):
                if y == 0:
                    continue
                try:
                    yield x / y
                    yield x / y * 100
                    yield (x - y) / y * 100
                except (DivisionByZero, InvalidOperation):
                    continue
