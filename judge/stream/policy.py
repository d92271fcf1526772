"""The policy for a stream: what happens to each sentence, and what the reader is told at the end.

A sentence is decided by the buffered policy (:func:`judge.pipeline.policy.decide`) applied to
it alone: ``pass`` releases it, ``repair`` or ``regenerate`` (the failures a repair would cut)
withhold it and the stream goes on, ``block`` stops the stream. The answer-level rules then run
on everything decided; since released text cannot be taken back, what they find that a
buffered answer would act on (regenerate, a failed conclusion, citation stuffing) becomes a
notice after the released text. Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from judge.answer.refusals import WITHHELD, failure_phrase, failures_named, refusal_text
from judge.pipeline.claims.sentences import coverage
from judge.pipeline.policy import PolicyInput, decide
from judge.pipeline.screens.answer import AnswerScreens
from judge.reading.answer import read_answer
from judge.reading.markup import hidden_markup
from judge.reading.sentences import Sentence
from judge.schemas import (
    Action,
    CharSpan,
    ClaimOrigin,
    ClaimVerdict,
    Label,
    Passage,
    VerifyResponse,
)
from judge.stream.events import Release, StreamedSentence, StreamEnd, StreamOutcome

__all__ = ["final_outcome", "sentence_release"]


def sentence_release(
    sentence: Sentence, verdicts: Sequence[ClaimVerdict], t_answer: float | None
) -> Release:
    """Released, withheld or stopping, by the buffered policy on this sentence alone."""
    start = sentence.span.start
    local = [_shifted(v, -start) for v in verdicts]
    own = dataclasses.replace(sentence, span=CharSpan(start=0, end=len(sentence.text)))
    local_claims = [v.claim for v in local]
    report = coverage(read_answer(sentence.text, strict=False, sentences=[own]), local_claims)
    screens = AnswerScreens(hidden_markup=hidden_markup(sentence.text))
    action = decide(
        PolicyInput(
            verdicts=local,
            answer=sentence.text,
            coverage=report,
            screens=screens,
            t_answer=t_answer,
        )
    ).action
    if action is Action.BLOCK:
        return Release.STOPPED
    if action is Action.PASS:
        return Release.RELEASED
    return Release.WITHHELD


def final_outcome(
    response: VerifyResponse,
    ended: StreamEnd,
    reason: str | None,
    *,
    released: bool,
    withheld: bool,
    question: str | None,
    evidence: Sequence[Passage],
    stopped_by: StreamedSentence | None,
) -> tuple[StreamOutcome, str | None]:
    """The stream's outcome and the notice that follows the released text (None: nothing to
    add). The notice names failures by kind, never by quoting text that was not released."""
    errors = [v for v in response.verdicts if v.label is Label.VERIFIER_ERROR]
    if ended in (StreamEnd.ABANDONED, StreamEnd.DEADLINE, StreamEnd.SHUTDOWN):
        return "verifier_error", _cut_off(released, f"{reason}.")
    if ended is StreamEnd.GENERATOR_FAULT or errors:
        what = (
            "the generator failed"
            if ended is StreamEnd.GENERATOR_FAULT
            else ("the rest could not be verified (verifier error)")
        )
        return "verifier_error", _cut_off(released, f"{what}.")
    if ended is StreamEnd.LIMIT:
        return "refused", _cut_off(released, f"it went past a limit ({reason}).")
    if ended is StreamEnd.INVALID:
        return "refused", _cut_off(released, f"the rest could not be read ({reason}).")
    action = response.action
    if action is Action.PASS:
        return ("repaired" if withheld else "passed"), None
    if action is Action.REPAIR:
        return "repaired", None
    if action is Action.BLOCK:
        return "refused", _blocked_notice(response, released, question, evidence, stopped_by)
    # Regenerate: each released sentence verified, the answer as a whole did not.
    return ("partial" if released else "refused"), _regenerate_notice(
        response, released, question, evidence
    )


def _blocked_notice(
    response: VerifyResponse,
    released: bool,
    question: str | None,
    evidence: Sequence[Passage],
    stopped_by: StreamedSentence | None,
) -> str:
    if stopped_by is not None:
        failing = [
            v for v in stopped_by.verdicts if v.label not in (Label.SUPPORTED, Label.NOT_FACTUAL)
        ]
        if failing:
            phrase = failure_phrase(failing[0].label)
            which = "the next statement" if released else "the reply's first statement"
            lead = "No further verified answer can be given" if released else WITHHELD
            return f"{lead}: {which} {phrase}, so the reply was stopped there."
        return _cut_off(released, "the reply holds markup that hides text from a reader.")
    if response.citation_stuffing:
        return (
            "Note: the citations above are spread over every passage (citation stuffing), "
            "so they do not show where each statement comes from."
        )
    return _cut_off(released, "the reply failed verification.")


def _regenerate_notice(
    response: VerifyResponse, released: bool, question: str | None, evidence: Sequence[Passage]
) -> str:
    conclusion = [
        v
        for v in response.verdicts
        if v.claim.origin is ClaimOrigin.CONCLUSION and v.label is not Label.SUPPORTED
    ]
    if conclusion and released:
        return (
            "Note: each statement above is supported by the evidence, but the conclusion "
            "they add up to is not."
        )
    named = failures_named(response.failing)
    if not released:
        return refusal_text(question, evidence, response.failing)
    detail = f": {named}" if named else ""
    return f"Note: only part of the reply could be verified; the rest was left out{detail}."


def _cut_off(released: bool, why: str) -> str:
    if released:
        return f"The reply was cut off here: {why}"
    return f"{WITHHELD}: {why}"


def _shifted(verdict: ClaimVerdict, offset: int) -> ClaimVerdict:
    span = verdict.claim.span
    if span is None:
        return verdict
    moved = CharSpan(start=span.start + offset, end=span.end + offset)
    return verdict.model_copy(update={"claim": verdict.claim.model_copy(update={"span": moved})})
