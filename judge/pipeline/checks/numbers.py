"""The number check: every number in the claim must be in the evidence.

Numbers compare as quantities, not strings: thousands separators, currency symbols and codes,
"per cent", scale words ("1.5 million", "$1.5M"), number words ("thirty", "a dozen", "one in
five"), ordinals and Unicode digits are read first (:mod:`judge.reading.values`), and a claim
number may be a rounding of an evidence number (:mod:`judge.reading.values.matching`). The
claim's numbers are those its reading owns: dates, times of day, codes, citation markers and
list enumerators are other values, and number words used as words ("one of", "the first") or
digits inside names ("COVID-19", "3D") are none. A score or tally ("won 3-1") must match a
pair of the evidence as a pair. A number the claim computes from evidence numbers (a unit
conversion, or a total the claim announces) is left to the arithmetic check.

A claim number the evidence holds only as a number of another kind, in the sentence that
restates the claim, has changed its kind: "margin rose 3%" against "margin rose 3 percentage
points ... revenue grew 3%".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal

from judge.pipeline.checks.outcome import conflicting, located, missing, passed
from judge.reading import Reading, read
from judge.reading.cited import Cited, locate_in
from judge.reading.restatement import Grain, best_sentences, restatements, wanted_forms
from judge.reading.values import units
from judge.reading.values.derivation import (
    arithmetic_cue,
    by_arithmetic,
    by_conversion,
    derivations,
)
from judge.reading.values.intervals import Range
from judge.reading.values.matching import found_in, rounds_to, same_quantity
from judge.reading.values.quantities import Quantity, with_limit
from judge.reading.values.slots import kind
from judge.schemas import CheckOutcome, Label


def kind_conflict(quantity: Quantity, claim: Reading, evidence: Reading) -> Quantity | None:
    """The evidence number of the sentence restating the claim that has the claim number's
    value but another kind, when that sentence has no number of the claim's own kind and
    value."""
    if quantity.unit is None:
        return None
    found = restatements(
        claim.text, evidence, wanted_forms(claim.content_forms), grain=Grain.SENTENCE
    )
    if not found:
        return None
    start, end = found[0].start, found[0].end
    inside = [q for q in evidence.quantities if start <= q.start and q.end <= end]
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


def _as_written(
    mine: Quantity, theirs: Quantity, claim: Reading, evidence: Reading
) -> tuple[str, str]:
    """The two numbers of a conflict as a reader tells them apart: with the words that make
    them limits where the digits are the same ("at most 5 days" where the evidence says "at
    least 5 days")."""
    if mine.text.casefold() != theirs.text.casefold():
        return mine.text, theirs.text
    return with_limit(mine, claim.text), with_limit(theirs, evidence.text)


def score_conflicts(claim: Reading, evidence: Reading) -> list[tuple[str, str]]:
    """Each score of the claim ("beat Liverpool 3-2") that the evidence states otherwise, with
    the evidence's: a pair sharing a count with it, and none holding both of its counts, in
    either order."""
    stated = evidence.scores
    if not stated:
        return []
    held = {score.counts for score in stated}
    conflicts: list[tuple[str, str]] = []
    for score in claim.scores:
        if score.first < score.second or score.counts in held:
            continue  # a pair running upwards is a range ("3-5 days")
        other = next((s for s in stated if set(s.counts) & set(score.counts)), None)
        if other is not None:
            conflicts.append((score.text, other.text))
    return conflicts


Place = tuple[tuple[int, int], tuple[int, int] | None]  # a claim span, the evidence's span


def range_conflicts(
    claim: Reading, evidence: Reading
) -> tuple[list[tuple[str, str]], set[int], list[Place]]:
    """The claim's ranges and values that the evidence states as another range: a range with
    one end of an evidence range and another end ("2.5 to 20 mg" where the evidence's range is
    "2.5 to 5 mg"), and a value that is only an end of an evidence range ("$6.30" where the
    evidence gives "$6.10 to $6.30": a range is not its maximum). With the offsets of the
    claim's numbers they account for, and where each conflict stands in the two texts."""
    stated = evidence.ranges
    if not stated:
        return [], set(), []
    conflicts: list[tuple[str, str]] = []
    places: list[Place] = []
    handled: set[int] = set()
    ends = {id(q) for r in stated for q in (r.low, r.high)}
    points = [q for q in evidence.quantities if id(q) not in ends]
    for mine in claim.ranges:
        if any(_same_range(mine, theirs) for theirs in stated):
            handled.update((mine.low.start, mine.high.start))
            continue
        if mine.low.approx or mine.high.approx:
            continue  # "between about 10 and 20 percent": a rough range, read end by end
        other = next(
            (
                theirs
                for theirs in stated
                if same_quantity(mine.low, theirs.low) or same_quantity(mine.high, theirs.high)
            ),
            None,
        )
        if other is not None:
            conflicts.append((_as_claimed(claim, mine.start, mine.end), other.text))
            places.append(((mine.start, mine.end), (other.start, other.end)))
            handled.update((mine.low.start, mine.high.start))
    in_ranges = {q.start for r in claim.ranges for q in (r.low, r.high)}
    for number in claim.numbers:
        if number.start in in_ranges or number.bound is not None or found_in(number, points):
            continue
        if number.unit is None or number.ordinal or number.approx:
            continue  # a bare count or a rough value may be the end it names
        if units.dimension(number.unit) == "time":
            continue  # "refunds take 7 days" for "5 to 7 days": a time is said by its longest
        other = next(
            (
                theirs
                for theirs in stated
                if same_quantity(number, theirs.low) or same_quantity(number, theirs.high)
            ),
            None,
        )
        if other is not None:
            conflicts.append((number.text, other.text))
            places.append(((number.start, number.end), (other.start, other.end)))
            handled.add(number.start)
    return conflicts, handled, places


def rival_ranges(
    unstated_numbers: Sequence[Quantity], claim: Reading, evidence: Reading
) -> list[tuple[Range, Range]]:
    """Each claim range the evidence states neither end of, with the range of the same unit
    that the evidence sentences matching the claim best give in its place ("between 8.1 and
    12.3 percent" where the evidence's estimate ranged from 2.49% to 4.16%)."""
    found = []
    spans: list[tuple[int, int]] | None = None
    for mine in claim.ranges:
        if not (
            any(q is mine.low for q in unstated_numbers)
            and any(q is mine.high for q in unstated_numbers)
        ):
            continue
        if spans is None:
            spans = [(s.start, s.end) for s in best_sentences(claim.text, evidence)]
        other = next(
            (
                theirs
                for theirs in evidence.ranges
                if theirs.high.unit == mine.high.unit
                and any(start <= theirs.start and theirs.end <= end for start, end in spans)
            ),
            None,
        )
        if other is not None:
            found.append((mine, other))
    return found


def _as_claimed(claim: Reading, start: int, end: int) -> str:
    """A span of the claim's reading as the claim writes it ("3–7", not the "3-7" it reads)."""
    found = locate_in(claim.raw, claim.text, start, end)
    return claim.raw[found[0] : found[1]] if found else claim.text[start:end]


def _same_range(mine: Range, theirs: Range) -> bool:
    return same_quantity(mine.low, theirs.low) and same_quantity(mine.high, theirs.high)


# A count the claim tallies itself: the items it lists after the counted noun ("four main
# minerals: quartz, feldspar, mica and amphiboles") or before it ("Ali and Frazier, the two
# fighters").
_LIST_AFTER = re.compile(
    r"^[^.;:()–—]{0,40}?(?::|\s[–—-]\s|\(|,\s+(?:namely|including|such\s+as)|"
    r"\s(?:are|were|include|includes|included)\s)\s*(?P<items>[^.;()]+)"
    # or set off by commas: "the two fighters, Ali and Frazier, met"
    r"|^\s*(?:\w+\s+){0,2}?\w+,\s+(?P<apposed>[^,.;]+?\s+(?:and|or)\s+[^,.;]+?),",
    re.IGNORECASE,
)
_LIST_BEFORE = re.compile(
    r"(?P<items>[^.;:(),]+(?:,[^.;:(),]+)*)(?:,\s+(?:the|these|those|both)|\s+(?:are|were))\s+$"
    r"(?P<apposed>)",
    re.IGNORECASE,
)
_ITEM_BREAK = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", re.IGNORECASE)
SMALL_COUNT = Decimal(10)


def tallied(count: Quantity, claim: Reading) -> bool:
    """Whether ``count`` (a small count in words) is the number of items the claim itself
    lists next to it: the claim, not the evidence, says what it counts."""
    if not (count.spelled and 1 < count.value <= SMALL_COUNT):
        return False
    text = claim.text
    after = _LIST_AFTER.match(text[count.end :])
    before = _LIST_BEFORE.search(text[: count.start])
    for found in (after, before):
        if found is not None:
            listed = found.group("items") or found.group("apposed")
            items = [i for i in _ITEM_BREAK.split(listed.strip()) if i.strip()]
            if len(items) == count.value:
                return True
    return False


# A number that ends a name ("angiotensin-converting enzyme 2", "BRCA 1", "fibroblast growth
# factor 21") is borne out where the evidence writes the name's short form glued to it
# ("ACE2", "BRCA1", "FGF21"): the words before it, whole or by their initials.
NAME_WORDS = 4
_NAME_WORD = re.compile(r"[A-Za-z][A-Za-z]*(?:-[A-Za-z]+)*")


def named_in(number: Quantity, claim: Reading, evidence: Reading) -> bool:
    """Whether ``number`` (a bare whole number) ends a name whose short form the evidence
    writes with the same digits."""
    if number.unit is not None or number.spelled or number.exponent != 0:
        return False
    before = claim.text[max(0, number.start - 80) : number.start]
    words = [w for w in _NAME_WORD.findall(before.split(",")[-1])][-NAME_WORDS:]
    digits = claim.text[number.start : number.end].strip()
    forms = set()
    for start in range(len(words)):
        tail = words[start:]
        forms.add("".join(part[0] for word in tail for part in word.split("-")))
    if words:
        forms.add(words[-1])
    for form in {f for f in forms if len(f) >= 2}:
        pattern = rf"(?<![A-Za-z0-9]){re.escape(form)}-?{re.escape(digits)}(?![0-9])"
        if re.search(pattern, evidence.text, re.IGNORECASE):
            return True
    return False


def _duration(number: Quantity) -> bool:
    return units.dimension(number.unit) == "time"


def _not_clock(evidence: Reading) -> list[Quantity]:
    """The evidence numbers a duration may be borne out by: not the hour of a clock time
    ("8 hours" is not the "8h" of "at 8h" nor the "8" of "8 a.m.")."""
    clocks = [(t.start, t.end) for t in evidence.times]
    return [
        q for q in evidence.quantities if not any(s <= q.start and q.end <= e for s, e in clocks)
    ]


def unstated(
    wanted: Sequence[Quantity], pool: Sequence[Quantity], *, computes: bool
) -> list[Quantity]:
    """The claim numbers no evidence number equals, converts to, or (when the claim says it
    computes) gives by arithmetic."""
    return [
        q
        for q in wanted
        if not found_in(q, pool)
        and by_conversion(q, pool) is None
        and not (computes and by_arithmetic(q, pool))
    ]


def restating_sentence(claim: Reading, evidence: Reading) -> tuple[int, int] | None:
    """The span of the evidence sentence that restates the claim, if one does."""
    found = restatements(
        claim.text, evidence, wanted_forms(claim.content_forms), grain=Grain.SENTENCE
    )
    return (found[0].start, found[0].end) if found else None


def rival(number: Quantity, claim: Reading, evidence: Reading) -> Quantity | None:
    """The value the evidence gives in the number's place: a number of the same kind (unit,
    the noun it counts, the name it numbers) and another value, in the sentence that restates
    the claim or, where none restates it closely, in the sentences that match it best. With
    one, the evidence states something else; without, it is silent."""
    wanted = _kind_of(number, claim.text)
    if wanted is None:
        return None
    span = restating_sentence(claim, evidence)
    spans = [span] if span else [(s.start, s.end) for s in best_sentences(claim.text, evidence)]
    for start, end in spans:
        for other in evidence.quantities:
            if not (start <= other.start and other.end <= end) or not other.checkable:
                continue
            if _kind_of(other, evidence.text) == wanted and not same_quantity(number, other):
                return other
    return None


def _kind_of(number: Quantity, text: str) -> str | None:
    """What a number measures or counts; a share is one kind, as a percentage or a fraction."""
    found = kind(number, text)
    return units.PERCENT if found == units.FRACTION else found


class NumberCheck:
    """Fails a claim holding a number that no evidence number equals or rounds to: a
    conflict where the evidence sentence restating the claim gives another value of the same
    kind, else a number the evidence does not state."""

    name: str = "numbers"
    lexicon: tuple[str, ...] = ()  # digits, codes and characters: every language

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None:
        return self.check_passages(claim, [("", evidence)])

    def check_passages(
        self, claim: str, passages: Sequence[tuple[str, str]]
    ) -> CheckOutcome | None:
        said = read(claim)
        if not said.numbers:
            return None
        cited = Cited(passages)
        source, evidence = cited.reading, cited.text
        wanted = [q for q in said.numbers if not tallied(q, said)]
        computes = arithmetic_cue(said.folded) is not None
        derived = derivations(claim, evidence)
        wanted = [q for q in wanted if q.start not in derived]  # the arithmetic check's
        absent: list[str] = []
        unread: list[Place] = []  # where each absent number stands in the claim
        conflicts, ranged, places = range_conflicts(said, source)
        written: list[str] = [mine for mine, _ in conflicts]  # the claim's values in conflict
        wanted = [q for q in wanted if q.start not in ranged]
        spans = unstated(
            [q for q in wanted if not _duration(q)], source.quantities, computes=computes
        ) + unstated([q for q in wanted if _duration(q)], _not_clock(source), computes=computes)
        for mine, theirs in rival_ranges(spans, said, source):
            conflicts.append((_as_claimed(said, mine.start, mine.end), theirs.text))
            places.append(((mine.start, mine.end), (theirs.start, theirs.end)))
            written.append(mine.text)
            spans = [q for q in spans if not mine.holds(q)]
        for q in sorted(spans, key=lambda q: q.start):
            if named_in(q, said, source):
                continue
            if (other := rival(q, said, source)) is not None:
                conflicts.append(_as_written(q, other, said, source))
                places.append(((q.start, q.end), (other.start, other.end)))
                written.append(q.text)
            else:
                absent.append(q.text)
                unread.append(((q.start, q.end), None))
        for q in wanted:
            if q.text in absent or q.text in written:
                continue
            if (other := kind_conflict(q, said, source)) is not None:
                conflicts.append(_as_written(q, other, said, source))
                places.append(((q.start, q.end), (other.start, other.end)))
                written.append(q.text)
        for score, other_score in score_conflicts(said, source):
            conflicts.append((score, other_score))
            written.append(score)
        how = "compared as values of the same kind, allowing only rounding to the claim's precision"
        if conflicts:
            span = restating_sentence(said, source)
            outcome = conflicting(
                self.name,
                Label.NUMBER_MISMATCH,
                "Numbers",
                conflicts,
                absent=absent,
                how=how,
                sentence=source.text[span[0] : span[1]] if span else "",
                written=written,
            )
            return _placed(outcome, claim, cited, places)
        if absent:
            outcome = missing(self.name, Label.NUMBER_MISMATCH, "Numbers", absent, how=how)
            return _placed(outcome, claim, cited, unread)
        return passed(self.name, "Every number of the claim was")


def _placed(outcome: CheckOutcome, claim: str, cited: Cited, places: list[Place]) -> CheckOutcome:
    """The outcome with the spans of its first finding (a score's are not kept)."""
    if not places:
        return outcome
    mine, theirs = places[0]
    return located(outcome, claim, mine, cited, theirs)
