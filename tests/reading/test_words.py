"""Word forms and content words: what two texts are compared by."""

from __future__ import annotations

import pytest

from judge.reading import lexicon
from judge.reading.words import content_words, is_discourse, word_form


def test_word_forms() -> None:
    assert word_form("Refunds") == word_form("refunded") == word_form("refund")
    assert word_form("policies") == word_form("policy")
    assert word_form("used") == word_form("uses") == word_form("use")
    assert word_form("don't") == "not"
    assert word_form("1,000") == "1000"
    assert word_form("3.5") == "3.5"
    assert word_form("Acme's") == word_form("acme")
    # Irregular verbs: the past forms read as the base form; nouns that are also past forms
    # ("left", "found") keep their own.
    assert word_form("met") == word_form("meets") == word_form("meeting")
    assert word_form("rose") == word_form("rising") and word_form("won") == word_form("wins")
    assert word_form("left") != word_form("leave") and word_form("found") != word_form("find")


def test_content_words_skip_function_words() -> None:
    found = [w for w, _, _ in content_words("Sure, here is the fee: it is not $1,000 [S1].")]
    assert found == ["Sure", "fee", "not", "1,000", "S1"]


def test_conversation_words_are_told_apart() -> None:
    assert is_discourse("Sure") and is_discourse("sources") and not is_discourse("fee")


@pytest.mark.parametrize(
    ("ending", "keep"),
    [
        (ending, int(entry.value))
        for entry in lexicon.entries("suffixes")
        if entry.name in {"derivation", "inflection"}
        for ending in entry.words
    ],
)
def test_an_ending_is_cut_only_where_enough_letters_stay(ending: str, keep: int) -> None:
    stem = "bcdfghjk"[:keep]
    assert word_form(stem + ending) == stem
    assert word_form(stem[:-1] + ending) != stem[:-1]


def test_a_negated_verb_reads_as_not() -> None:
    for suffix in lexicon.words("suffixes", name="negation"):
        assert word_form("is" + suffix) == word_form("Won" + suffix.replace("'", "’")) == "not"
