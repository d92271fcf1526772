"""Choosing which sentence of a seed an attack edits.

An attack on a sentence the verifier already rejects proves nothing, so attacks prefer the
sentences most likely true: those whose content words all occur in their cited passages. The
order is a property of the seed alone, so a case is the same whatever judge runs it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from judge.reading.words import content_forms
from judge.redteam.model import Expectation, Seed, Sentence, Variant
from judge.redteam.transforms import numbers_in

T = TypeVar("T")


def support_ratio(seed: Seed, sentence: Sentence) -> float:
    """The share of the sentence's content words found in its cited passages (0 uncited), less
    one when a number of the sentence is not in them (that sentence is surely false)."""
    words = content_forms(sentence.text)
    if not words or not sentence.cites:
        return 0.0
    evidence = seed.cited_text(sentence)
    ratio = len(words & content_forms(evidence)) / len(words)
    numbers = [sentence.text[s:e] for s, e in numbers_in(sentence.text)]
    if any(not in_evidence(n, evidence) for n in numbers):
        ratio -= 1.0
    return ratio


def by_support(seed: Seed) -> list[int]:
    """Indices of the cited sentences, most likely true first (ties in answer order)."""
    cited = [i for i, s in enumerate(seed.sentences) if s.cites]
    return sorted(cited, key=lambda i: (-support_ratio(seed, seed.sentences[i]), i))


def fully_supported(seed: Seed) -> list[int]:
    """Indices, in answer order, of cited sentences whose every content word is cited."""
    return [i for i, s in enumerate(seed.sentences) if s.cites and support_ratio(seed, s) == 1.0]


def first_hold(seed: Seed, edit: Callable[[int, Sentence], T | None]) -> tuple[int, T] | None:
    """The first sentence, most likely true first, that ``edit`` has a hold on, and the edit."""
    for index in by_support(seed):
        result = edit(index, seed.sentences[index])
        if result is not None:
            return index, result
    return None


def attack_first(
    seed: Seed,
    edit: Callable[[int, Sentence], Sentence | None],
    expect: Expectation,
    *,
    judge_dependent: bool = False,
) -> Variant | None:
    """The case made of the first sentence ``edit`` has a hold on, alone and edited, with that
    sentence alone and clean as its baseline."""
    hold = first_hold(seed, edit)
    if hold is None:
        return None
    index, sentence = hold
    clean = seed.only(index)
    attacked = clean.replace_sentence(0, sentence)
    return Variant(attacked.request(), expect, baseline=clean, judge_dependent=judge_dependent)


def in_evidence(token: str, evidence: str) -> bool:
    """Whether ``token`` occurs in ``evidence`` as a whole token, not inside a longer one."""
    start = evidence.find(token)
    while start >= 0:
        end = start + len(token)
        if not (_joined(evidence, start - 1, -1) or _joined(evidence, end, 1)):
            return True
        start = evidence.find(token, start + 1)
    return False


def _joined(text: str, at: int, step: int) -> bool:
    """Whether the character at ``at`` continues the token: a letter or digit, or a decimal
    point or thousands separator with a digit beyond it."""
    if not 0 <= at < len(text):
        return False
    if text[at].isalnum():
        return True
    beyond = at + step
    return text[at] in ".," and 0 <= beyond < len(text) and text[beyond].isdigit()
