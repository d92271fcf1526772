"""The red-team suite's data: seeds (clean cases), expectations and adversarial cases.

A seed is an answer held as sentences with the passage ids each cites, so attacks can edit one
sentence or one citation and render the request again; the clean request and every attacked one
go through the same rendering, so a verdict flip can only come from the attack.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from judge.schemas import Label

_TERMINATORS = ".!?"


@dataclass(frozen=True)
class Passage:
    """A passage as an attack writes it: plain and unvalidated on purpose, since some attacks
    build evidence the request schema must refuse. It becomes a request's passage (and meets
    :class:`judge.schemas.Passage`'s validation) only when the case is sent."""

    id: str
    text: str


@dataclass(frozen=True)
class Sentence:
    """One sentence of an answer (or one structured claim) and the passage ids it cites."""

    text: str
    cites: tuple[str, ...] = ()

    def render(self) -> str:
        """The sentence with its citation marker before the final punctuation mark."""
        if not self.cites:
            return self.text
        body = self.text.rstrip()
        end = ""
        while body and body[-1] in _TERMINATORS:
            end = body[-1] + end
            body = body[:-1]
        return f"{body} [{', '.join(self.cites)}]{end or '.'}"


@dataclass(frozen=True)
class Seed:
    """A clean case: evidence, an answer as sentences, and the question it answers."""

    id: str
    evidence: tuple[Passage, ...]
    sentences: tuple[Sentence, ...]
    question: str | None = None
    structured: bool = False  # rendered as structured claims instead of answer text
    separator: str = " "  # between rendered sentences

    def with_sentences(self, sentences: Sequence[Sentence]) -> Seed:
        return dataclasses.replace(self, sentences=tuple(sentences))

    def only(self, *indices: int) -> Seed:
        return self.with_sentences([self.sentences[i] for i in indices])

    def replace_sentence(self, index: int, sentence: Sentence) -> Seed:
        sentences = list(self.sentences)
        sentences[index] = sentence
        return self.with_sentences(sentences)

    def with_evidence(self, evidence: Sequence[Passage]) -> Seed:
        return dataclasses.replace(self, evidence=tuple(evidence))

    def passage(self, passage_id: str) -> Passage | None:
        return next((p for p in self.evidence if p.id == passage_id), None)

    def cited_text(self, sentence: Sentence) -> str:
        return "\n\n".join(p.text for pid in sentence.cites if (p := self.passage(pid)))

    def answer(self) -> str:
        return self.separator.join(s.render() for s in self.sentences)

    def request(self) -> dict[str, Any]:
        """The verification request this seed stands for."""
        data: dict[str, Any] = {"evidence": [{"id": p.id, "text": p.text} for p in self.evidence]}
        if self.structured:
            data["claims"] = [{"text": s.text, "chunk_ids": list(s.cites)} for s in self.sentences]
        else:
            data["answer"] = self.answer()
        if self.question:
            data["question"] = self.question
        return data


@dataclass(frozen=True)
class RawJson:
    """A request body as raw JSON text, read the way ``judge verify`` reads a file."""

    text: str


@dataclass(frozen=True)
class NestedJson:
    """A request whose one extra field nests ``depth`` objects deep. Built only when run:
    printing or comparing such a value would itself recurse too deep."""

    base: dict[str, Any]
    depth: int

    def build(self) -> dict[str, Any]:
        nested: dict[str, Any] = {}
        for _ in range(self.depth):
            nested = {"x": nested}
        return {**self.base, "metadata": nested}


Request = dict[str, Any] | RawJson | NestedJson


class Expect(StrEnum):
    MUST_BLOCK = "must_block"  # blocked, or rejected as an input error
    MUST_NOT_PASS = "must_not_pass"  # anything but pass, where the clean case passes
    MUST_FLAG = "must_flag_claim"  # not passed, and a claim carries one of the labels
    NO_FLIP = "no_flip"  # nothing the clean case rejects becomes supported, nor passes
    MATCH_CLEAN = "match_clean"  # a meaning-preserving rewrite: the clean case's verdicts


@dataclass(frozen=True)
class Expectation:
    kind: Expect
    labels: frozenset[Label] = frozenset()
    max_seconds: float | None = None  # also the point past which an isolated case is killed
    max_judge_calls: int | None = None
    conclusion: bool = False  # the pipeline must have checked the answer's main conclusion

    def describe(self) -> str:
        text = self.kind.value
        if self.labels:
            text += ": " + "|".join(sorted(label.value for label in self.labels))
        if self.max_seconds is not None:
            text += f", <= {self.max_seconds:g} s"
        if self.max_judge_calls is not None:
            text += f", <= {self.max_judge_calls} judge calls"
        if self.conclusion:
            text += ", conclusion checked"
        return text


@dataclass(frozen=True)
class Variant:
    """What an attack makes of one seed: the request, what must happen, and its clean twin."""

    request: Request
    expect: Expectation
    baseline: Seed | None = None  # the clean case the verdicts are compared with
    judge_dependent: bool = False  # only a model judge can catch it; no exact check does
    settings: Mapping[str, Any] = field(default_factory=dict)
    note: str = ""
    judge_fault: str | None = None  # a fake-judge score fault (judge.testing.rule_judge)


@dataclass(frozen=True)
class Case:
    """One adversarial case. ``id`` is ``family/transform/seed`` and stable across runs."""

    family: str
    transform: str
    seed_id: str
    request: Request
    expect: Expectation
    baseline: dict[str, Any] | None = None
    judge_dependent: bool = False
    settings: Mapping[str, Any] = field(default_factory=dict)
    note: str = ""
    judge_fault: str | None = None

    @property
    def id(self) -> str:
        return f"{self.family}/{self.transform}/{self.seed_id}"


def request_key(request: Mapping[str, Any]) -> str:
    """A stable key for a request, to run each clean case once however many cases share it."""
    return json.dumps(request, sort_keys=True, ensure_ascii=False)


@dataclass(frozen=True)
class Attack:
    """A named transformation of seeds into cases of one family; ``build`` returns ``None``
    for a seed it has no hold on."""

    family: str
    name: str
    about: str
    build: Callable[[Seed], Variant | None]
