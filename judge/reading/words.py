"""Words: the one tokenizer, the one word-form function and which words carry content.

Two shapes of token, both defined here and nowhere else:

* a *word* (:func:`words`): letters and digits, with apostrophes and dots inside ("don't",
  "U.S", "3.5") and thousands commas in numbers ("1,000"); a hyphen ends a word, so
  "non-refundable" is "non" and "refundable" and "COVID-19" is "COVID" and "19";
* a *compound* (:func:`compounds`): words joined by hyphens, ampersands or inner dots, and
  acronyms with their dots ("non-refundable", "AT&T", "Bankman-Fried's", "U.S."), for the
  rules that read a word's prefix or a name as written.

:func:`word_form` is the one lower-cased, stemmed form two texts are compared by: "refunds",
"refunded" and "refundable" share "refund", "met" and "meet" share "meet".
"""

from __future__ import annotations

import re
from functools import lru_cache

from judge.reading import lexicon
from judge.reading.citations import parse_citations, remove_markers

__all__ = [
    "Word",
    "base_form",
    "compounds",
    "content_forms",
    "content_words",
    "is_bare_reply",
    "is_content",
    "is_discourse",
    "is_function_word",
    "word_form",
    "words",
]

Word = tuple[str, int, int]  # the word as written, its start and end

_WORD = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|[^\W_]+(?:['’.][^\W_]+)*")
_COMPOUND = re.compile(r"(?:[A-Z]\.){2,}|[^\W_]+(?:['’.&_-][^\W_]+)*")


def _endings(name: str) -> tuple[tuple[str, int], ...]:
    """The endings of en/suffixes.toml named ``name``, each with the letters that must stay
    for it to be cut; longest first, so "ally" is tried before "ly"."""
    found = [
        (ending, int(entry.value))
        for entry in lexicon.entries("suffixes")
        if entry.name == name
        for ending in entry.words
    ]
    return tuple(sorted(found, key=lambda item: len(item[0]), reverse=True))


_NEGATION_SUFFIXES = tuple(lexicon.phrases("suffixes", name="negation"))
_INFLECTIONS = _endings("inflection")
_DERIVATIONS = _endings("derivation")


def words(text: str) -> list[Word]:
    """The words of ``text`` with their offsets; numbers keep their decimal points."""
    return [(m.group(), m.start(), m.end()) for m in _WORD.finditer(text)]


def compounds(text: str) -> list[Word]:
    """The words of ``text`` with their hyphens, ampersands and inner dots kept together."""
    return [(m.group(), m.start(), m.end()) for m in _COMPOUND.finditer(text)]


@lru_cache(maxsize=65536)
def word_form(word: str) -> str:
    """A lower-cased, stemmed form, so that "refunds", "refunded" and "refundable" compare
    equal; a number keeps its digits and decimal point, without thousands commas."""
    form = word.lower().replace("’", "'")
    if form.endswith(_NEGATION_SUFFIXES):
        return "not"
    if form.endswith("'s"):
        form = form[:-2]
    if any(ch.isdigit() for ch in form):
        return form.replace(",", "")
    return _stem(form.replace("-", ""))


def base_form(word: str) -> str:
    """The base form of an irregular verb form ("met" -> "meet"); other words unchanged."""
    return _irregular().get(word, word)


def is_function_word(word: str) -> bool:
    """Whether ``word`` (any case) is a function word."""
    return word.lower().replace("’", "'") in _not_content()


def is_discourse(word: str) -> bool:
    """Whether ``word`` (any case) belongs to the conversation around an answer ("Sure",
    "thanks", "sources") rather than to its facts: such words alone make no claim."""
    return word.lower().replace("’", "'") in _discourse()


def is_bare_reply(text: str) -> bool:
    """Whether ``text`` is nothing but a reply to a yes-or-no question ("Yes.", "No, not
    really."; citation markers aside): what it states is the question's answer."""
    body = remove_markers(text, parse_citations(text, strict=False))
    said = " ".join(word.lower() for word, _, _ in words(body))
    return bool(said) and _bare_reply().fullmatch(said) is not None


def is_content(word: str) -> bool:
    """Whether ``word`` carries content: not a function word, and longer than one letter;
    any word with a digit does, and so does a negation ("don't", "no")."""
    lowered = word.lower().replace("’", "'")
    if any(ch.isdigit() for ch in lowered):
        return True
    if lowered.endswith(_NEGATION_SUFFIXES):
        return True
    if lowered.endswith("'s"):
        lowered = lowered[:-2]
    return len(lowered) > 1 and lowered not in _not_content()


def content_words(text: str) -> list[Word]:
    """The words of ``text`` that carry content."""
    return [w for w in words(text) if is_content(w[0])]


def content_forms(text: str) -> frozenset[str]:
    """The :func:`word_form` of each content word of ``text``: what two texts share."""
    return frozenset(word_form(word) for word, _, _ in content_words(text))


def _stem(word: str) -> str:
    # Suffix stripping, consistent rather than linguistically right: both sides of every
    # comparison go through it.
    if len(word) <= 2:
        return word
    word = base_form(word)
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and len(word) > 3 and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for ending, keep in _DERIVATIONS:
        if word.endswith(ending) and len(word) - len(ending) >= keep:
            word = word[: -len(ending)]
            break
    for suffix, keep in _INFLECTIONS:
        if word.endswith(suffix) and len(word) - len(suffix) >= keep:
            word = word[: -len(suffix)]
            if len(word) > 2 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]
            break
    if word.endswith("e") and len(word) >= 3:
        word = word[:-1]
    return word


@lru_cache(maxsize=1)
def _irregular() -> dict[str, str]:
    forms: dict[str, str] = {}
    for entry in lexicon.entries("irregular_verbs"):
        forms.update(zip(entry.words, entry.against, strict=True))
    return forms


@lru_cache(maxsize=1)
def _not_content() -> frozenset[str]:
    """Function words: what two texts share beside their content."""
    return frozenset(word for word in lexicon.words("function_words") if " " not in word)


@lru_cache(maxsize=1)
def _bare_reply() -> re.Pattern[str]:
    reply = lexicon.alternation(lexicon.words("replies"))
    return re.compile(rf"(?:{reply})(?: (?:{reply}))*")


@lru_cache(maxsize=1)
def _discourse() -> frozenset[str]:
    """Every language's: a greeting in one language is no fact in any other."""
    return frozenset().union(
        *(
            lexicon.words("discourse_words", language)
            for language in lexicon.languages()
            if lexicon.has("discourse_words", language)
        )
    )
