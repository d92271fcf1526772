"""How a clause stands: which words it states, which it negates by a prefix, whether it is
negated, and what it quantifies; with the opposites and converses of its words.

The words come from the word lists (``negation``, ``exceptions``, ``negating_prefixes``,
``quantifiers``, ``opposites``, ``converses``, ``senses``), read here once for the rules that
compare polarity: the polarity check and the certainty check.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import cache

from judge.reading import lexicon
from judge.reading.clauses import clauses
from judge.reading.reading import Reading, read
from judge.reading.restatement import Grain, restatements
from judge.reading.words import compounds, is_content, word_form

__all__ = [
    "CONVERSES",
    "CONVERSE_IDIOMS",
    "EXCEPTION",
    "MIN_CONTENT_WORDS",
    "NEGATION",
    "NOT_NEGATION",
    "OPPOSITE",
    "SIDE",
    "THAN",
    "Clause",
    "RestatingClause",
    "claim_side",
    "clause_holds",
    "converse_forms",
    "is_polar_content",
    "opposite_forms",
    "plainly_in",
    "prefix_negated",
    "prefix_negations",
    "prefix_opposite",
    "read_clause",
    "restating_clause",
    "sense_words",
    "words_of",
]


_NEGATION_WORDS = (
    lexicon.words("negation", name="word") | lexicon.words("negation", name="phrase")
) - {"n't"}
NEGATION = re.compile(rf"\b(?:{lexicon.alternation(_NEGATION_WORDS)})\b|n't\b", re.IGNORECASE)
# "not only", "no doubt", "nothing but", "no later than": negation words that assert.
NOT_NEGATION = re.compile(
    rf"\b(?:{lexicon.alternation(lexicon.words('negation', name='asserting'))})\b", re.IGNORECASE
)
EXCEPTION = re.compile(
    rf"\b(?:{lexicon.alternation(lexicon.words('exceptions'))})\b", re.IGNORECASE
)
THAN = re.compile(r"\bthan\b", re.IGNORECASE)
_QUANTIFIERS = tuple(
    (
        name,
        re.compile(
            rf"\b(?:{lexicon.alternation(lexicon.words('quantifiers', name=name))})\b", re.I
        ),
    )
    for name in ("none", "all", "some")
)


def words_of(text: str) -> Iterator[str]:
    """The words of ``text`` in letters (hyphenated words whole), casefolded, each read in
    its sense (:func:`sense_words`)."""
    senses = sense_words(text)
    for word, start, _ in compounds(text):
        if word[:1].isalpha():
            yield senses.get(start, word.casefold()).strip("'’-")


def sense_words(text: str) -> dict[int, str]:
    """Offsets of words whose sense a phrase fixes ("fall" in "in the fall"), with the word
    they are read as ("autumn")."""
    found: dict[int, str] = {}
    for entry in lexicon.entries("senses"):
        for phrase in entry.words:
            for match in re.finditer(rf"\b{lexicon.alternation((phrase,))}\b", text, re.IGNORECASE):
                inner = re.search(rf"\b{re.escape(entry.name)}\b", match.group(0), re.I)
                if inner is not None:
                    found[match.start() + inner.start()] = entry.value
    return found


def plainly_in(word: str, text: str) -> bool:
    """Whether ``text`` writes ``word`` as a word of its own, not inside a hyphenated one; a
    hyphen may stand spaced, as tokenised text writes it ("non - binary")."""
    body = r"\s*-\s*".join(re.escape(part) for part in word.split("-"))
    return re.search(rf"(?<![\w-]){body}(?![\w-])", text, re.IGNORECASE) is not None


# --- negating prefixes ----------------------------------------------------------------------

_ANY_PREFIX = lexicon.words("negating_prefixes", name="any")
_ADJECTIVE_PREFIX = lexicon.words("negating_prefixes", name="adjective")
_LISTED = lexicon.words("negating_prefixes", name="listed")
_ADJECTIVE_ENDINGS = tuple(lexicon.words("negating_prefixes", name="adjective_endings"))
_PREFIXES = lexicon.alternation(_ANY_PREFIX | _ADJECTIVE_PREFIX | {"dis"})
_PREFIX = re.compile(rf"^(?P<prefix>{_PREFIXES})-?(?P<bare>[a-z]{{4,}})")


def prefix_negated(word: str) -> str | None:
    """The word that ``word`` (casefolded) negates by its prefix, or None: "un" and "non"
    before any word of four letters or more ("unopened", "non-refundable"); "in", "im", "ir"
    and "il" only before adjectives ("inaccurate", not "inform"); "dis" only in the listed
    words ("disapprove", not "discover")."""
    match = _PREFIX.match(word)
    if match is None:
        return None
    prefix, bare = match.group("prefix"), match.group("bare")
    if prefix in _ANY_PREFIX:
        return bare
    if prefix in _ADJECTIVE_PREFIX:
        return bare if bare.endswith(_ADJECTIVE_ENDINGS) else None
    return bare if word in _LISTED else None


def prefix_negations(word: str) -> frozenset[str]:
    """The words that negate ``word`` (casefolded) by a prefix: "unsuitable" and
    "non-suitable" for "suitable", "inaccurate" for "accurate"."""
    if len(word) < 4:
        return frozenset()
    found = {prefix + word for prefix in _ANY_PREFIX}
    if word.endswith(_ADJECTIVE_ENDINGS):
        found |= {prefix + word for prefix in _ADJECTIVE_PREFIX}
    if "dis" + word in _LISTED:
        found.add("dis" + word)
    return frozenset(found)


def _opposite_prefixes() -> dict[str, str]:
    pairs: dict[str, str] = {}
    for entry in lexicon.entries("opposite_prefixes"):
        for one, other in zip(entry.words, entry.against, strict=True):
            pairs[one], pairs[other] = other, one
    return pairs


_OPPOSITE_PREFIX = _opposite_prefixes()
_HYPHEN_PREFIX = re.compile(rf"^({lexicon.alternation(frozenset(_OPPOSITE_PREFIX))})-(\w.+)$")


def prefix_opposite(word: str) -> str | None:
    """The hyphenated word with the opposite prefix: "off-policy" for "on-policy"."""
    match = _HYPHEN_PREFIX.match(word)
    if match is None:
        return None
    return f"{_OPPOSITE_PREFIX[match.group(1)]}-{match.group(2)}"


# --- opposites and converses ----------------------------------------------------------------


@cache
def _sides() -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """Each listed opposite's form, mapped to the forms of its own side and of the other."""
    side: dict[str, set[str]] = {}
    opposite: dict[str, set[str]] = {}
    for entry in lexicon.entries("opposites"):
        left = {word_form(word) for word in entry.words}
        right = {word_form(word) for word in entry.against}
        for group, facing in ((left, right), (right, left)):
            for form in group:
                side.setdefault(form, set()).update(group)
                opposite.setdefault(form, set()).update(facing)
    return (
        {form: frozenset(forms) for form, forms in side.items()},
        {form: frozenset(forms) for form, forms in opposite.items()},
    )


SIDE, OPPOSITE = _sides()


def _facing() -> dict[str, frozenset[str]]:
    facing: dict[str, set[str]] = {}
    for entry in lexicon.entries("converses"):
        left, right = set(entry.words), set(entry.against)
        for group, other in ((left, right), (right, left)):
            for word in group:
                facing.setdefault(word, set()).update(other)
    return {word: frozenset(words) for word, words in facing.items()}


# Each converse word, mapped to the words on the other side of its entry.
CONVERSES = _facing()
# Phrases holding a converse word without its sense ("no more", "after all").
CONVERSE_IDIOMS = tuple(idiom for entry in lexicon.entries("converses") for idiom in entry.idioms)


def _converse_forms() -> dict[str, frozenset[str]]:
    """Each converse's form, mapped to the forms facing it: the union over every word of
    that form ("lost" faces "won" in one entry and "gained" in another)."""
    facing: dict[str, set[str]] = {}
    for word, others in CONVERSES.items():
        facing.setdefault(word_form(word), set()).update(map(word_form, others))
    return {form: frozenset(others) for form, others in facing.items()}


_CONVERSE_FORMS = _converse_forms()


def opposite_forms(forms: AbstractSet[str]) -> frozenset[str]:
    """The forms of every listed opposite of ``forms``."""
    found: set[str] = set()
    for form in forms:
        found |= OPPOSITE.get(form, frozenset())
    return frozenset(found)


def converse_forms(forms: AbstractSet[str]) -> frozenset[str]:
    """The forms of the converses of ``forms``: "lost" holds the claim's "won"."""
    return frozenset(other for form in forms for other in _CONVERSE_FORMS.get(form, ()))


# --- clauses --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Clause:
    """A clause as the polarity rules read it."""

    text: str
    words: frozenset[str]  # forms of its content words
    prefixed: frozenset[str]  # forms of the words it negates by a prefix ("refund" of
    # "non-refundable"), where it does not also state them plainly
    negated: bool
    quantifier: str | None  # "all", "none" or "some"
    # Per content word, the forms it holds: its own, and a prefix-negated word's bare form.
    readings: frozenset[frozenset[str]] = frozenset()

    @property
    def stated(self) -> frozenset[str]:
        """Every form the clause states or negates by a prefix."""
        return self.words | self.prefixed


def read_clause(text: str) -> Clause:
    """The clause reading of ``text``, kept with its reading (:func:`judge.reading.read`)."""
    return read(text).view(_clause)


def _clause(reading: Reading) -> Clause:
    text = reading.text
    plain = NOT_NEGATION.sub(lambda m: " " * len(m.group(0)), text)
    senses = sense_words(plain)
    words: set[str] = set()
    prefixed: set[str] = set()
    readings: set[frozenset[str]] = set()
    # A negation of more than one word ("failed to", "no longer") is no content either.
    unnegated = NEGATION.sub(lambda m: " " * len(m.group(0)), plain)
    for written, start, _ in compounds(unnegated):
        if not written[:1].isalpha():
            continue
        word = senses.get(start, written.casefold()).strip("'’-")
        if not is_polar_content(word):
            continue
        form = word_form(word)
        held = {form}
        bare = prefix_negated(word)
        if bare is not None:
            prefixed.add(word_form(bare))
            held.add(word_form(bare))
        words.add(form)
        readings.add(frozenset(held))
    quantifier = next((name for name, pattern in _QUANTIFIERS if pattern.search(plain)), None)
    return Clause(
        text,
        frozenset(words),
        frozenset(prefixed - words),
        NEGATION.search(plain) is not None,
        quantifier,
        frozenset(readings),
    )


_QUANTIFIER_WORDS = lexicon.words("quantifiers")


def is_polar_content(word: str) -> bool:
    """Content as the polarity rules compare it: negations and quantifiers are read apart."""
    return is_content(word) and not NEGATION.fullmatch(word) and word not in _QUANTIFIER_WORDS


# --- the clause that restates a claim -------------------------------------------------------

# Claims this short share too few words with any clause for the overlap to mean anything.
MIN_CONTENT_WORDS = 2


@dataclass(frozen=True)
class RestatingClause:
    """The evidence clause that restates a claim best, as the polarity rules read it."""

    clause: Clause
    sentence: str  # the evidence sentence holding it
    overlap: float  # the share of the claim's content words it holds


def clause_holds(part: str) -> frozenset[str]:
    """The forms a clause holds for a claim's words: those it states or negates by a prefix,
    and the opposites and converses of those it states (the clause restates the claim, with
    that word flipped)."""
    clause = read_clause(part)
    return clause.stated | opposite_forms(clause.words) | converse_forms(clause.words)


def restating_clause(claim: str, evidence: Reading) -> RestatingClause | None:
    """The evidence clause that restates ``claim`` best, inside its best-matching sentences,
    if one holds at least the review share of its content words."""
    stated = read_clause(claim)
    if len(stated.readings) < MIN_CONTENT_WORDS:
        return None
    found = restatements(
        claim, evidence, sorted(stated.readings, key=sorted), grain=Grain.CLAUSE,
        forms_of=clause_holds,
    )  # fmt: skip
    if not found:
        return None
    best = found[0]
    return RestatingClause(read_clause(best.text), best.sentence, best.overlap)


def claim_side(claim: str, evidence: Clause) -> Clause:
    """The claim read over its clauses that share a word with the evidence clause restating
    it, so an aside ("I'm not sure, but ...") lends its negation to nothing."""
    parts = [read_clause(part) for part in clauses(claim)] or [read_clause(claim)]
    kept = [c for c in parts if c.stated & evidence.stated] or parts
    if len(kept) == 1:
        return kept[0]
    return read_clause(" ".join(c.text for c in kept))
