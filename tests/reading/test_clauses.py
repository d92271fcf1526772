"""The clause splitter reads its conjunctions from en/conjunctions.toml: each group breaks
where its entry says, a clause, a phrase or after a comma."""

from __future__ import annotations

import pytest

from judge.reading import lexicon
from judge.reading.clauses import clauses, phrase_spans


def _phrases(text: str) -> list[str]:
    return [text[start:end].strip() for start, end in phrase_spans(text)]


def _group(name: str) -> list[str]:
    return sorted(lexicon.words("conjunctions", name=name))


# Where each group breaks: a clause anywhere, a clause after a comma, a phrase anywhere.
BREAKS = {
    "contrast": (True, True, True),
    "exception": (True, True, False),
    "while": (False, True, True),
    "joining": (False, False, True),
    "after_comma": (False, True, False),
}


def test_every_group_is_read() -> None:
    assert set(lexicon.names("conjunctions")) == set(BREAKS)


@pytest.mark.parametrize(
    ("group", "word"), [(group, word) for group in BREAKS for word in _group(group)]
)
def test_a_conjunction_breaks_where_its_group_says(group: str, word: str) -> None:
    clause, after_comma, phrase = BREAKS[group]
    assert clauses(f"Prices rose {word} costs fell") == (
        ["Prices rose", "costs fell"] if clause else [f"Prices rose {word} costs fell"]
    )
    assert clauses(f"Prices rose, {word} costs fell") == (
        ["Prices rose", f"{word} costs fell" if not clause else "costs fell"]
        if after_comma
        else [f"Prices rose, {word} costs fell"]
    )
    assert _phrases(f"Prices rose {word} costs fell") == (
        ["Prices rose", "costs fell"] if phrase else [f"Prices rose {word} costs fell"]
    )


def test_a_conjunction_inside_a_word_breaks_nothing() -> None:
    assert clauses("Butter and notably rather large Yeti boots") == [
        "Butter and notably rather large Yeti boots"
    ]
    assert _phrases("Butter, notably") == ["Butter", "notably"]
