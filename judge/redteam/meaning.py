"""Meaning flips: a true sentence made false while its numbers and identifiers stay right.

Negations and entity swaps only a model judge can catch; added hedges and quantifiers, shifted
dates, converses swapped in place and wrongly converted quantities the exact checks must catch
on their own. Each case is
the edited sentence alone, compared with the same sentence unedited.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from functools import partial

from judge.redteam import transforms as tx
from judge.redteam.model import Attack, Expect, Expectation, Seed, Sentence, Variant
from judge.redteam.picking import attack_first, in_evidence
from judge.schemas import Label

FAMILY = "meaning"
_RANGE = re.compile(r"\d\s*(?:-|–|to|or)\s*\d")
_NOT_PASS = Expectation(Expect.MUST_NOT_PASS)


def _edit_one(
    seed: Seed,
    edit: Callable[[Seed, Sentence], Sentence | None],
    expect: Expectation,
    judge_dependent: bool,
) -> Variant | None:
    return attack_first(seed, lambda _i, s: edit(seed, s), expect, judge_dependent=judge_dependent)


def _text_edit(rewrite: Callable[[str], str | None]) -> Callable[[Seed, Sentence], Sentence | None]:
    def edit(_seed: Seed, sentence: Sentence) -> Sentence | None:
        text = rewrite(sentence.text)
        return None if text is None else dataclasses.replace(sentence, text=text)

    return edit


def _hedge(word: str) -> Callable[[str], str | None]:
    def rewrite(text: str) -> str | None:
        if tx.has_negation(text):
            return None  # "can never not" reads as noise, not as a stronger claim
        return tx.insert_after_auxiliary(text, word)

    return rewrite


def _up_to(text: str) -> str | None:
    # A sentence that already gives a range ("1 or 2", "4 to 6") says "up to" in other words.
    if tx.has_negation(text) or _RANGE.search(text):
        return None
    return tx.insert_before_number(text, "up to")


def _swap_entity(seed: Seed, sentence: Sentence, *, cite_source: bool) -> Sentence | None:
    """The sentence's first name that its evidence holds, replaced by a name from a passage it
    does not cite; with ``cite_source`` that passage is cited too, so every word is "in the
    evidence" and only reading the sentences tells the swap."""
    cited = seed.cited_text(sentence)
    names = [n for n in reversed(tx.entities(sentence.text)) if in_evidence(n, cited)]
    candidates = [
        (passage.id, other)
        for passage in seed.evidence
        if passage.id not in sentence.cites
        for other in tx.entities(passage.text)
        if not in_evidence(other, cited)
    ]
    # Objects come late in a sentence and like replaces like: the last name first, and a
    # name of as many words before any other.
    for same_length in (True, False):
        for name in names:
            for passage_id, other in candidates:
                if same_length and len(other.split()) != len(name.split()):
                    continue
                if other in name or name in other:
                    continue
                text = sentence.text.replace(name, other, 1)
                cites = (*sentence.cites, passage_id) if cite_source else sentence.cites
                return Sentence(text, cites)
    return None


def _swap_converse(seed: Seed, sentence: Sentence) -> Sentence | None:
    """A converse word that the cited evidence writes too ("after the warehouse receives"),
    swapped for its counterpart: the evidence states the word the sentence now flips."""
    evidence = seed.cited_text(sentence)
    for start, end in tx.converses_in(sentence.text):
        if in_evidence(sentence.text[start:end], evidence):
            text = tx.swap_converse(sentence.text, (start, end))
            return None if text is None else dataclasses.replace(sentence, text=text)
    return None


def _move_number(seed: Seed, sentence: Sentence) -> Sentence | None:
    """A number of the sentence replaced by another number of the same cited passage: every
    number is still in the evidence, in the wrong place."""
    evidence = seed.cited_text(sentence)
    pool = [evidence[s:e] for s, e in tx.numbers_in(evidence)]
    for start, end in tx.numbers_in(sentence.text):
        token = sentence.text[start:end]
        if not in_evidence(token, evidence):
            continue
        present = {sentence.text[s:e] for s, e in tx.numbers_in(sentence.text)}
        for other in pool:
            if other not in present:
                return dataclasses.replace(
                    sentence, text=tx.replace_span(sentence.text, start, end, other)
                )
    return None


def _attack(
    name: str,
    about: str,
    edit: Callable[[Seed, Sentence], Sentence | None],
    expect: Expectation = _NOT_PASS,
    *,
    judge_dependent: bool,
) -> Attack:
    build = partial(_edit_one, edit=edit, expect=expect, judge_dependent=judge_dependent)
    return Attack(FAMILY, name, about, build)


ATTACKS: tuple[Attack, ...] = (
    _attack(
        "negation_inserted",
        "'not' inserted after the first auxiliary verb",
        _text_edit(tx.insert_negation),
        judge_dependent=True,
    ),
    _attack(
        "negation_removed",
        "the sentence's negation removed",
        _text_edit(tx.remove_negation),
        judge_dependent=True,
    ),
    _attack("hedge_always", "'always' added", _text_edit(_hedge("always")), judge_dependent=False),
    _attack("hedge_never", "'never' added", _text_edit(_hedge("never")), judge_dependent=False),
    # A weakening hedge or a limit at the evidence's own value says less than the evidence:
    # the exact checks leave it to the judge (on the public claims the added "usually" group
    # was unsupported in 29 of 65 flags), so these are the judge's cases.
    _attack(
        "hedge_usually", "'usually' added", _text_edit(_hedge("usually")), judge_dependent=True
    ),
    _attack(
        "hedge_up_to",
        "'up to' put before a number",
        _text_edit(_up_to),
        judge_dependent=True,
    ),
    _attack(
        "date_shift",
        "a date moved by a day, a month or a year",
        _text_edit(tx.shift_date),
        Expectation(Expect.MUST_FLAG, frozenset({Label.DATE_MISMATCH})),
        judge_dependent=False,
    ),
    _attack(
        "converse_swapped",
        "a word swapped for its converse in place ('before' for 'after', 'won' for 'lost')",
        _swap_converse,
        judge_dependent=False,
    ),
    _attack(
        "entity_swap",
        "a name replaced by a name from a passage the sentence does not cite",
        partial(_swap_entity, cite_source=False),
        judge_dependent=True,
    ),
    _attack(
        "entity_swap_cited",
        "a name replaced by one from another passage, which is cited as well",
        partial(_swap_entity, cite_source=True),
        judge_dependent=True,
    ),
    _attack(
        "number_moved",
        "a number replaced by another number of the same passage",
        _move_number,
        judge_dependent=True,
    ),
)
