"""The words the polarity checks read: negation, negating prefixes, stems, and the lists of
opposites and converses, shared by the clause check (:mod:`polarity`) and the local one
(:mod:`word_flips`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from collections.abc import Set as AbstractSet

from judge.pipeline.checks.converses import CONVERSES
from judge.pipeline.claims.sentences import base_form

NEGATION = re.compile(
    r"\b(?:not|no|never|none|nobody|nothing|neither|nor|without|cannot|"
    r"no\s+longer|fail(?:s|ed|ing)?\s+to|lack(?:s|ed|ing)?|hardly|scarcely)\b|n't\b",
    re.IGNORECASE,
)
# "not only", "no doubt", "nothing but", "no later than": negation words that assert.
NOT_NEGATION = re.compile(
    r"\b(?:not\s+only|not\s+just|no\s+doubt|nothing\s+but|no\s+(?:later|earlier|more|less|"
    r"fewer|sooner)\s+than|not\s+(?:more|less|fewer)\s+than|never\s+(?:before|again)|"
    r"not\s+until|whether\s+or\s+not|if\s+not)\b",
    re.IGNORECASE,
)
EXCEPTION = re.compile(r"\b(?:except|unless|apart\s+from|other\s+than|save\s+for)\b", re.I)
# Comparatives compare two things: "higher in A than in B" is "lower in B than in A".
COMPARATIVES = frozenset({"higher", "lower", "stronger", "weaker", "easier", "cheaper"})
THAN = re.compile(r"\bthan\b", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
NEGATING_PREFIX = re.compile(r"^(?:non-?|un|in|im|ir|il|dis)(?=[a-z]{4,})")
_SUFFIXES = ("ability", "ibility", "able", "ible", "ally", "ness", "ment", "ing", "ed", "es",
             "ly", "al", "s", "e")  # fmt: skip

# Opposites that hold of one thing: either side of a pair, stated by the claim where its
# evidence states the other, flips it. Converses ("sold" / "bought", "won" / "lost", "before" /
# "after") are left out: they say the same thing with the parties swapped.
_OPPOSITE_GROUPS: tuple[tuple[str, str], ...] = (
    (
        "increase increased increases increasing rise rises rose risen rising grow grows grew "
        "grown growing climb climbed climbing surge surged soar soared jump jumped boost "
        "boosted raise raised raises raising higher",
        "decrease decreased decreases decreasing decline declined declines declining fall falls "
        "fell fallen falling drop dropped drops dropping reduce reduced reduces reducing shrink "
        "shrank shrunk plunge plunged slump slumped lower lowered",
    ),
    ("open opened opens reopened", "closed shut"),
    (
        "allow allowed allows permit permitted permits",
        "prohibit prohibited prohibits forbid forbidden forbids ban banned bans",
    ),
    (
        "accept accepted accepts approve approved approves",
        "reject rejected rejects deny denied denies refuse refused refuses",
    ),
    ("include included includes including", "exclude excluded excludes excluding"),
    ("add added adds", "remove removed removes"),
    ("start started starts begin began begun", "stop stopped stops halt halted cease ceased"),
    ("succeed succeeded succeeds success successful", "fail failed fails failure"),
    ("positive", "negative"),
    ("true correct accurate", "false wrong"),
    ("safe", "dangerous"),
    ("male men man", "female women woman"),
    ("free", "paid"),
    ("extend extended extends extending", "shorten shortened shortens shortening"),
    ("alive survived survive survives", "dead died die dies"),
    ("maximum", "minimum"),
    ("majority", "minority"),
    ("mandatory compulsory required obligatory", "optional voluntary unnecessary"),
    ("enable enabled enables", "disable disabled disables"),
    ("online", "offline"),
    ("public publicly", "private privately"),
    ("guilty convicted", "innocent acquitted"),
    ("temporary temporarily", "permanent permanently"),
    ("full fully", "partial partially"),
    ("same identical", "different"),
    ("indoor indoors", "outdoor outdoors"),
    ("symptomatic", "asymptomatic"),
    ("strong stronger strengthen", "weak weaker weaken"),
    ("easy easier", "difficult"),
    ("cheap cheaper", "expensive costly"),
    ("highest biggest largest greatest", "lowest smallest"),
    ("profit profits profitable", "loss losses"),
    ("hire hired hires hiring", "fired layoff layoffs dismiss dismissed dismisses"),
    ("renew renewed renews renewal", "cancel cancelled canceled cancels cancellation"),
    ("support supported supports", "oppose opposed opposes"),
    ("confirm confirmed confirms", "deny denied denies refute refuted refutes"),
    ("rich wealthy", "poor"),
    ("hot", "cold"),
    ("mild", "severe"),
    ("benign", "malignant"),
    ("acute", "chronic"),
    ("rural", "urban"),
    ("internal", "external"),
    # Seasons and parts of the day exclude one another as opposites do.
    ("spring", "summer"),
    ("spring", "autumn"),
    ("spring", "winter"),
    ("summer", "autumn"),
    ("summer", "winter"),
    ("autumn", "winter"),
    ("morning", "afternoon"),
    ("morning", "evening"),
    ("afternoon", "evening"),
    # Multiples exclude one another as opposites do: what doubled did not triple.
    ("double doubled doubles doubling", "triple tripled triples tripling"),
    ("double doubled doubles doubling", "halve halved halves halving"),
    ("triple tripled triples tripling", "halve halved halves halving"),
)


def words_of(text: str) -> Iterator[str]:
    """The words of ``text``, casefolded, apostrophes and hyphens trimmed from their ends."""
    for match in _WORD.finditer(text):
        if word := match.group(0).casefold().strip("'-"):
            yield word


def plainly_in(word: str, text: str) -> bool:
    """Whether ``text`` writes ``word`` as a word of its own, not inside a hyphenated one."""
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text, re.IGNORECASE) is not None


def word_stem(word: str) -> str:
    """A crude stem that "refund", "refunds", "refunded" and "refundable" share, and "met"
    and "meet"."""
    word = base_form(word.replace("-", ""))
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def _sides() -> tuple[dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """Each listed word's stem, mapped to the stems of its own side of the pair and to those
    of the other side."""
    side: dict[str, set[str]] = {}
    opposite: dict[str, set[str]] = {}
    for one, other in _OPPOSITE_GROUPS:
        left = {word_stem(word) for word in one.split()}
        right = {word_stem(word) for word in other.split()}
        for group, facing in ((left, right), (right, left)):
            for stem in group:
                side.setdefault(stem, set()).update(group)
                opposite.setdefault(stem, set()).update(facing)
    frozen = {stem: frozenset(stems) for stem, stems in side.items()}
    return frozen, {stem: frozenset(stems) for stem, stems in opposite.items()}


def opposite_stems(words: AbstractSet[str]) -> frozenset[str]:
    """The stems of every listed opposite of ``words`` (stems)."""
    found: set[str] = set()
    for word in words:
        found |= OPPOSITE.get(word, frozenset())
    return frozenset(found)


def converse_stems(words: AbstractSet[str]) -> frozenset[str]:
    """The stems of the converses of ``words`` (stems): "lost" holds the claim's "won"."""
    return frozenset(stem for word in words for stem in CONVERSE_STEMS.get(word, ()))


SIDE, OPPOSITE = _sides()
CONVERSE_STEMS = {
    word_stem(word): frozenset(map(word_stem, others)) for word, others in CONVERSES.items()
}
