"""Claims: atomic statements taken from an answer, each tied to its span and citations."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator


class CharSpan(BaseModel):
    """Character offsets into a text, end exclusive."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    start: int = Field(ge=0)
    end: int = Field(ge=0)

    @model_validator(mode="after")
    def _ordered(self) -> CharSpan:
        if self.end < self.start:
            raise ValueError("end must not be before start")
        return self


class ClaimOrigin(StrEnum):
    SENTENCE = "sentence"  # baseline: one claim per sentence
    DECOMPOSED = "decomposed"  # an atomic fact from the LLM decomposition
    STRUCTURED = "structured"  # given by the caller as a structured claim
    CONCLUSION = "conclusion"  # the answer's main conclusion, checked as its own claim


class Claim(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    text: str = Field(min_length=1)
    span: CharSpan | None = None  # where the claim comes from in the answer
    sentence_index: int | None = None
    citations: tuple[str, ...] = ()
    origin: ClaimOrigin = ClaimOrigin.SENTENCE
    parent_id: str | None = None  # the sentence claim an atomic fact was decomposed from


class StructuredClaim(BaseModel):
    """A claim given by the caller with the chunk ids it cites."""

    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1)
    chunk_id: str | None = None
    chunk_ids: list[str] | None = None

    @property
    def cited_ids(self) -> list[str]:
        ids: list[str] = []
        if self.chunk_id is not None:
            ids.append(self.chunk_id)
        for cid in self.chunk_ids or []:
            if cid not in ids:
                ids.append(cid)
        return ids
