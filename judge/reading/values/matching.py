"""When a number in a claim is the same quantity as a number in the evidence.

Equal after normalisation, or the claim number is a rounding of the evidence number to the
claim's own precision: "40%" for 39.6%, "1.5 million" for 1,482,000. Rounding coarser than a
unit (a scale word, or a number ending in two or more zeros: "1,400", "20,000") must also stay
within a small relative error; a hedged number ("about", "nearly") within a larger one. A limit
("more than 20", "under 10%") holds for every evidence value on its side of it, and for an
evidence limit as tight or tighter on the same side; never for a limit on the other side.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from judge.reading.values import units
from judge.reading.values.quantities import Bound, Quantity

ROUNDING_TOLERANCE = Decimal("0.05")
HEDGED_TOLERANCE = Decimal("0.10")


def rounds_to(claim: Quantity, value: Decimal) -> bool:
    """Whether ``claim`` is ``value`` as the claim's writer could have rounded it."""
    target = abs(claim.value)
    diff = abs(abs(value) - target)
    tolerance = HEDGED_TOLERANCE if claim.approx else ROUNDING_TOLERANCE
    within = diff <= tolerance * target
    if diff <= Decimal(5).scaleb(claim.exponent - 1):
        # Rounding to a unit, or finer, is what writing the digits says; rounding to thousands
        # or millions ("1 million" for 500,000) says less, so it is held to the relative bound.
        return claim.exponent <= 0 or within
    half_coarse = Decimal(5).scaleb(claim.coarse - 1)
    if claim.coarse - claim.exponent >= 2 and diff <= half_coarse and within:
        return True
    return claim.approx and within


def same_quantity(claim: Quantity, evidence: Quantity) -> bool:
    if not units.compatible(claim.unit, evidence.unit):
        return False
    # A counter's count ("120万辆", 1.2 million vehicles) is a count as a counted noun is.
    if evidence.counts and claim.unit is not None and not units.is_count(claim.unit):
        return False  # "2 days" is not the "2" of "2 tablets"
    if (
        claim.counts
        and evidence.unit is not None
        and not (units.is_currency(evidence.unit) or units.is_count(evidence.unit))
    ):
        return False  # nor is "500 tablets" the "500" of "500 mg"
    if evidence.ordinal and claim.unit is not None and not claim.unit.startswith("cur:"):
        return False  # "one day" is not "the first" response
    if claim.negative and not evidence.negative:
        return False
    if claim.per is not None and evidence.per is not None and claim.per != evidence.per:
        return False  # "$4.99 a month" is not "$4.99 a year"
    value = evidence.value
    if claim.unit == units.FRACTION and evidence.unit == units.PERCENT:
        value = value / 100
    elif claim.unit == units.PERCENT and evidence.unit == units.FRACTION:
        value = value * 100
    if claim.bound is not None and not claim.negative and not evidence.negative:
        return within_limit(claim, value, evidence.bound)
    return rounds_to(claim, value)


def within_limit(claim: Quantity, value: Decimal, stated: Bound | None) -> bool:
    """Whether an evidence value (itself a limit when ``stated``) bears out the claim's limit.

    The value must lie on the limit's side of it, and near it: within one step of the limit's
    coarsest digit or half the limit ("more than 20" for 20 to 30, "under 10%" for up to
    10%), since a writer sets a limit just past the value, and any number of the evidence far
    beyond it is about something else. A value equal to the limit counts: "over 20 years" is
    said of twenty years as often as not. A limit on the other side never bears it out.
    """
    if stated is not None and stated is not claim.bound:
        return False
    limit = claim.value
    reach = max(Decimal(1).scaleb(claim.coarse), limit / 2)
    if claim.bound is Bound.AT_LEAST:
        return limit <= value <= limit + reach
    return limit - reach <= value <= limit


def found_in(claim: Quantity, evidence: Iterable[Quantity]) -> bool:
    return any(same_quantity(claim, candidate) for candidate in evidence)
