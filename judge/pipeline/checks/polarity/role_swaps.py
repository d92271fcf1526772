"""Parties swapped: "Italy beat Spain" where the evidence says "Spain beat Italy".

The converse check reads a converse word with the parties in place ("Italy lost to Spain"
restates "Spain beat Italy"). Here the words between two names stay the same and the names
trade places. Relations that read the same either way ("met", "and", "with", "played",
"borders") are left alone, and so is a claim whose order the evidence states as well
("Spain beat Italy in 1990; Italy beat Spain in 2000").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from judge.reading import lexicon, read
from judge.reading.values.names import NameRun, word_key
from judge.reading.words import content_words, word_form, words

# More words than this between two names make a clause of their own, not one relation.
MAX_RELATION_WORDS = 5
# Words of relations that hold both ways round: swapping the parties says the same thing.
_SYMMETRIC = frozenset(word_form(word) for word in lexicon.words("symmetric_relations"))
_FIRST_WORD = re.compile(r"\s*([A-Z][\w'’-]*)")


@dataclass(frozen=True)
class PartySwap:
    first: str  # the claim's first name
    second: str  # its second, which the evidence puts first
    relation: str  # the words between them, as the claim writes them


def parties_swapped(claim: str, clause: str, evidence: str) -> PartySwap | None:
    """Two names of ``claim`` that ``clause`` (the evidence clause restating it) writes the
    other way round around the same words, unless ``evidence`` also states the claim's order."""
    claim_runs, clause_runs = list(read(claim).names), list(read(clause).names)
    runs = _parties(claim, claim_runs, {_key(run) for run in clause_runs})
    there = _parties(clause, clause_runs, {_key(run) for run in claim_runs})
    for index, first in enumerate(runs):
        for second in runs[index + 1 :]:
            relation = _between(claim, first, second)
            if not _asymmetric(claim[first.end : second.start], relation):
                continue
            if _key(first) == _key(second):
                continue
            if not _written(there, clause, _key(second), _key(first), relation):
                continue
            if _states(evidence, first, second, relation):
                return None
            return PartySwap(
                " ".join(first.words),
                " ".join(second.words),
                claim[first.end : second.start].strip(),
            )
    return None


def _parties(text: str, runs: list[NameRun], known: set[tuple[str, ...]]) -> list[NameRun]:
    """The names of ``text``, and its first word where the other side names it mid-sentence:
    "Spain" opens "Spain beat Italy" and is a name in "Italy beat Spain"."""
    first = _FIRST_WORD.match(text)
    if first is None or (word_key(first.group(1)),) not in known:
        return runs
    if any(run.start <= first.start(1) < run.end for run in runs):
        return runs
    return [NameRun((first.group(1),), first.start(1), first.end(1), (), ()), *runs]


def _states(evidence: str, first: NameRun, second: NameRun, relation: tuple[str, ...]) -> bool:
    """Whether ``evidence`` writes the two names in the claim's order around ``relation``,
    word form by word form, anywhere."""
    wanted = [*map(_form, first.words), *relation, *map(_form, second.words)]
    forms = [word_form(word) for word, _, _ in words(evidence)]
    size = len(wanted)
    return any(forms[at : at + size] == wanted for at in range(len(forms) - size + 1))


def _form(word: str) -> str:
    return word_form(word_key(word))


def _key(run: NameRun) -> tuple[str, ...]:
    return tuple(word_key(word) for word in run.words)


def _between(text: str, first: NameRun, second: NameRun) -> tuple[str, ...]:
    return tuple(word_form(word) for word, _, _ in words(text[first.end : second.start]))


def _asymmetric(span: str, relation: tuple[str, ...]) -> bool:
    """Whether the words between two names are one relation that does not hold both ways."""
    if not relation or len(relation) > MAX_RELATION_WORDS or any(ch in span for ch in ",;:()"):
        return False
    return not (_SYMMETRIC & set(relation)) and bool(content_words(span))


def _written(
    runs: list[NameRun],
    text: str,
    first: tuple[str, ...],
    second: tuple[str, ...],
    relation: tuple[str, ...],
) -> bool:
    """Whether ``text`` (whose names are ``runs``) writes ``first``, ``relation``, ``second``."""
    for index, one in enumerate(runs):
        if _key(one) != first:
            continue
        for other in runs[index + 1 :]:
            if _key(other) == second and _between(text, one, other) == relation:
                return True
    return False
