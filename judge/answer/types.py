"""What :func:`judge.answer.loop.answer` is configured with and returns."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field, computed_field

from judge.answer.generator import DEFAULT_MAX_TOKENS
from judge.answer.grammar import Dialect
from judge.answer.grammar_support import Source
from judge.answer.refusals import RefusalKind
from judge.schemas import Action

SAFE_MESSAGE = "No verified answer can be given: the answer could not be confirmed by the evidence."
ESCALATION_MARKER = "[ESCALATE]"
ESCALATION_MESSAGE = f"{ESCALATION_MARKER} No verified answer: this question needs a person."
Progress = Callable[[str], None]
Stage = Literal["draft", "repair", "regeneration", "partial", "final"]


class Outcome(StrEnum):
    PASSED = "passed"  # the first draft verified
    REPAIRED = "repaired"  # the draft, with its failing claims removed, verified and answers
    REGENERATED = "regenerated"  # a regenerated answer verified (possibly after a repair)
    BLOCKED = "blocked"  # nothing verified that answers: the fallback was returned
    REFUSED = "refused"  # the evidence holds no answer: an explicit refusal (or escalation)


class Fallback(StrEnum):
    SAFE_MESSAGE = "safe_message"
    PARTIAL = "partial"
    ESCALATE = "escalate"


class RepairStyle(StrEnum):
    REMOVE = "remove"  # the failing sentences are cut out
    HEDGE = "hedge"  # cut out too, then named in a closing "The evidence does not confirm" line


@dataclass(frozen=True)
class AnswerOptions:
    fallback: Fallback = Fallback.SAFE_MESSAGE
    repair_style: RepairStyle = RepairStyle.REMOVE
    generator_base_url: str | None = None  # None: the judge's endpoint (or the embedded model)
    generator_model: str | None = None
    max_tokens: int = DEFAULT_MAX_TOKENS
    temperature: float = 0.0
    max_sentences: int = 5
    safe_message: str = SAFE_MESSAGE


class AnswerStep(BaseModel):
    """One candidate text and what verification made of it."""

    index: int
    stage: Stage
    text: str | None = None
    action: Action | None = None
    labels: dict[str, int] = Field(default_factory=dict, description="verdict counts by label")
    supported: list[str] = Field(default_factory=list, description="ids of supported claims")
    failing: list[str] = Field(default_factory=list, description="ids of failing claims")
    reasons: list[str] = Field(default_factory=list)
    request_id: str | None = None  # the verification's id (its audit record)
    answers_question: bool | None = None
    missing: list[str] = Field(default_factory=list, description="question words not addressed")
    # For a draft or regeneration: whether it was written under the citation grammar, and
    # whether every sentence of it cites a passage (or it is the refusal sentence alone).
    constrained: bool | None = None
    cites_every_sentence: bool | None = None


class Drafting(BaseModel):
    """How the drafts were written: the citation grammar the generator was held to (none: the
    prompt's citation rule alone), where that was learnt (the setting, the embedded server's
    backend, a probe of the endpoint, a reply that broke the grammar), the note saying why
    drafts were not held to one, and the probe calls it took."""

    grammar: Dialect | None = None
    source: Source = "none"
    note: str | None = None
    probe_calls: int = 0


class AnswerResult(BaseModel):
    answer_id: str
    question: str
    text: str
    outcome: Outcome
    escalated: bool = False
    fallback: Fallback | None = None  # the fallback that shaped ``text``, when not verified
    reasons: list[str] = Field(default_factory=list)
    fault: str | None = None  # a generator or verifier fault that blocked the answer
    refusal: RefusalKind | None = None  # which kind of refusal, when the outcome is refused
    drafting: Drafting = Field(default_factory=Drafting)
    ledger_hash: str
    ledger_ids: list[str]
    steps: list[AnswerStep]
    generator_calls: int = 0
    judge_calls: int = 0
    seconds: float = 0.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def verified(self) -> bool:
        """The text passed verification (and answers the question, when it was repaired)."""
        return self.outcome in (Outcome.PASSED, Outcome.REPAIRED, Outcome.REGENERATED)
