"""Claim decomposition (FActScore-style atomic facts) and main-conclusion extraction: output
schemas and prompts. :class:`judge.pipeline.entail.llm_judge.HttpJudge` sends them; the pipeline
decides what to do when they fail (a :class:`~judge.errors.JudgeOutputInvalid` is never
swallowed here)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from judge.prompts.rendering import RenderedPrompt, neutralise, render
from judge.schemas import Claim, ClaimOrigin

DECOMPOSE_TEMPLATE = "decompose.j2"
CONCLUSION_TEMPLATE = "conclusion.j2"
MAX_FACTS = 8
FACT_MAX_CHARS = 300
CONCLUSION_MAX_CHARS = 500

Fact = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=FACT_MAX_CHARS)
]


# Atomic, decontextualised facts of one sentence. (No docstrings on output schemas: they would
# be sent to the server inside the JSON schema.)
class Facts(BaseModel):
    model_config = ConfigDict(extra="forbid")

    facts: list[Fact] = Field(min_length=1, max_length=MAX_FACTS)

    @field_validator("facts")
    @classmethod
    def _distinct(cls, value: list[str]) -> list[str]:
        # A repeated fact adds nothing to check; keep the first occurrence.
        return list(dict.fromkeys(value))


# An answer's main conclusion, stated as one claim.
class Conclusion(BaseModel):
    model_config = ConfigDict(extra="forbid")

    conclusion: Annotated[
        str, StringConstraints(strip_whitespace=True, min_length=1, max_length=CONCLUSION_MAX_CHARS)
    ]


def decompose_prompt(
    sentence: str, context: str, question: str | None, *, nonce: str
) -> RenderedPrompt:
    question = question.strip() if question else None
    context = context.strip()
    fences = (("QUESTION",) if question else ()) + (("PRECEDING",) if context else ())
    return render(
        DECOMPOSE_TEMPLATE,
        nonce=nonce,
        fences=(*fences, "SENTENCE"),
        sentence=neutralise(sentence),
        context=neutralise(context),
        question=neutralise(question) if question else None,
    )


def conclusion_prompt(answer: str, question: str | None, *, nonce: str) -> RenderedPrompt:
    question = question.strip() if question else None
    return render(
        CONCLUSION_TEMPLATE,
        nonce=nonce,
        fences=(("QUESTION",) if question else ()) + ("ANSWER",),
        answer=neutralise(answer),
        question=neutralise(question) if question else None,
    )


def facts_to_claims(parent: Claim, facts: Sequence[str]) -> list[Claim]:
    """One DECOMPOSED claim per fact, keeping the sentence's span and citations."""
    return [
        Claim(
            id=f"{parent.id}.{number}",
            text=fact,
            span=parent.span,
            sentence_index=parent.sentence_index,
            citations=parent.citations,
            origin=ClaimOrigin.DECOMPOSED,
            parent_id=parent.id,
        )
        for number, fact in enumerate(facts, start=1)
    ]
