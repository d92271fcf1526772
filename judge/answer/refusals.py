"""What a refusal tells its reader, in plain words, and whose fault it names.

A refusal is one of two kinds (:class:`RefusalKind`), and says which:

* **no answer in the evidence** (``no_answer``): no passage bears on the question. Either no
  passage shares a single word with it (by the word forms of :mod:`judge.answer.relevance`;
  the question's words are listed), or the generator, told to answer only from the evidence,
  replied with the fixed refusal sentence and nothing else (the passages' words the question
  shares are listed, so the reader can judge);
* **the reply failed verification** (``failed_verification``): whatever the evidence holds,
  what was written did not verify; the failures are named by kind and count ("2 statements
  cite no passage"), never by quoting the rejected text, which must not reach the reader.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from judge.answer.relevance import SlotKind, check_answer, is_refusal, question_slots
from judge.schemas import ClaimVerdict, Label, Passage

__all__ = [
    "WITHHELD",
    "Refusal",
    "RefusalKind",
    "evidence_gap",
    "failure_counts",
    "failure_phrase",
    "failures_named",
    "generator_refusal",
    "no_answer_refusal",
    "refusal_text",
    "reply_refusal",
]

WITHHELD = "No verified answer can be given"


class RefusalKind(StrEnum):
    NO_ANSWER = "no_answer"  # no passage bears on the question
    FAILED_VERIFICATION = "failed_verification"  # what was written did not verify


@dataclass(frozen=True)
class Refusal:
    kind: RefusalKind
    text: str


# What a failing statement did, said of one statement ("it ...").
_PHRASES: dict[Label, tuple[str, str]] = {
    Label.UNSUPPORTED: ("is not supported by the evidence", "are not supported by the evidence"),
    Label.UNCITED: ("cites no passage", "cite no passage"),
    Label.HEDGE_ADDED: (
        "adds a hedge or quantifier the evidence does not carry",
        "add a hedge or quantifier the evidence does not carry",
    ),
    Label.CONTRADICTED: ("contradicts the evidence", "contradict the evidence"),
    Label.NUMBER_MISMATCH: (
        "states a number the cited passage does not give",
        "state a number the cited passage does not give",
    ),
    Label.DATE_MISMATCH: (
        "states a date the cited passage does not give",
        "state a date the cited passage does not give",
    ),
    Label.IDENTIFIER_MISMATCH: (
        "states an identifier or address the cited passage does not give",
        "state an identifier or address the cited passage does not give",
    ),
    Label.NAME_MISMATCH: (
        "names what the cited passage does not",
        "name what the cited passage does not",
    ),
    Label.QUOTE_MISMATCH: (
        "quotes words the evidence does not contain",
        "quote words the evidence does not contain",
    ),
    Label.BAD_CITATION: (
        "cites a passage that does not exist, or too many",
        "cite a passage that does not exist, or too many",
    ),
    Label.NEEDS_REVIEW: ("needs a person to check it", "need a person to check them"),
    Label.UNVERIFIED: ("was not checked by a judge", "were not checked by a judge"),
    Label.VERIFIER_ERROR: ("could not be verified", "could not be verified"),
}


def failure_phrase(label: Label, count: int = 1) -> str:
    """What ``count`` statements with ``label`` did, as a verb phrase."""
    one, many = _PHRASES.get(label, ("failed verification", "failed verification"))
    return one if count == 1 else many


def failure_counts(verdicts: Iterable[ClaimVerdict]) -> dict[Label, int]:
    """Failing verdicts by label, in the order first seen."""
    counts: dict[Label, int] = {}
    for verdict in verdicts:
        if verdict.label in (Label.SUPPORTED, Label.NOT_FACTUAL):
            continue
        counts[verdict.label] = counts.get(verdict.label, 0) + 1
    return counts


def failures_named(verdicts: Iterable[ClaimVerdict]) -> str:
    """``"1 statement states a number ...; 2 statements cite no passage"``, or ``""``."""
    parts = []
    for label, count in failure_counts(verdicts).items():
        noun = "statement" if count == 1 else "statements"
        parts.append(f"{count} {noun} {failure_phrase(label, count)}")
    return "; ".join(parts)


def evidence_gap(question: str | None, passages: Sequence[Passage]) -> tuple[str, ...] | None:
    """The question's words when no passage mentions any of them: then the evidence does not
    bear on the question. None when a passage mentions one, or there is no question to tell
    by. Deliberately strict: a synonym ("money back" for "refund") is not seen, so only
    evidence that shares no word at all with the question is blamed."""
    if not question or not question.strip():
        return None
    slots = [slot for slot in question_slots(question) if slot.kind is not SlotKind.NUMBER]
    if not slots:
        return None
    check = check_answer(question, [p.text for p in passages])
    if check.addressed:
        return None
    return tuple(slot.word for slot in slots)


def refusal_text(
    question: str | None,
    passages: Sequence[Passage],
    verdicts: Sequence[ClaimVerdict],
    *,
    what: str = "the reply",
) -> str:
    """The text of :func:`reply_refusal`."""
    return reply_refusal(question, passages, verdicts, what=what).text


def reply_refusal(
    question: str | None,
    passages: Sequence[Passage],
    verdicts: Sequence[ClaimVerdict],
    *,
    what: str = "the reply",
) -> Refusal:
    """The refusal of a reply that did not verify, saying which kind it is. A reply that was
    the refusal sentence alone is the generator finding no answer; otherwise failures the
    verification found are named (by kind and count): it was ``what`` that failed, whatever
    the evidence holds. Without any, and when no passage shares a word with the question, the
    evidence does not bear on it."""
    failing = [v for v in verdicts if v.label not in (Label.SUPPORTED, Label.NOT_FACTUAL)]
    if failing and all(is_refusal(v.claim.text) for v in failing):
        return generator_refusal(question, passages)
    named = failures_named(verdicts)
    if named:
        text = f"{WITHHELD}: {what} failed verification against the evidence ({named})."
        return Refusal(RefusalKind.FAILED_VERIFICATION, text)
    refusal = no_answer_refusal(question, passages)
    if refusal is not None:
        return refusal
    return Refusal(
        RefusalKind.FAILED_VERIFICATION,
        f"{WITHHELD}: {what} failed verification against the evidence.",
    )


def no_answer_refusal(question: str | None, passages: Sequence[Passage]) -> Refusal | None:
    """The refusal for evidence no passage of which shares a word with the question (the
    question's words listed); None when one does."""
    gap = evidence_gap(question, passages)
    if gap is None:
        return None
    text = f"{WITHHELD}: no passage of the evidence bears on the question ({_listed(gap)})."
    return Refusal(RefusalKind.NO_ANSWER, text)


def generator_refusal(
    question: str | None, passages: Sequence[Passage], *, asked: int = 1
) -> Refusal:
    """The refusal for a generator that replied with the refusal sentence ``asked`` times:
    that no passage bears on the question when none shares its words, else that the
    generator found no answer, with the question's words the passages do mention."""
    gap = no_answer_refusal(question, passages)
    if gap is not None:
        return gap
    mentioned = check_answer(question, [p.text for p in passages]).addressed if question else ()
    words = f" (passages mention: {', '.join(mentioned[:8])})" if mentioned else ""
    times = {0: "", 1: "", 2: " when asked twice"}.get(asked, f" when asked {asked} times")
    text = f"{WITHHELD}: the generator found no answer in the evidence{times}{words}."
    return Refusal(RefusalKind.NO_ANSWER, text)


def _listed(missing: Sequence[str]) -> str:
    words = ", ".join(missing[:8]) + (", ..." if len(missing) > 8 else "")
    return f"none mentions: {words}"
