"""The two kinds of refusal, and what each says: no passage bears on the question (none shares
its words, or the generator replied with the refusal sentence), or the reply failed
verification, its failures named by kind and count and never quoted."""

from __future__ import annotations

from judge.answer.refusals import (
    RefusalKind,
    generator_refusal,
    no_answer_refusal,
    reply_refusal,
)
from judge.answer.relevance import REFUSAL_SENTENCE
from judge.schemas import Claim, ClaimVerdict, Label, Passage

PASSAGES = [
    Passage(id="S1", text="Customers may return any unopened item within 30 days of delivery."),
    Passage(id="S2", text="Refunds are issued within 5 to 7 business days."),
]


def verdict(text: str, label: Label, index: int = 1) -> ClaimVerdict:
    return ClaimVerdict(claim=Claim(id=f"c{index}", text=text), label=label)


def test_a_reply_that_is_the_refusal_sentence_is_no_answer_found() -> None:
    refusal = reply_refusal(
        "How long do refunds take?", PASSAGES, [verdict(REFUSAL_SENTENCE, Label.UNCITED)]
    )
    assert refusal.kind is RefusalKind.NO_ANSWER
    assert refusal.text == (
        "No verified answer can be given: the generator found no answer in the evidence "
        "(passages mention: refunds)."
    )


def test_the_refusal_sentence_beside_a_failure_is_a_failed_verification() -> None:
    verdicts = [
        verdict(REFUSAL_SENTENCE, Label.UNCITED),
        verdict("Refunds take 60 days.", Label.NUMBER_MISMATCH, 2),
    ]
    refusal = reply_refusal("How long do refunds take?", PASSAGES, verdicts)
    assert refusal.kind is RefusalKind.FAILED_VERIFICATION
    assert refusal.text == (
        "No verified answer can be given: the reply failed verification against the evidence "
        "(1 statement cites no passage; 1 statement states a number the cited passage does not "
        "give)."
    )
    assert "60 days" not in refusal.text


def test_failures_are_named_whatever_the_evidence_holds() -> None:
    verdicts = [verdict("Laptops carry a warranty of two years.", Label.UNSUPPORTED)]
    refusal = reply_refusal("What is the warranty on laptops?", PASSAGES, verdicts)
    assert refusal.kind is RefusalKind.FAILED_VERIFICATION
    assert "1 statement is not supported by the evidence" in refusal.text


def test_evidence_that_shares_no_word_with_the_question_bears_on_nothing() -> None:
    refusal = reply_refusal("What is the warranty on laptops?", PASSAGES, [])
    assert refusal.kind is RefusalKind.NO_ANSWER
    assert refusal.text == (
        "No verified answer can be given: no passage of the evidence bears on the question "
        "(none mentions: warranty, laptops)."
    )
    assert no_answer_refusal("How long do refunds take?", PASSAGES) is None


def test_the_generator_refusal_says_how_often_it_was_asked() -> None:
    once = generator_refusal("How long do refunds take?", PASSAGES)
    twice = generator_refusal("How long do refunds take?", PASSAGES, asked=2)
    assert once.kind is twice.kind is RefusalKind.NO_ANSWER
    assert "found no answer in the evidence (passages" in once.text
    assert "found no answer in the evidence when asked twice (passages" in twice.text
    # Evidence that shares no word with the question says so, whoever refused.
    gap = generator_refusal("What is the warranty on laptops?", PASSAGES, asked=2)
    assert gap.text.endswith("bears on the question (none mentions: warranty, laptops).")
