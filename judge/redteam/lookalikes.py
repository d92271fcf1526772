"""Values disguised so that an exact check might not read them: a digit written as a letter
from another script or as a number form, Latin O and l inside a number, bidirectional controls
that display one value and store another, a model name one character off, a percentage
that restates percentage points, and the negation of a true sentence hidden or struck out by
markup (checked with it, read without it).

Digit attacks edit one number of the sentence most likely true into a wrong value and write
one of its digits as a look-alike; the wrong value must be flagged (a number mismatch, or the
review a disguised value gets). The model-name and percentage-point cases bring their own
small evidence, built once (on the first built-in seed), since no seed names a model.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from functools import partial

from judge.redteam import transforms as tx
from judge.redteam.evasion import _token_attack
from judge.redteam.model import Attack, Expect, Expectation, Passage, Seed, Sentence, Variant
from judge.redteam.picking import fully_supported
from judge.redteam.seeds import BUILTIN_SEEDS
from judge.schemas import Label

FAMILY = "lookalikes"
_NUMBER_FLAGS = Expectation(
    Expect.MUST_FLAG, frozenset({Label.NUMBER_MISMATCH, Label.NEEDS_REVIEW})
)
_IDENTIFIER_FLAGS = Expectation(Expect.MUST_FLAG, frozenset({Label.IDENTIFIER_MISMATCH}))
_KIND_FLAGS = Expectation(Expect.MUST_FLAG, frozenset({Label.NUMBER_MISMATCH}))

# Digits and a character drawn like each, by where the character comes from.
TONE_FIVE = {"5": "\u01bc"}  # LATIN CAPITAL LETTER TONE FIVE
CHEROKEE = {"4": "\u13ce", "6": "\u13ee"}  # CHEROKEE LETTER SE, LV
ROMAN = {"1": "\u2160", "5": "\u2164"}  # ROMAN NUMERAL ONE, FIVE
LATIN = {"0": "O", "1": "l"}


def _disguise(table: Mapping[str, str], *, inside: bool = False) -> Callable[[str], str | None]:
    """Write the first digit of a number that ``table`` covers as its look-alike; ``inside``
    only a digit with a digit on each side."""

    def encode(token: str) -> str | None:
        for index, char in enumerate(token):
            between = 0 < index < len(token) - 1 and token[index - 1].isdigit()
            if char in table and (not inside or (between and token[index + 1].isdigit())):
                return token[:index] + table[char] + token[index + 1 :]
        return None

    return encode


def _bidi_reversed(token: str) -> str | None:
    """Displayed as ``token``, stored reversed: a right-to-left override around the reversed
    digits. Only where reversing changes the value."""
    reversed_token = token[::-1]
    return None if reversed_token == token else "\u202e" + reversed_token + "\u202c"


def _number(
    encode: Callable[[str], str | None], *, wrong: bool = True
) -> Callable[[Seed], Variant | None]:
    return partial(
        _token_attack, spans=tx.numbers_in, encode=encode, expect=_NUMBER_FLAGS, wrong=wrong
    )


_NEGATION_WORD = re.compile(r"\b(?:not|never|no longer)\b|\bnon-")


def _hidden_negation(markup: Callable[[str], str]) -> Callable[[Seed], Variant | None]:
    """The negation of the first true negated sentence wrapped in ``markup``: the checked text
    is the true sentence, the rendered one says the opposite."""

    def build(seed: Seed) -> Variant | None:
        if seed.structured:
            return None
        true = fully_supported(seed)
        for position, index in enumerate(true):
            sentence = seed.sentences[index]
            word = _NEGATION_WORD.search(sentence.text)
            if word is None:
                continue
            text = (
                sentence.text[: word.start()] + markup(word.group()) + sentence.text[word.end() :]
            )
            clean = seed.only(*true)
            hidden = dataclasses.replace(sentence, text=text)
            sentences = [*clean.sentences[:position], hidden, *clean.sentences[position + 1 :]]
            return Variant(
                clean.with_sentences(sentences).request(),
                Expectation(Expect.MUST_BLOCK),
                baseline=clean,
            )
        return None

    return build


def _own(request: Seed, expect: Expectation) -> Callable[[Seed], Variant | None]:
    """A case with its own evidence, built once: on the first built-in seed."""

    def build(seed: Seed) -> Variant | None:
        if seed.id != BUILTIN_SEEDS[0].id:
            return None
        return Variant(request.request(), expect)

    return build


MODEL_NAME = Seed(
    id="lookalikes.model",
    evidence=(Passage("M1", "The Falcon X2 model ships with 16 GB of memory."),),
    sentences=(Sentence("The Falcon X3 model ships with 16 GB of memory", ("M1",)),),
)
POINTS = Seed(
    id="lookalikes.points",
    evidence=(
        Passage(
            "P1",
            "The operating margin rose 3 percentage points to 14%. Revenue grew 3% to $2.1 "
            "billion.",
        ),
    ),
    sentences=(Sentence("The operating margin rose 3% to 14%", ("P1",)),),
)

ATTACKS: tuple[Attack, ...] = (
    Attack(
        FAMILY,
        "tone_five",
        "a wrong number with 5 written as U+01BC",
        _number(_disguise(TONE_FIVE)),
    ),
    Attack(
        FAMILY,
        "cherokee_digit",
        "a wrong number with a digit as a Cherokee letter",
        _number(_disguise(CHEROKEE)),
    ),
    Attack(
        FAMILY,
        "roman_numeral_digit",
        "a wrong number with a digit as a Roman numeral character",
        _number(_disguise(ROMAN)),
    ),
    Attack(
        FAMILY,
        "latin_o_l_inside",
        "a wrong number with O for 0 or l for 1",
        _number(_disguise(LATIN)),
    ),
    Attack(
        FAMILY,
        "bidi_override",
        "a number displayed right but stored reversed (RLO)",
        _number(_bidi_reversed, wrong=False),
    ),
    Attack(
        FAMILY,
        "model_name_one_char",
        "a model name one character off (X3 for X2)",
        _own(MODEL_NAME, _IDENTIFIER_FLAGS),
    ),
    Attack(
        FAMILY,
        "percent_for_points",
        "3% for 3 percentage points, with an unrelated 3% nearby",
        _own(POINTS, _KIND_FLAGS),
    ),
    *(
        Attack(
            FAMILY,
            f"negation_{name}",
            f"the negation of a true sentence {how}",
            _hidden_negation(markup),
        )
        for name, how, markup in (
            ("struck_html", "struck out by <del>", lambda word: f"<del>{word}</del>"),
            ("struck_markdown", "struck out by ~~", lambda word: f"~~{word}~~"),
            (
                "struck_overlay",
                "struck through by combining overlays",
                lambda word: "".join(f"{char}\u0336" for char in word),
            ),
            ("in_comment", "inside an HTML comment", lambda word: f"<!-- {word} -->"),
            ("hidden", "in a hidden element", lambda word: f"<span hidden>{word}</span>"),
        )
    ),
)
