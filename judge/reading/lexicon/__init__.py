"""Word lists as data: one TOML file per list and language, loaded once.

Every list shares one entry format::

    [[entry]]
    words = ["not", "never", "no"]    # the words or phrases, lower case
    why = "what they mean here, and why they are read"
    example = "a sentence the list changes the reading of"

and, where a list needs them, a few optional keys: ``name`` (the group an entry belongs to:
a hedge, a currency, a unit), ``against`` (the other side of a relation: an opposite, a
converse, a conflicting hedge), ``licensed_by`` (what in the evidence bears a hedge out),
``idioms`` (phrases that hold a listed word without its meaning: "at
all" for "all"), ``value`` (what a number word or unit stands for). A language is added by
adding its folder; a list a language lacks makes the rules that read it skip that language.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources

__all__ = ["Entry", "alternation", "entries", "has", "languages", "names", "phrases", "words"]

_KEYS = frozenset({"words", "why", "example", "name", "against", "licensed_by", "idioms", "value"})


@dataclass(frozen=True)
class Entry:
    """One entry of a word list."""

    words: tuple[str, ...]
    why: str
    example: str
    name: str = ""
    against: tuple[str, ...] = ()
    licensed_by: tuple[str, ...] = ()
    idioms: tuple[str, ...] = ()
    value: str = ""


class LexiconError(ValueError):
    """A word list that does not follow the entry format."""


def languages() -> tuple[str, ...]:
    """The languages that have a folder of word lists."""
    root = resources.files(__name__)
    return tuple(sorted(p.name for p in root.iterdir() if p.is_dir() and p.name[0] not in "._"))


def has(list_name: str, language: str = "en") -> bool:
    """Whether ``language`` has the word list ``list_name``."""
    return resources.files(__name__).joinpath(language, f"{list_name}.toml").is_file()


@cache
def entries(list_name: str, language: str = "en") -> tuple[Entry, ...]:
    """The entries of one word list, in file order; raises ``LexiconError`` on a malformed
    file and ``FileNotFoundError`` where the language has no such list."""
    path = resources.files(__name__).joinpath(language, f"{list_name}.toml")
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    raw = data.get("entry")
    if not isinstance(raw, list) or not raw:
        raise LexiconError(f"{language}/{list_name}.toml has no [[entry]] tables")
    return tuple(
        _entry(item, f"{language}/{list_name}.toml #{i + 1}") for i, item in enumerate(raw)
    )


def words(list_name: str, language: str = "en", name: str | None = None) -> frozenset[str]:
    """Every word or phrase of a list (of the entries named ``name``, when given)."""
    return frozenset(phrases(list_name, language, name))


def phrases(list_name: str, language: str = "en", name: str | None = None) -> tuple[str, ...]:
    """The words and phrases of a list in file order, longest first within ties of order:
    ready to join into a pattern where a longer phrase must win ("no longer" over "no")."""
    found = dict.fromkeys(
        word
        for entry in entries(list_name, language)
        if name in (None, entry.name)
        for word in entry.words
    )
    return tuple(sorted(found, key=len, reverse=True))


def alternation(words: Iterable[str], *, any_space: bool = True) -> str:
    """A regular-expression alternation of ``words``, escaped, longest first (so "no longer"
    wins over "no"); with ``any_space`` a space in a phrase matches any run of spaces."""
    escaped = (re.escape(word) for word in sorted(words, key=len, reverse=True))
    return "|".join(e.replace(r"\ ", r"\s+") if any_space else e for e in escaped)


def names(list_name: str, language: str = "en") -> tuple[str, ...]:
    """The group names of a list, in file order, each once."""
    return tuple(dict.fromkeys(entry.name for entry in entries(list_name, language)))


def _entry(item: object, where: str) -> Entry:
    if not isinstance(item, dict):
        raise LexiconError(f"{where}: an entry must be a table")
    unknown = set(item) - _KEYS
    if unknown:
        raise LexiconError(f"{where}: unknown keys {sorted(unknown)}")
    for key in ("words", "why", "example"):
        if not item.get(key):
            raise LexiconError(f"{where}: '{key}' is required")
    return Entry(
        words=_strings(item["words"], where, "words"),
        why=_string(item["why"], where, "why"),
        example=_string(item["example"], where, "example"),
        name=_string(item.get("name", ""), where, "name"),
        against=_strings(item.get("against", []), where, "against"),
        licensed_by=_strings(item.get("licensed_by", []), where, "licensed_by"),
        idioms=_strings(item.get("idioms", []), where, "idioms"),
        value=_string(item.get("value", ""), where, "value"),
    )


def _string(value: object, where: str, key: str) -> str:
    if not isinstance(value, str):
        raise LexiconError(f"{where}: '{key}' must be a string")
    return value


def _strings(value: object, where: str, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise LexiconError(f"{where}: '{key}' must be a list of non-empty strings")
    items: Iterable[str] = value
    return tuple(items)
