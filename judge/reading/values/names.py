"""Names in text: runs of capitalised words, and whether a text names the same thing.

A name is a run of capitalised words ("Illinois Coalition Against Domestic Violence", "Justin
Sun", "EEG-SSVEP"). A sentence's first word is a name only as an acronym or as the head of a
longer run: "Researchers at Harvard" names Harvard alone. Function words, months, weekdays,
titles ("Mr.", "President") and company suffixes ("Inc.") name nothing, and words with digits
are the number and identifier checks' business.

A text holds a name word when it writes it in any case, with or without a possessive, as the
parts of a hyphenated or dotted word, in a form sharing its stem ("China" for "Chinese",
"Peru" for "Peruvian"), as the demonym of a country whose spelling changes ("French" for
"France"), or as an acronym of its words ("BOJ" for "Bank of Japan", and the other way round).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz.distance import DamerauLevenshtein

from judge.reading import lexicon
from judge.reading.values.dates import MONTHS, WEEKDAYS
from judge.reading.words import compounds

_POSSESSIVE = re.compile(r"['’]s?$")
_SENTENCE_START = tuple('.!?:;"“‘(\n#*>|')
# A dot after these does not end a sentence ("Mr. Biden", "Acme Inc. said"): the splitter's
# abbreviations, and a single capital ("J. Smith") or a dotted acronym ("U.S.").
_ABBREVIATED = "|".join(
    re.escape(word)
    for entry in lexicon.entries("abbreviations")
    if entry.name != "sentence_opener"
    for word in sorted(entry.words, key=len, reverse=True)
)
_ABBREVIATION = re.compile(rf"(?:(?<![\w.])[A-Z]|(?:[A-Z]\.){{2,}}|\b(?i:{_ABBREVIATED}))\.$")
NEIGHBOURS = 2
_LOOK_BACK = 16
# Names at least this long may be spelt one letter differently.
_SPELLING_MIN = 5
# A name word this long may stand for a longer one it starts ("Tim" for "Timothy").
_SHORTENED_MIN = 3
_SENTENCE_END = re.compile(r"[.!?]\s|\n")
# Words that join the words of one name: "Bank of Japan", "Royal College of Music & Drama".
_CONNECTORS = lexicon.words("name_words", name="connector")
# Words an acronym's initials may also skip or spell ("Centers for Disease Control and
# Prevention"), but that join two names as often as one.
_INITIALS_CONNECTORS = _CONNECTORS | lexicon.words("name_words", name="initials_connector")


def _not_names() -> frozenset[str]:
    """Capitalised words that name nothing: function and discourse words, negations,
    quantifiers, number words, titles, company suffixes, months and weekdays."""
    lists = (
        lexicon.words("function_words")
        | lexicon.words("discourse_words")
        | lexicon.words("negation", name="word")
        | lexicon.words("quantifiers")
        | lexicon.words("name_words", name="not_a_name")
        | lexicon.words("name_words", name="title")
        | lexicon.words("name_words", name="company_suffix")
        | lexicon.words("number_words", name="unit")
        | lexicon.words("number_words", name="ten")
        | lexicon.words("number_words", name="ordinal")
    )
    return frozenset(w for w in lists if " " not in w) | frozenset(MONTHS) | frozenset(WEEKDAYS)


_NOT_NAMES = _not_names()
# Demonyms whose stem is not their country's ("French" / "France"); the others share a stem.
_DEMONYMS = {word: entry.name for entry in lexicon.entries("demonyms") for word in entry.words}


@dataclass(frozen=True)
class NameRun:
    """Capitalised words of a text read as one name, with the words next to it."""

    words: tuple[str, ...]  # as written, possessive and final dot dropped
    start: int
    end: int
    # Up to two words on each side inside its sentence, nearest first, as word keys.
    before: tuple[str, ...]
    after: tuple[str, ...]


def _token_texts(text: str) -> list[str]:
    return [token for token, _, _ in compounds(text)]


def word_key(word: str) -> str:
    """A name word as compared: casefolded, without accents, a possessive or a final dot
    ("Noël" is "noel")."""
    plain = unicodedata.normalize("NFKD", word.casefold())
    plain = "".join(ch for ch in plain if not unicodedata.combining(ch))
    return _POSSESSIVE.sub("", plain).rstrip(".")


def name_runs(text: str) -> list[NameRun]:
    """The names of ``text``, in order."""
    tokens = compounds(text)
    runs: list[NameRun] = []
    index = 0
    while index < len(tokens):
        if not _is_name_word(tokens[index][0]):
            index += 1
            continue
        last = index
        while True:
            step = _extends(text, tokens, last)
            if step == 0:
                break
            last += step
        opens = _opens_sentence(text, tokens[index][1])
        if (
            opens
            and not _is_acronym(_display(tokens[index][0]))
            and _extends(text, tokens, index) != 1
        ):
            # A capitalised first word names something only with a name right after it:
            # "Justin Sun said", not "Researchers at Harvard" or "Shares of Nordvik Energy".
            index += 1
            continue
        words = tuple(_display(token) for token, _, _ in tokens[index : last + 1])
        before = () if opens else _neighbours(text, tokens, index, -1)
        after = _neighbours(text, tokens, last, 1)
        runs.append(NameRun(words, tokens[index][1], tokens[last][2], before, after))
        index = last + 1
    return runs


@dataclass(frozen=True)
class NameForms:
    """What a text writes, read for names: its words by key, and the acronyms it spells."""

    words: frozenset[str]
    by_prefix: dict[str, frozenset[str]]
    by_length: dict[int, frozenset[str]]
    acronyms: frozenset[str]  # acronyms the text writes, dots dropped ("US" of "U.S.")
    initials: frozenset[str]  # initials of its runs of capitalised words ("BOJ", "BJ")

    def holds(self, word: str) -> bool:
        """Whether the text writes the name word ``word`` in one of the forms it may take."""
        key = word_key(word)
        if key in self.words or any(self._stem_of(form) for form in _country_forms(key)):
            return True
        if f"{key}s" in self.words or (key.endswith("s") and key[:-1] in self.words):
            return True  # the plural of a name: "Billboard Top LPs" for "Top LP's"
        parts = [part for part in re.split(r"[-.&'’]", key) if part]
        if len(parts) > 1 and all(part in self.words for part in parts):
            return True
        if _is_acronym(word) and key.replace(".", "").upper() in self.initials | self.acronyms:
            return True
        if self._stem_of(key):
            return True
        # One letter changed, added or dropped in a longer word is a spelling ("Gaddafi" and
        # "Qaddafi"), not another name; not in acronyms and codes ("EOG-SSVEP", "EEG-SSVEP").
        if len(key) < _SPELLING_MIN or not key.isalpha() or word.isupper():
            return False
        sizes = (len(key) - 1, len(key), len(key) + 1)
        similar = (other for size in sizes for other in self.by_length.get(size, ()))
        return any(_one_edit(key, other) for other in similar)

    def _stem_of(self, key: str) -> bool:
        return key in self.words or any(
            _same_stem(key, other) for other in self.by_prefix.get(key[:4], ())
        )

    def spells(self, run: NameRun) -> bool:
        """Whether the text writes an acronym of ``run`` ("BOJ" for "Bank of Japan")."""
        return bool(_initials_of(run.words) & self.acronyms)


def name_forms(text: str) -> NameForms:
    """The name forms of a text (``Reading.name_forms`` keeps them with its reading)."""
    keys = {word_key(token) for token in _token_texts(text)}
    keys |= {key.replace(".", "") for key in keys if "." in key}
    # "Abong-Mbang" writes "Abong" and "Mbang" too.
    keys |= {part for key in keys if "-" in key for part in key.split("-") if part}
    by_prefix: dict[str, set[str]] = {}
    by_length: dict[int, set[str]] = {}
    for key in keys:
        by_prefix.setdefault(key[:4], set()).add(key)
        by_length.setdefault(len(key), set()).add(key)
    acronyms = {
        token.replace(".", "").upper() for token in _token_texts(text) if _is_acronym(token)
    }
    return NameForms(
        frozenset(keys),
        {prefix: frozenset(words) for prefix, words in by_prefix.items()},
        {size: frozenset(words) for size, words in by_length.items()},
        frozenset(acronyms),
        frozenset(_phrase_initials(text)),
    )


def written_fuller(short: NameRun, long: NameRun) -> bool:
    """Whether ``long`` writes the name ``short`` more fully: each word of ``short`` in order
    as a word of ``long`` or its start ("Tim Roth" of "Timothy Simon Roth"), or a dotted or
    capital abbreviation as the initials of words in a row ("West Ham United F.C." of "West
    Ham United Football Club"); other words may stand between."""
    words = [word_key(w) for w in long.words]
    at = 0
    for word in short.words:
        key = word_key(word)
        letters = key.replace(".", "")
        if ("." in key or _is_acronym(word)) and len(letters) >= 2:
            span = len(letters)
            found = next(
                (
                    i
                    for i in range(at, len(words) - span + 1)
                    if "".join(w[:1] for w in words[i : i + span]) == letters
                ),
                None,
            )
            if found is not None:
                at = found + span
                continue
        found = next(
            (
                i
                for i in range(at, len(words))
                if words[i] == key or (len(key) >= _SHORTENED_MIN and words[i].startswith(key))
            ),
            None,
        )
        if found is None:
            return False
        at = found + 1
    return True


def is_acronym_of(short: NameRun, long: NameRun) -> bool:
    """Whether one of the two runs is an acronym of the other."""
    for one, other in ((short, long), (long, short)):
        single = len(one.words) == 1 and _is_acronym(one.words[0])
        if single and one.words[0].replace(".", "").upper() in _initials_of(other.words):
            return True
    return False


def _neighbours(
    text: str, tokens: list[tuple[str, int, int]], edge: int, step: int
) -> tuple[str, ...]:
    """Up to two word keys from ``tokens[edge]`` outwards (``step`` -1 or 1), not past the end
    of its sentence."""
    found: list[str] = []
    index = edge
    while len(found) < NEIGHBOURS and 0 <= index + step < len(tokens):
        near, far = sorted((tokens[index], tokens[index + step]), key=lambda token: token[1])
        if _SENTENCE_END.search(text[near[2] : far[1]]):
            break
        index += step
        found.append(word_key(tokens[index][0]))
    return tuple(found)


def _extends(text: str, tokens: list[tuple[str, int, int]], last: int) -> int:
    """How many tokens after ``tokens[last]`` continue its name: the next name word, or a
    connector and the name word after it ("Bank" "of" "Japan"); 0 if none."""
    if _POSSESSIVE.search(tokens[last][0]):
        return 0  # "Bankman-Fried's Alameda Research" names two things
    for step in (1, 2):
        if last + step >= len(tokens):
            return 0
        if text[tokens[last + step - 1][2] : tokens[last + step][1]].strip():
            return 0
        token = tokens[last + step][0]
        if _is_name_word(token):
            return step
        if step == 2 or token.casefold() not in _CONNECTORS or token[:1].isupper():
            return 0
    return 0


def is_connector(word: str) -> bool:
    return word.casefold() in _CONNECTORS


def _is_name_word(token: str) -> bool:
    word = _display(token)
    if len(word) < 2 or not word[0].isupper() or any(ch.isdigit() for ch in word):
        return False
    return word_key(word) not in _NOT_NAMES


def _is_acronym(word: str) -> bool:
    letters = word.replace(".", "")
    return 2 <= len(letters) <= 6 and letters.isalpha() and letters.isupper()


def _display(token: str) -> str:
    return _POSSESSIVE.sub("", token).rstrip(".") if not _is_dotted(token) else token


def _is_dotted(token: str) -> bool:
    """An acronym written with dots ("U.S."), whose last dot is its own."""
    return re.fullmatch(r"(?:[A-Z]\.){2,}", token) is not None


def _opens_sentence(text: str, start: int) -> bool:
    # The few characters before the word decide; copying all of them would be quadratic.
    before = text[max(0, start - _LOOK_BACK) : start].rstrip()
    if before.endswith(".") and _ABBREVIATION.search(before):
        return False  # "Mr. Biden", "the U.S. Senate", "J. Smith"
    return not before or before.endswith(_SENTENCE_START)


def _country_forms(key: str) -> set[str]:
    """For a country or a demonym whose spelling changes, the country and all its demonyms:
    "u.s." gives "america", "american" and "us"."""
    plain = key.replace(".", "")
    singular = plain.removesuffix("s") if len(plain) > 4 else plain
    countries = {c for d, c in _DEMONYMS.items() if d in (plain, singular)}
    countries |= {c for c in _DEMONYMS.values() if c in (plain, singular)}
    return countries | {d for d, c in _DEMONYMS.items() if c in countries}


def _one_edit(one: str, other: str) -> bool:
    """Whether the two words differ by one letter changed, added or dropped, or two
    neighbouring letters swapped ("Brain" for "Brian")."""
    return one != other and DamerauLevenshtein.distance(one, other, score_cutoff=1) <= 1


def _same_stem(one: str, other: str) -> bool:
    """Whether two word keys share a start that leaves at most two letters of the shorter
    word, and at least four letters: "chinese" and "china", "peruvian" and "peru"."""
    return shared_start(one, other) >= max(4, min(len(one), len(other)) - 2)


def shared_start(one: Sequence[str], other: Sequence[str]) -> int:
    """How many items (letters of two words, words of two names) the two start with alike."""
    return next(
        (i for i, (a, b) in enumerate(zip(one, other, strict=False)) if a != b),
        min(len(one), len(other)),
    )


def _initials_of(words: tuple[str, ...]) -> set[str]:
    """The acronyms ``words`` may be written as: the initials of its capitalised words, with
    and without the connectors between them, and their starts ("CDC" of "Centers for Disease
    Control and Prevention")."""
    plain = "".join(word[0] for word in words if word[:1].isupper())
    joined = "".join(word[0].upper() for word in words)
    return {spelled[:size] for spelled in (plain, joined) for size in range(2, len(spelled) + 1)}


def _phrase_initials(text: str) -> set[str]:
    """Initials of every run of capitalised words in ``text``, connectors read either way."""
    found: set[str] = set()
    phrase: list[str] = []
    for token in [*_token_texts(text), ""]:
        if token[:1].isupper() and not _is_acronym(token):
            phrase.append(token)
            continue
        if phrase and token.casefold() in _INITIALS_CONNECTORS:
            phrase.append(token)
            continue
        while phrase and phrase[-1].casefold() in _INITIALS_CONNECTORS:
            phrase.pop()
        if len(phrase) >= 2:
            found |= _initials_of(tuple(phrase))
        phrase = []
    return found
