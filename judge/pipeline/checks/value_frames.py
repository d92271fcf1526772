"""The value frame check: a value of the claim must be stated of what the claim states it of.

The number and date checks find each value somewhere in the cited evidence. A claim can still
give a value of the evidence to another fact: the third quarter's revenue to the second, the
adjusted figure to GAAP, the revenue growth to the operating margin, the Premium plan's storage
to the Basic plan, the record date to the payment date. Each value is read with its frame
(:mod:`judge.reading.values.frames`) on both sides, and the claim's value is borne out only by
an evidence statement of the same value whose frame agrees with the claim's:

* *period, basis, level or change*: where both state one and they cannot be the same (the
  second and the third quarter, "excluding special items" and GAAP, "grew 12%" and "12%
  margin"), that statement does not bear the value out;
* *what it is of*: where another value of the same kind in the evidence is said of the claim's
  words (its subject, the noun it measures, the group, the verb) clearly more closely than any
  statement of the claim's own value, and by words none of those statements share, the value
  was moved from one fact to another.

A value the evidence states only under another frame is a conflict: the outcome names both
("'$35.1 billion' is the evidence's figure for the third quarter of 2024, not the second
quarter of 2024") and labels the claim ``contradicted``. Values the evidence does not state are
left to the number and date checks, and claims in other languages than English are skipped,
with the reason (``lexicon``), as before this check.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from judge.pipeline.checks.outcome import located
from judge.reading import Reading, lexicon, read
from judge.reading.cited import Cited
from judge.reading.restatement import best_sentences
from judge.reading.values import units
from judge.reading.values.dates import DateMention
from judge.reading.values.frames import Frame, Role, Value, frames_in, sentence_of, values_of
from judge.reading.values.matching import rounds_to, same_quantity
from judge.reading.values.periods import conflict
from judge.reading.values.quantities import Quantity
from judge.schemas import CheckOutcome, CheckStatus, Finding, Label

# How far the claim's words must side with a rival rather than with the evidence's own
# statement of the value (:func:`sides_with`; a word next to the value counts 1, one two steps
# away 0.5, three 0.33): a word at three steps, or more than one further off. Set on the check
# gate (0.5 catches 4 fewer public claims, none of them supported; 0.25 flags 2 more
# supported claims).
MARGIN = 0.34
# What sharing the claim's subject adds to closeness, in proportion to the words shared.
SUBJECT = 0.5
# The evidence sentences matching the claim best, besides the one stating its value, where a
# rival is looked for.
RIVAL_SENTENCES = 2


@dataclass(frozen=True)
class Moved:
    """A claim value the evidence states only of another fact."""

    claim: Frame
    evidence: Frame  # the evidence's statement of the claim's value
    reason: str
    # Where the evidence states the claim's fact with another value, when it does.
    rival: Frame | None = None

    @property
    def read_against(self) -> tuple[int, int]:
        """The evidence sentence the finding was read against: the rival's, else the
        statement's."""
        return (self.rival or self.evidence).sentence


class ValueFrameCheck:
    """Fails (``contradicted``) a claim that states a value of the evidence of another fact."""

    name: str = "value_frames"
    lexicon: tuple[str, ...] = ("frames", "bases")

    def __init__(self, *, parsed: bool = True) -> None:
        self.parsed = parsed

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None:
        return self.check_passages(claim, [("", evidence)])

    def check_passages(
        self, claim: str, passages: Sequence[tuple[str, str]]
    ) -> CheckOutcome | None:
        said = read(claim)
        wanted = [
            v
            for v in values_of(said)
            if _framed(v) and not _in_range(v, said) and not self._a_period(said, v)
        ]
        if not wanted:
            return None
        cited = Cited(passages)
        source = cited.reading
        stated = values_of(source)
        moved: list[Moved] = []
        read_any = False
        for value in wanted:
            supports = [e for e in stated if _bears_out(value, e)]
            if not supports:
                continue  # the number and date checks' business
            read_any = True
            found = self._moved(value, supports, said, source, wanted)
            if found is not None:
                moved.append(found)
        if moved:
            first = moved[0]
            return located(
                _conflict(self.name, moved, source),
                claim,
                (first.claim.value.start, first.claim.value.end),
                cited,
                (first.evidence.value.start, first.evidence.value.end),
            )
        if not read_any:
            return None
        return CheckOutcome(
            check=self.name,
            status=CheckStatus.PASSED,
            detail="every value of the claim the evidence states is stated of what the claim "
            "states it of",
        )

    def _moved(
        self,
        value: Value,
        supports: Sequence[Value],
        claim: Reading,
        evidence: Reading,
        stated: Sequence[Value] = (),
    ) -> Moved | None:
        if not _may_conflict(value, supports, claim, evidence):
            return None  # nothing to read apart: no sentence is parsed
        mine = self._frame(claim, value)
        if mine is None:
            return None
        theirs = [f for v in supports if (f := self._frame(evidence, v)) is not None]
        if not theirs:
            return None
        agreeing = [f for f in theirs if slot_conflict(mine, f) is None]
        if not agreeing:
            best = max(theirs, key=lambda f: closeness(mine, f))
            return Moved(mine, best, str(slot_conflict(mine, best)))
        if not _checkable(value):
            return None  # a bare number: its period and basis are read, not what it is of
        support = max(agreeing, key=lambda f: closeness(mine, f))
        rival = self._rival(mine, support, evidence)
        if rival is None or any(_bears_out(other, rival.value) for other in stated):
            # A rival the claim states too ("2 years, batteries for 6 months") is the claim's
            # other fact, read in parallel, not the one this value was moved from.
            return None
        shared = ", ".join(_nearer(mine, rival, support))
        return Moved(
            mine,
            support,
            f"is the evidence's figure for {_of(support)}, not {_of(mine)}; "
            f"for that it gives {rival.value.text!r} (said with {shared})",
            rival,
        )

    def _rival(self, mine: Frame, support: Frame, evidence: Reading) -> Frame | None:
        """Another value of the claim value's kind that the evidence says of the claim's words
        clearly more closely than ``support``: in the support's sentence, or in another of the
        evidence's sentences that match the claim best when it also shares more of the claim's
        subject than ``support`` does ("The operating margin improved by 12%" where 12% is the
        revenue growth of the sentence before)."""
        own_subject = len(mine.subject & support.subject)
        sentences = [support.sentence] + [
            (s.start, s.end)
            for s in best_sentences(mine.what or mine.value.text, evidence, RIVAL_SENTENCES)
            if (s.start, s.end) != support.sentence
        ]
        best: Frame | None = None
        for sentence in sentences:
            elsewhere = sentence != support.sentence
            for frame in frames_in(evidence, sentence, parsed=self.parsed):
                if not _same_kind(mine, frame) or _bears_out(mine.value, frame.value):
                    continue
                if _in_range(frame.value, evidence):
                    continue
                if slot_conflict(mine, frame, role=False) is not None:
                    continue  # said of another period or basis: not the claim's fact
                if frame.role is Role.CHANGE and mine.role in {Role.LEVEL, Role.EARLIER}:
                    continue  # a change does not state the level the claim gives
                if _own_words_side_with(mine, support, frame) or _converts(mine, frame):
                    continue
                if elsewhere and (
                    len(mine.subject & frame.subject) <= own_subject or _unit(frame) != _unit(mine)
                ):
                    continue  # another sentence's value of the very same unit only
                if mine.value.date is not None and not _heads_side_with(mine, frame, support):
                    continue
                lead = sides_with(mine, frame, support)
                if lead >= MARGIN and (best is None or lead > sides_with(mine, best, support)):
                    best = frame
        return best

    def _a_period(self, claim: Reading, value: Value) -> bool:
        """Whether a date of the claim is the period of one of its amounts ("revenue was $35.1
        billion in Q3 2024"): read as that amount's period, not as a value of its own."""
        if value.date is None:
            return False
        sentence = sentence_of(claim, value.start)
        return any(
            f.period is not None and f.period.start == value.start
            for f in frames_in(claim, sentence, parsed=self.parsed)
            if f.value.quantity is not None
        )

    def _frame(self, reading: Reading, value: Value) -> Frame | None:
        sentence = sentence_of(reading, value.start)
        for frame in frames_in(reading, sentence, parsed=self.parsed):
            if frame.value == value:
                return frame
        return None


@cache
def _signals() -> re.Pattern[str]:
    """Words that give a value a slot to differ in: a basis, a period relative to another, a
    change, a comparison."""
    words = {
        *lexicon.words("bases"),
        *lexicon.words("frames", name="relative_period"),
        *lexicon.words("frames", name="change"),
        "times",
        "than",
        "compared",
        "versus",
    }
    return re.compile(rf"(?<![\w-])(?:{lexicon.alternation(words)})(?![\w-])", re.IGNORECASE)


def _may_conflict(
    value: Value, supports: Sequence[Value], claim: Reading, evidence: Reading
) -> bool:
    """Whether the evidence could state the claim's value under another frame, read from the
    words alone, before any sentence is parsed: both sentences give it a slot (a date, a
    basis, a change, a comparison), or the evidence's sentences hold another value of its kind
    to be a rival."""
    mine = sentence_of(claim, value.start)
    theirs = {sentence_of(evidence, v.start) for v in supports}
    if _slotted(claim, mine) and any(_slotted(evidence, s) for s in theirs):
        return True
    if not _checkable(value):
        return False
    spans = theirs | {
        (s.start, s.end) for s in best_sentences(claim.text[mine[0] : mine[1]], evidence, 2)
    }
    others = [v for v in values_of(evidence) if v not in supports and _checkable(v)]
    return any(
        start <= other.start < end and _kinds_agree(value, other)
        for other in others
        for start, end in spans
    )


def _slotted(reading: Reading, sentence: tuple[int, int]) -> bool:
    start, end = sentence
    if any(start <= d.start < end for d in reading.owned.dates):
        return True
    return _signals().search(reading.text, start, end) is not None


def _kinds_agree(claim: Value, other: Value) -> bool:
    """A rough kind, before frames: two amounts of units of one dimension (or both without
    one), two dates."""
    if claim.date is not None or other.date is not None:
        return claim.date is not None and other.date is not None
    if claim.quantity is None or other.quantity is None:
        return False
    return (
        units.compatible(claim.quantity.unit, other.quantity.unit)
        or units.dimension(claim.quantity.unit) == units.dimension(other.quantity.unit) is not None
    )


def slot_conflict(mine: Frame, theirs: Frame, *, role: bool = True) -> str | None:
    """Why an evidence frame cannot be the claim's: another period, basis, or (with ``role``)
    a change for a level; None where every slot both state agrees."""
    if mine.period is not None and theirs.period is not None:
        if conflict(mine.period, theirs.period):
            return f"is the evidence's figure for {theirs.period.text}, not {mine.period.text}"
    elif (
        theirs.period is not None
        and not theirs.period.absolute
        and mine.period is None
        and mine.role is not Role.EARLIER
    ):
        return f"is the evidence's figure for {theirs.period.text}"
    elif (
        mine.period is not None
        and not mine.period.absolute
        and theirs.period is None
        and theirs.role is not Role.EARLIER
    ):
        return f"is the evidence's figure for its own period, not {mine.period.text}"
    if _turned_round(mine, theirs):
        return (
            f"is the evidence's figure taken against {theirs.against_text!r}, where the claim "
            f"takes it against {mine.against_text!r}: the comparison the other way round"
        )
    for dimension, (basis, written) in mine.bases.items():
        other = theirs.bases.get(dimension)
        if other is not None and other[0] != basis:
            return f"is the evidence's figure {other[1]}, not {written}"
    if role and _has_role(mine) and _has_role(theirs) and _roles_differ(mine.role, theirs.role):
        return (
            f"is a {theirs.role.value} in the evidence ({_of(theirs)}), "
            f"not a {mine.role.value} as the claim states it"
        )
    return None


def _turned_round(mine: Frame, theirs: Frame) -> bool:
    """Whether a comparison is taken the other way round: what the claim compares is what the
    evidence compares against, and the other way ("White mortality is 3.57 times Black
    mortality" where the evidence's 3.57 is the risk for Black compared to the white
    population)."""
    if not mine.against or not theirs.against:
        return False
    mine_of, theirs_of = mine.subject - mine.against, theirs.subject - theirs.against
    return bool(
        mine_of & theirs.against
        and mine.against & theirs_of
        and not (mine_of & theirs_of - theirs.against)
    )


def sides_with(mine: Frame, rival: Frame, support: Frame) -> float:
    """How far the claim's words side with the rival rather than with the evidence's own
    statement of the value: the closeness of each claim word only one of them is said with,
    for the rival less against, and the share of the claim's subject each shares. Words both
    are said with (the verb two listed values share, at whatever distance each parse puts it)
    tell them apart by nothing."""
    lead = 0.0
    for word, weight in mine.words.items():
        lead += weight * ((word in rival.words) - (word in support.words))
    if mine.subject:
        shared = len(mine.subject & rival.subject) - len(mine.subject & support.subject)
        lead += SUBJECT * shared / len(mine.subject)
    return lead


def closeness(mine: Frame, theirs: Frame) -> float:
    """How closely an evidence frame's words are the claim frame's: each shared word counts
    its nearer closeness of the two, and the share of the claim's subject it shares adds up to
    ``SUBJECT``."""
    words = sum(
        min(weight, theirs.words[w]) for w, weight in mine.words.items() if w in theirs.words
    )
    if not mine.subject:
        return words
    return words + SUBJECT * len(mine.subject & theirs.subject) / len(mine.subject)


def _unit(frame: Frame) -> str | None:
    return frame.value.quantity.unit if frame.value.quantity is not None else None


def _converts(mine: Frame, rival: Frame) -> bool:
    """Whether the rival is the claim's value in another unit ("19.5 cm" beside "about 8
    inches"): the same fact restated, not another."""
    a, b = mine.value.quantity, rival.value.quantity
    if a is None or b is None or a.unit is None or b.unit is None or a.unit == b.unit:
        return False
    converted = units.convert(b.value, b.unit, a.unit)
    return converted is not None and rounds_to(a, converted)


def _own_words_side_with(mine: Frame, support: Frame, rival: Frame) -> bool:
    """Whether a word the claim's value governs itself ("8 percent in Europe", "75 percent
    cotton") is said of the evidence's statement of the value and not of the rival: then the
    value is where the claim puts it, however the words further off hang."""
    own = {w for w, weight in mine.words.items() if weight >= 1.0}
    return bool(own & set(support.words) - set(rival.words))


def heads(frame: Frame) -> frozenset[str]:
    """The words a value hangs on most closely (the noun it measures, the verb it is the
    object of)."""
    if not frame.words:
        return frozenset()
    nearest = max(frame.words.values())
    return frozenset(w for w, weight in frame.words.items() if weight == nearest)


def _heads_side_with(mine: Frame, rival: Frame, support: Frame) -> bool:
    """Whether the words the claim's value hangs on are words the rival is said with, and
    not the words the evidence's statement of the value hangs on. Dates are read apart by the
    words nearest them only ("entered into force on", "payable on"): a sentence of several
    dates ("born 9 December 1608 - died 8 November 1674") parses differently as any one of
    them is written another way, so the words further off cannot tell them apart."""
    mine_heads = heads(mine)
    return bool(mine_heads & set(rival.words)) and not (mine_heads & heads(support))


def _nearer(mine: Frame, rival: Frame, support: Frame) -> list[str]:
    """The claim's words the rival is said with more closely than the claim's value is."""
    return sorted(
        w
        for w, weight in mine.words.items()
        if min(weight, rival.words.get(w, 0.0)) > min(weight, support.words.get(w, 0.0))
    )


def _has_role(frame: Frame) -> bool:
    """Whether a level and a change read apart for this value: an amount, a share or a
    measure, not a bare count or a date."""
    quantity = frame.value.quantity
    return quantity is not None and quantity.unit is not None


def _roles_differ(mine: Role, theirs: Role) -> bool:
    """A change against a level (a level compared with counts as a level); an unknown role
    differs from none."""
    if Role.UNKNOWN in (mine, theirs):
        return False
    return (mine is Role.CHANGE) != (theirs is Role.CHANGE)


def _of(frame: Frame) -> str:
    return repr(frame.what) if frame.what else "another fact"


def _framed(value: Value) -> bool:
    """A value whose period and basis are compared: any number stated as one, a date to the
    day."""
    if value.quantity is not None:
        return value.quantity.checkable and not value.quantity.ordinal
    return _checkable(value)


def _checkable(value: Value) -> bool:
    """An amount, a share, a measure or a count of something named, or a date to the day:
    the values a sentence can state of one fact or another. Bare numbers (scores, section
    numbers, ages), years and months are left to the number and date checks and serve as
    periods."""
    if value.quantity is not None:
        quantity = value.quantity
        return (
            quantity.checkable
            and not quantity.ordinal
            and (quantity.unit is not None or quantity.counts)
        )
    return value.date is not None and value.date.checkable and value.date.day is not None


def _in_range(value: Value, reading: Reading) -> bool:
    """Whether a number is one end of a range ("3-5%"), which the number check compares as
    one value, or one part of a value written in two ("6-foot-4")."""
    quantity = value.quantity
    if quantity is None:
        return False
    if any(r.holds(quantity) for r in reading.ranges):
        return True
    text = reading.text
    return any(
        text[quantity.end : other.start] == "-" or text[other.end : quantity.start] == "-"
        for other in reading.quantities
        if other is not quantity
    )


def _bears_out(claim: Value, evidence: Value) -> bool:
    """Whether an evidence value is the claim's value (its frame aside)."""
    if claim.quantity is not None and evidence.quantity is not None:
        return same_quantity(claim.quantity, evidence.quantity)
    if claim.date is not None and evidence.date is not None:
        return _same_date(claim.date, evidence.date)
    return False


_DATE_PARTS = ("year", "month", "day", "quarter", "half", "decade", "century", "season", "part")


def _same_date(claim: DateMention, evidence: DateMention) -> bool:
    """The evidence date is the claim's at the claim's precision."""
    stated = False
    for part in _DATE_PARTS:
        mine = getattr(claim, part)
        if mine is None:
            continue
        stated = True
        if getattr(evidence, part) != mine:
            return False
    return stated


def _same_kind(mine: Frame, theirs: Frame) -> bool:
    a, b = mine.value, theirs.value
    if a.quantity is not None and b.quantity is not None:
        if not _checkable(b):
            return False
        return _quantity_kind(a.quantity, mine) == _quantity_kind(b.quantity, theirs) is not None
    if a.date is not None and b.date is not None:
        # A date as precise as the claim's, or more: "3 November 1989" rivals "2008".
        return all(
            getattr(b.date, p) is not None for p in _DATE_PARTS if getattr(a.date, p) is not None
        )
    return False


def _quantity_kind(quantity: Quantity, frame: Frame) -> str | None:
    """What a value measures, for telling a rival of the same kind: its unit's dimension, or
    the noun a count counts."""
    if quantity.ordinal:
        return None
    if quantity.unit is not None:
        if quantity.unit == units.FRACTION:
            return units.PERCENT
        return units.dimension(quantity.unit) or quantity.unit
    return frame.counted


def _conflict(check: str, moved: Sequence[Moved], evidence: Reading) -> CheckOutcome:
    first = moved[0]
    reasons = "; ".join(f"{m.claim.value.text!r} {m.reason}" for m in moved)
    start, end = first.read_against
    return CheckOutcome(
        check=check,
        status=CheckStatus.FAILED,
        label=Label.CONTRADICTED,
        detail=f"Values stated of another fact than in the cited evidence: {reasons}",
        missing=tuple(dict.fromkeys(m.claim.value.text for m in moved)),
        evidence_sentence=evidence.text[start:end].strip(),
        finding=Finding.CONFLICT,
    )
