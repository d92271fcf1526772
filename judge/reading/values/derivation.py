"""Whether a claim number not stated in the evidence is computed from numbers that are.

A claim may convert a unit ("150 minutes" for 2.5 hours, "$144 a year" for $12 a month) or do
arithmetic ("2.4 percentage points" for a margin that went from 16.1% to 18.5%, "rose 50%" for
$1.4 billion to $2.1 billion, "three times as common" for 6.3% against 2.1%, "63 goals" for 36
and 27). :func:`derivations` computes these exactly (``Decimal``), from the evidence numbers of
the sentences that restate the claim only, and keeps a result only where it rounds to the
claim's number at the claim's own precision: the claim passes, with the computation shown
("2.4 percentage points = 18.5% − 16.1%"). Over a whole evidence text some pair of numbers lands
on almost any small number by chance, so arithmetic over any two evidence numbers is only a
reason for review, and only when the claim says it computes ("total", "combined", "rose by", a
share of "either X or Y").
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal, DivisionByZero, InvalidOperation
from functools import lru_cache
from itertools import combinations, permutations

from judge.reading import lexicon
from judge.reading.reading import Reading, read
from judge.reading.restatement import Grain, best_sentences, restatements, wanted_forms
from judge.reading.values import units
from judge.reading.values.matching import found_in, rounds_to
from judge.reading.values.quantities import Quantity, written_start


def _cue_pattern() -> re.Pattern[str]:
    phrases = sorted(
        (
            word
            for entry in lexicon.entries("arithmetic")
            if entry.name != "after_number"
            for word in entry.words
        ),
        key=len,
        reverse=True,
    )
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


# --- exact derivations ---------------------------------------------------------------------

# A multiple after a number: "three times as common", "a 3x rise", "a threefold increase".
_MULTIPLE_AFTER = re.compile(r"^\s*(?:times\b|x\b|-?fold\b)", re.IGNORECASE)
# Words right after a number (and its unit) by which the claim computes it: a multiple or a
# difference of two evidence numbers ("three times capital expenditures", "991 metres above
# the hut"). Not "times" of a frequency ("three times a day").
_COMPUTES_AFTER = re.compile(
    rf"^\s*(?:{lexicon.alternation(lexicon.words('arithmetic', name='after_number'))})"
    r"(?![\w-])(?!\s+(?:a|an|per|each|every)\s)",
    re.IGNORECASE,
)
# "2.5 points above": percentage points, where the numbers it comes from are percentages.
_POINTS_AFTER = re.compile(r"^\s+points?\b", re.IGNORECASE)
# Words by which a claim's percentage is a change ("rose 50%"), not a level or a share.
_CHANGE_WORDS = re.compile(
    rf"\b(?:{lexicon.alternation(lexicon.words('frames', name='change'))})\b", re.IGNORECASE
)
# Periods of a rate one converts exactly into another: "$12 a month" is "$144 a year".
_PERIODS_PER = {("month", "year"): Decimal(12), ("day", "week"): Decimal(7)}
# Values summed as one total at most.
_MOST_TERMS = 6


@dataclass(frozen=True)
class Derivation:
    """A claim number computed from evidence numbers, and the computation as written."""

    value: Quantity
    result: Decimal
    text: str  # "2.4 percentage points = 18.5% − 16.1%"


@dataclass(frozen=True)
class _Sum:
    """A computation before it is written: an operator over evidence numbers."""

    result: Decimal
    form: str  # "{0} − {1}", "({0} − {1}) / {1}", "{0} / {1}", "{0} + {1} + ...", "{0} × 12"
    operands: tuple[Quantity, ...]


def derivations(claim: str, evidence: str) -> dict[int, Derivation]:
    """The numbers of ``claim`` that the evidence does not state but gives by a conversion or,
    where the claim says it computes, by exact arithmetic on the numbers of the sentences
    restating the claim; by their offset in the claim's reading."""
    return dict(_derivations(claim, evidence))


@lru_cache(maxsize=256)
def _derivations(claim: str, evidence: str) -> tuple[tuple[int, Derivation], ...]:
    said, source = read(claim), read(evidence)
    computes = arithmetic_cue(said.folded) is not None
    found: list[tuple[int, Derivation]] = []
    pool: list[Quantity] | None = None
    for number in said.numbers:
        if found_in(number, source.quantities):
            continue
        computed = _converted(number, source.quantities)
        after = said.text[number.end : number.end + 40]
        if computed is None and (computes or _COMPUTES_AFTER.match(after)):
            if pool is None:
                pool = _operands(said, source)
            computed = _computed(number, said, pool)
        if computed is not None:
            operands = [_written(q, source.text) for q in computed.operands]
            text = f"{_written(number, said.text)} = {computed.form.format(*operands)}"
            found.append((number.start, Derivation(number, computed.result, text)))
    return tuple(found)


def _written(quantity: Quantity, text: str) -> str:
    """A number as its text writes it: with the currency before its digits ("$2.1 billion"),
    and the "times" of a multiple."""
    start, end = written_start(quantity, text), quantity.end
    multiple = _MULTIPLE_AFTER.match(text[end : end + 8])
    if multiple is not None:
        end += multiple.end()
    return text[start:end].strip()


def _converted(number: Quantity, evidence: Sequence[Quantity]) -> _Sum | None:
    """The number as an evidence number in another unit, or as a rate over another period."""
    other = by_conversion(number, evidence)
    if other is not None:
        return _Sum(number.value, "{0}", (other,))
    if number.per is None:
        return None
    for candidate in evidence:
        factor = _PERIODS_PER.get((str(candidate.per), number.per))
        if factor is None or candidate.unit != number.unit:
            continue
        result = candidate.value * factor
        if rounds_to(number, result):
            return _Sum(result, f"{{0}} × {factor}", (candidate,))
    return None


def _operands(claim: Reading, evidence: Reading) -> list[Quantity]:
    """The evidence numbers a claim may compute from: those of the evidence sentences that
    restate it (all its content words but a few), else of the one that matches it best."""
    found = restatements(
        claim.text, evidence, wanted_forms(claim.content_forms), grain=Grain.SENTENCE
    )
    spans = [(r.start, r.end) for r in found[:2]]
    if not spans:
        spans = [(s.start, s.end) for s in best_sentences(claim.text, evidence, 1)]
    return [
        q
        for q in evidence.quantities
        if q.checkable and any(start <= q.start and q.end <= end for start, end in spans)
    ]


def _computed(number: Quantity, claim: Reading, pool: Sequence[Quantity]) -> _Sum | None:
    multiple = bool(_MULTIPLE_AFTER.match(claim.text[number.end : number.end + 8]))
    change = number.unit == units.PERCENT and bool(_CHANGE_WORDS.search(claim.text))
    points = number.unit == units.POINTS or (
        number.unit is None and bool(_POINTS_AFTER.match(claim.text[number.end : number.end + 12]))
    )
    for computed in _candidates(number, pool, multiple=multiple, change=change, points=points):
        if rounds_to(number, computed.result):
            return computed
    return None


def _candidates(
    number: Quantity, pool: Sequence[Quantity], *, multiple: bool, change: bool, points: bool
) -> Iterator[_Sum]:
    """The computations a claim number may be, by what it is: a multiple (a ratio), a change
    in percentage points (a difference of two percentages), a change in percent (of two
    amounts of one unit), or an amount (a difference or a total of amounts of its unit)."""
    values = [q for q in pool if not q.ordinal and q.bound is None]
    if multiple:
        for a, b in permutations(values, 2):
            if b.value and a.unit == b.unit and a.value > b.value:
                yield _Sum(a.value / b.value, "{0} / {1}", (a, b))
        return
    if points:
        shares = [q for q in values if q.unit in {units.PERCENT, units.POINTS}]
        for a, b in permutations(shares, 2):
            if a.value > b.value:
                yield _Sum(a.value - b.value, "{0} − {1}", (a, b))
        return
    if change:
        for a, b in permutations(values, 2):
            if a.unit == b.unit and b.value and a.unit != units.PERCENT:
                yield _Sum(abs(a.value - b.value) / b.value * 100, "({0} − {1}) / {1}", (a, b))
        return
    same = [q for q in values if q.unit == number.unit]
    for a, b in permutations(same, 2):
        if a.value > b.value:
            yield _Sum(a.value - b.value, "{0} − {1}", (a, b))
    # Totals: any two, or a run of listed values.
    terms_of: list[tuple[Quantity, ...]] = [*combinations(same, 2)]
    terms_of += [
        tuple(same[start : start + size])
        for size in range(3, min(len(same), _MOST_TERMS) + 1)
        for start in range(len(same) - size + 1)
    ]
    for terms in terms_of:
        total = sum((q.value for q in terms), Decimal(0))
        form = " + ".join(f"{{{k}}}" for k in range(len(terms)))
        yield _Sum(total, form, terms)
