"""The word lists: every file follows the entry format, and no word is listed twice with
different meanings."""

from __future__ import annotations

import itertools
from collections import defaultdict
from importlib import resources

import pytest

from judge.reading import lexicon
from judge.reading.lexicon import Entry, LexiconError
from judge.reading.words import word_form

LISTS = sorted(
    (folder.name, path.name.removesuffix(".toml"))
    for folder in resources.files("judge.reading.lexicon").iterdir()
    if folder.is_dir() and not folder.name.startswith(("_", "."))
    for path in folder.iterdir()
    if path.name.endswith(".toml")
)
# Lists in which each word stands for one value: a currency, a unit, a number, a month...
KEYED = {
    ("common", "currencies"): "name",
    ("en", "currency_names"): "name",
    ("en", "measures"): "name",
    ("en", "scales"): "value",
    ("en", "periods"): "name",
    ("en", "demonyms"): "name",
    ("en", "senses"): "value",
    ("en", "conjunctions"): "name",
    ("en", "suffixes"): "value",
    ("common", "top_level_domains"): "name",
}


def test_there_are_lists_to_check() -> None:
    assert len(LISTS) >= 25
    assert {"en", "common"} <= set(lexicon.languages())


@pytest.mark.parametrize(("language", "name"), LISTS)
def test_every_entry_has_its_words_why_and_an_example(language: str, name: str) -> None:
    entries = lexicon.entries(name, language)
    assert entries
    for entry in entries:
        assert entry.words and entry.why and entry.example
        assert all(word == word.strip() and word == word.lower() for word in entry.words), entry


def test_a_malformed_entry_is_refused_naming_the_file() -> None:
    with pytest.raises(LexiconError, match="must be a list"):
        lexicon._entry({"words": "not", "why": "w", "example": "e"}, "en/x.toml #1")
    with pytest.raises(LexiconError, match="unknown keys"):
        lexicon._entry({"words": ["a"], "why": "w", "example": "e", "colour": "red"}, "x")
    with pytest.raises(LexiconError, match="'why' is required"):
        lexicon._entry({"words": ["a"], "example": "e"}, "x")


@pytest.mark.parametrize(("key", "by"), sorted(KEYED.items()))
def test_a_word_of_a_keyed_list_stands_for_one_thing(key: tuple[str, str], by: str) -> None:
    language, name = key
    meanings: dict[str, set[str]] = defaultdict(set)
    for entry in lexicon.entries(name, language):
        if name == "measures" and ":" not in entry.name:
            continue  # the lists that limit a unit's spellings, not units
        for word in entry.words:
            meanings[word].add(getattr(entry, by))
    twice = {word: sorted(found) for word, found in meanings.items() if len(found) > 1}
    assert twice == {}


def test_a_currency_word_names_one_family_across_the_lists() -> None:
    families: dict[str, set[str]] = defaultdict(set)
    for entry in lexicon.entries("currencies", "common") + lexicon.entries("currency_names"):
        for word in entry.words:
            families[word].add(entry.name)
    assert {w: f for w, f in families.items() if len(f) > 1} == {}


@pytest.mark.parametrize("name", ["unit", "ten", "ordinal", "scale", "fraction"])
def test_a_number_word_has_one_value(name: str) -> None:
    values: dict[str, set[str]] = defaultdict(set)
    for entry in lexicon.entries("number_words"):
        if entry.name == name:
            for word in entry.words:
                values[word].add(entry.value)
    assert values and {w: v for w, v in values.items() if len(v) > 1} == {}


def test_a_month_has_one_number() -> None:
    months: dict[str, set[str]] = defaultdict(set)
    for entry in lexicon.entries("calendar"):
        if entry.name == "month":
            for word in entry.words:
                months[word].add(entry.value)
    assert len(months) >= 24 and {w: m for w, m in months.items() if len(m) > 1} == {}


def _sides(entries: tuple[Entry, ...]) -> list[tuple[frozenset[str], frozenset[str]]]:
    return [
        (frozenset(map(word_form, e.words)), frozenset(map(word_form, e.against))) for e in entries
    ]


@pytest.mark.parametrize("name", ["opposites", "converses", "opposite_prefixes"])
def test_no_two_words_are_opposed_in_one_entry_and_alike_in_another(name: str) -> None:
    sides = _sides(lexicon.entries(name))
    opposed = {
        frozenset(pair)
        for one, other in sides
        for pair in itertools.product(one, other)
        if pair[0] != pair[1]
    }
    alike = {
        frozenset(pair)
        for one, other in sides
        for group in (one, other)
        for pair in itertools.combinations(sorted(group), 2)
    }
    assert sorted(map(sorted, opposed & alike)) == []
    assert [one & other for one, other in sides if one & other] == []


def test_no_word_is_both_an_opposite_and_a_converse() -> None:
    # A converse ("higher" / "lower") flips a sentence only with its parties in place; an
    # opposite always. One word listed as both would be read both ways.
    def written(name: str) -> set[str]:
        return {w for entry in lexicon.entries(name) for w in entry.words + entry.against}

    assert sorted(written("opposites") & written("converses")) == []


def test_a_word_with_two_senses_is_declared_with_the_phrases_that_fix_one() -> None:
    # "fall" is a decrease among the opposites and a season in "in the fall": senses.toml
    # says which phrases read it as the season, so the two meanings never meet.
    opposite_words = {w for e in lexicon.entries("opposites") for w in e.words + e.against}
    season_words = {w for e in lexicon.entries("opposites") if e.name == "season" for w in e.words}
    declared = {e.name for e in lexicon.entries("senses")}
    for entry in lexicon.entries("senses"):
        assert entry.name in opposite_words and entry.value in season_words
    assert declared <= opposite_words


def test_negation_words_and_the_phrases_that_assert_do_not_overlap() -> None:
    denying = lexicon.words("negation", name="word") | lexicon.words("negation", name="phrase")
    asserting = lexicon.words("negation", name="asserting")
    assert denying & asserting == frozenset()
    assert all(any(word in phrase.split() for word in denying) for phrase in asserting)


def test_a_hedge_phrase_belongs_to_one_group() -> None:
    groups: dict[str, set[str]] = defaultdict(set)
    for entry in lexicon.entries("hedges"):
        assert entry.value in {"strengthens", "weakens"}
        assert bool(entry.licensed_by) or entry.value == "weakens"
        for word in entry.words:
            groups[word].add(entry.name)
    assert {w: g for w, g in groups.items() if len(g) > 1} == {}


def test_a_missing_list_says_so() -> None:
    assert not lexicon.has("negation", "xx")
    with pytest.raises(FileNotFoundError):
        lexicon.entries("negation", "xx")
