"""A verification request: the evidence ledger, the answer (text or claims), the question."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from judge.schemas.claim import StructuredClaim
from judge.schemas.ledger import Passage


class FirstTierClaim(BaseModel):
    """A fast classifier's score for one claim, matched by claim index or by exact text."""

    model_config = ConfigDict(extra="forbid")

    index: int | None = Field(default=None, ge=0)
    text: str | None = None
    score: float = Field(ge=0.0, le=1.0, description="P(supported) from the first tier")


class FirstTierSignal(BaseModel):
    model_config = ConfigDict(extra="forbid")

    escalation_reason: str | None = Field(default=None, max_length=500)
    claims: list[FirstTierClaim] = Field(default_factory=list)
    threshold: float = Field(default=0.5, ge=0.0, le=1.0)


class VerifyRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    evidence: list[Passage] = Field(description="The passages the model was given (the ledger).")
    answer: str | None = Field(default=None, description="Answer text with inline citations.")
    claims: list[StructuredClaim] | None = Field(
        default=None, description="Structured claims with chunk ids, instead of answer text."
    )
    question: str | None = None
    first_tier: FirstTierSignal | None = None

    @model_validator(mode="after")
    def _one_answer_form(self) -> VerifyRequest:
        if (self.answer is None) == (self.claims is None):
            raise ValueError("give exactly one of 'answer' or 'claims'")
        if self.answer is not None and not self.answer.strip():
            raise ValueError("'answer' must not be empty")
        if self.claims is not None and not self.claims:
            raise ValueError("'claims' must not be empty")
        return self
