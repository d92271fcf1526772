"""The clock-time check: every time of day in the claim must be in the evidence.

Times compare as minutes of the day, so "7 pm", "7:00 p.m.", "19:00" and "seven in the
evening" agree. A time without a half of the day ("at 7:30") may be either half. The evidence
may state a time less precisely than the claim only where it names the hour alone ("at 7",
"seven o'clock", "let's make it 7"): dialogue and notices often do, and "7 pm" for "see you at
7" is no mismatch. Without this check a time glued to its letters ("10am") or written with a
colon ("10:00") was read by no check, so a changed hour passed unseen.
"""

from __future__ import annotations

from dataclasses import dataclass

from judge.pipeline.checks.outcome import conflicting, missing, passed
from judge.reading import Reading, read
from judge.reading.restatement import Grain, restatements, wanted_forms
from judge.reading.values.times import BARE_HOUR, ClockTime, hour_of
from judge.schemas import CheckOutcome, Label


@dataclass(frozen=True)
class _Evidence:
    minutes: frozenset[int]
    dial_hours: frozenset[int]  # hours given without minutes or half: "at 7", "7 o'clock"


def _evidence(reading: Reading) -> _Evidence:
    """The times of a cited evidence text, found once per reading, not once per claim."""
    text = reading.text
    times = reading.times
    minutes = frozenset(m for t in times for m in t.minutes)
    dial = {t.dial_hour for t in times if not t.minutes}

    def in_a_time(offset: int) -> bool:
        # The hour of "at 9 pm" is that time's, not a bare hour that either half may take.
        return any(t.start <= offset < t.end for t in times)

    dial.update(
        hour_of(bare.group("h"), bare.group("hw"))
        for bare in BARE_HOUR.finditer(text)
        if not in_a_time(bare.start("h") if bare.group("h") else bare.start("hw"))
    )
    # A plain number of the dial counts too ("Let's make it 7."), as it did for the number
    # check before times were read apart: not a measure, a count of things, an ordinal.
    dial.update(
        int(q.value)
        for q in reading.quantities
        if not in_a_time(q.start)
        and q.checkable
        and q.unit is None
        and not (q.counts or q.ordinal or q.scale)
        and q.value == q.value.to_integral_value()
        and 1 <= q.value <= 12
    )
    return _Evidence(minutes, frozenset(dial))


def _holds(time: ClockTime, evidence: _Evidence) -> bool:
    if not time.minutes:
        return time.dial_hour in evidence.dial_hours or any(
            (m // 60) % 12 == time.dial_hour % 12 for m in evidence.minutes
        )
    if time.minutes & evidence.minutes:
        return True
    # An hour the evidence gives bare ("at 7") bears out "7 pm", not "7:30 pm".
    return all(m % 60 == 0 for m in time.minutes) and time.dial_hour in evidence.dial_hours


class TimeCheck:
    """Fails a claim naming a time of day the evidence does not."""

    name: str = "times"
    lexicon: tuple[str, ...] = ()  # digits, codes and characters: every language

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None:
        said = read(claim)
        if not said.owned.times:
            return None
        source = read(evidence)
        context = source.view(_evidence)
        unheld = [t for t in said.owned.times if not _holds(t, context)]
        if not unheld:
            return passed(self.name, "Every time of the claim was")
        how = "compared as times of day"
        found = restatements(
            said.text, source, wanted_forms(said.content_forms), grain=Grain.SENTENCE
        )
        stated = [t for t in source.times if found and found[0].start <= t.start < found[0].end]
        if stated:
            # The sentence that restates the claim gives its fact another time.
            pairs = [(t.text, stated[0].text) for t in unheld]
            return conflicting(
                self.name, Label.DATE_MISMATCH, "Times", pairs, how=how, sentence=found[0].sentence
            )
        return missing(self.name, Label.DATE_MISMATCH, "Times", [t.text for t in unheld], how=how)
