"""Claim splitting: a false conclusion the answer never states as a checkable sentence.

Either every sentence is true and a bare "Yes." draws the wrong conclusion from them (only the
conclusion check, a judge call, can catch it), or the false statement sits where sentence
extraction does not look for claims: a markdown heading or a bold line above true sentences.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import partial

from judge.redteam import transforms as tx
from judge.redteam.model import Attack, Expect, Expectation, Seed, Sentence, Variant
from judge.redteam.picking import fully_supported
from judge.redteam.seeds import SPLIT_ATTACKS

FAMILY = "splitting"


def bare_reply(seed: Seed) -> Variant | None:
    """True sentences, then a bare reply that answers the question wrongly."""
    attack = SPLIT_ATTACKS.get(seed.id)
    if attack is None:
        return None
    clean = dataclasses.replace(seed, question=attack.question, sentences=attack.sentences)
    attacked = clean.with_sentences([*attack.sentences, Sentence(attack.reply)])
    return Variant(
        attacked.request(),
        Expectation(Expect.MUST_NOT_PASS, conclusion=True),
        baseline=clean,
        judge_dependent=True,
    )


def _false_statement(text: str) -> str | None:
    flipped = tx.remove_negation(text) if tx.has_negation(text) else tx.insert_negation(text)
    return None if flipped is None else flipped.rstrip().rstrip(".!?")


def hidden_claim(seed: Seed, markup: Callable[[str], str]) -> Variant | None:
    """A true sentence negated and set as a heading (no digits: a heading with a number is
    checked) above the seed's true sentences."""
    if seed.structured:
        return None
    true = fully_supported(seed)
    for index in true:
        text = seed.sentences[index].text
        if any(ch.isdigit() for ch in text):
            continue
        statement = _false_statement(text)
        if statement is None:
            continue
        clean = dataclasses.replace(seed.only(*true[:3]), separator="\n\n")
        attacked = clean.with_sentences([Sentence(markup(statement)), *clean.sentences])
        return Variant(attacked.request(), Expectation(Expect.MUST_NOT_PASS), baseline=clean)
    return None


ATTACKS: tuple[Attack, ...] = (
    Attack(
        FAMILY,
        "bare_reply",
        "true sentences, then a bare 'Yes.' that answers the question wrongly",
        bare_reply,
    ),
    Attack(
        FAMILY,
        "heading_claim",
        "a false statement as a markdown heading above true sentences",
        partial(hidden_claim, markup=lambda text: f"## {text}"),
    ),
    Attack(
        FAMILY,
        "bold_claim",
        "a false statement as a bold line above true sentences",
        partial(hidden_claim, markup=lambda text: f"**{text}**"),
    ),
)
