"""Whether kept, supported claims still answer the question: the lexical slot rule."""

from __future__ import annotations

import pytest

from judge.answer.relevance import (
    REFUSAL_SENTENCE,
    SlotKind,
    check_answer,
    is_refusal,
    question_slots,
    split_refusal,
)
from judge.reading import lexicon


def kinds(question: str) -> dict[str, SlotKind]:
    return {slot.word: slot.kind for slot in question_slots(question)}


def test_slots_leave_out_question_words_and_sort_names_numbers_and_topics() -> None:
    question = "Is it true that Barack Obama was born in Hawaii in 1961? Explain from the evidence."
    assert kinds(question) == {
        "Barack": SlotKind.ENTITY,
        "Obama": SlotKind.ENTITY,
        "born": SlotKind.TOPIC,
        "Hawaii": SlotKind.ENTITY,
        "1961": SlotKind.NUMBER,
    }


def test_an_instruction_to_answer_is_no_slot() -> None:
    question = "Is this true? Refunds take a week. Answer from the evidence."
    assert kinds(question) == {"Refunds": SlotKind.TOPIC, "week": SlotKind.TOPIC}


def test_identifiers_and_acronyms_are_entities_but_a_capital_opening_a_sentence_is_not() -> None:
    assert kinds("Refunds for SKU42 under the IRS rule?") == {
        "Refunds": SlotKind.TOPIC,
        "SKU42": SlotKind.ENTITY,
        "IRS": SlotKind.ENTITY,
        "rule": SlotKind.TOPIC,
    }


def test_a_repeated_word_is_one_slot() -> None:
    assert [s.word for s in question_slots("Refund or refunds: which refund applies?")] == [
        "Refund",
        "applies",
    ]


def test_supported_text_that_covers_the_question_answers() -> None:
    check = check_answer(
        "Can I return an unopened item for a full refund?",
        ["Customers may return any unopened item within 30 days for a full refund."],
    )
    assert check.answers
    assert check.missing == ()


def test_too_few_topic_words_does_not_answer() -> None:
    check = check_answer(
        "Which payment method do refunds go to?",
        ["Customers may return any unopened item within 30 days for a full refund."],
    )
    assert not check.answers
    assert check.missing == ("payment", "method")
    assert "1 of 3" in check.reason


def test_half_the_topic_words_rounded_up_is_enough() -> None:
    question = "Do opened items get store credit or cash?"  # opened, items, store, credit, cash
    assert check_answer(question, ["Opened items receive store credit."]).answers
    assert not check_answer(question, ["Opened items are accepted."]).answers


def test_every_entity_must_appear() -> None:
    question = "Did the Devils sign a lease with the Meadowlands arena?"
    assert check_answer(question, ["The Devils signed a lease for the Meadowlands arena."]).answers
    check = check_answer(question, ["The team signed a lease for the Meadowlands arena."])
    assert not check.answers
    assert check.reason == "leaves out Devils"


def test_a_number_slot_accepts_a_correction_but_not_silence() -> None:
    question = "Was Obama born in 1961?"
    assert check_answer(question, ["Obama was born in 1962."]).answers
    assert not check_answer(question, ["Obama was born in Hawaii."]).answers


@pytest.mark.parametrize(
    "question",
    [
        "How long do refunds take?",
        "What percentage of refunds are late?",
        "When do refunds arrive?",
    ],
)
def test_a_quantity_question_needs_a_number_or_a_month(question: str) -> None:
    assert not check_answer(
        question, ["Refunds take a while and are rarely late to arrive."]
    ).answers
    assert check_answer(question, ["Refunds take 5 days and 2% are late to arrive."]).answers
    assert check_answer(question, ["Refunds arrive in March and are rarely late."]).answers


def test_when_inside_a_clause_is_not_a_quantity_cue() -> None:
    question = "Is shipping refunded when the item arrived damaged?"
    assert check_answer(question, ["Shipping is refunded if the item arrived damaged."]).answers


def test_prefix_matching_joins_word_families_of_four_letters_or_more() -> None:
    assert check_answer(
        "Are shipping fees refundable?", ["Shipping fees are not refunded."]
    ).answers
    assert not check_answer("Can I pay later?", ["Payment is due at once."]).answers


def test_synonyms_are_not_recognised() -> None:
    # Documented weakness: the rule errs towards "does not answer".
    assert not check_answer("Can I get my money back?", ["Refunds are issued in 5 days."]).answers


def test_nothing_supported_or_only_the_refusal_never_answers() -> None:
    assert not check_answer("Can I return it?", []).answers
    assert not check_answer("Can I return it?", ["Hello!"]).answers
    assert not check_answer("Can I return it?", [REFUSAL_SENTENCE]).answers


def test_a_question_without_slots_is_answered_by_any_supported_content() -> None:
    assert check_answer("What is it?", ["The parcel holds two books."]).answers


def test_citations_in_supported_text_are_ignored() -> None:
    assert not check_answer("Does S1 apply?", ["Refunds are issued [S1]."]).answers


@pytest.mark.parametrize(
    "text",
    [
        REFUSAL_SENTENCE,
        REFUSAL_SENTENCE.upper(),
        f"  {REFUSAL_SENTENCE} [S1]",
        f'"{REFUSAL_SENTENCE.rstrip(".")}"',
        f"{REFUSAL_SENTENCE} Thanks!",
    ],
)
def test_the_refusal_sentence_is_recognised(text: str) -> None:
    assert is_refusal(text)


def test_a_paraphrase_or_a_refusal_with_claims_is_not_a_bare_refusal() -> None:
    assert not is_refusal("The evidence says nothing about this.")
    text = f"{REFUSAL_SENTENCE} Opened items get store credit [S1]."
    assert not is_refusal(text)
    assert split_refusal(text) == (True, "Opened items get store credit [S1].")


@pytest.mark.parametrize("cue", sorted(lexicon.words("question_words", name="quantity_cue")))
def test_every_listed_cue_asks_for_a_number(cue: str) -> None:
    question = f"{cue.capitalize()} is the refund window for returns?"
    assert not check_answer(question, ["The refund window for returns is generous."]).answers
    assert check_answer(question, ["The refund window for returns is 30 days."]).answers


def test_a_month_that_is_also_a_common_word_names_no_date() -> None:
    question = "When are refunds issued?"
    assert not check_answer(question, ["Refunds may be issued by the store."]).answers
    assert check_answer(question, ["Refunds are issued in June by the store."]).answers
