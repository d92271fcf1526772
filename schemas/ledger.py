"""The evidence ledger: the exact passages a model saw, frozen and content-addressed."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

HASH_ALGORITHM = "sha256"


def content_hash(text: str) -> str:
    """Hash of a passage's exact text, prefixed with the algorithm name."""
    return f"{HASH_ALGORITHM}:{hashlib.sha256(text.encode('utf-8')).hexdigest()}"


def canonical_json(value: Any) -> str:
    """Sorted keys, compact separators, UTF-8: the form every hash in the project is taken over."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def canonical_hash(value: Any) -> str:
    digest = hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()
    return f"{HASH_ALGORITHM}:{digest}"


class ParentOffsets(BaseModel):
    """Where a passage sits in the document it was cut from (character offsets, end exclusive)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    start: int = Field(ge=0)
    end: int = Field(ge=0)

    @model_validator(mode="after")
    def _ordered(self) -> ParentOffsets:
        if self.end < self.start:
            raise ValueError("end must not be before start")
        return self


class Passage(BaseModel):
    """One evidence passage. ``hash`` is computed when absent and checked when given."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=200, pattern=r"^[^\s\[\],]+$")
    text: str = Field(min_length=1)
    source: str = ""
    timestamp: datetime | None = None
    trust_tier: str | None = None
    parent_offsets: ParentOffsets | None = None
    hash: str | None = Field(default=None, pattern=r"^sha256:[0-9a-f]{64}$")

    @model_validator(mode="after")
    def _hash_matches(self) -> Passage:
        if not self.text.strip():
            raise ValueError("text must not be blank")
        expected = content_hash(self.text)
        if self.hash is None:
            object.__setattr__(self, "hash", expected)
        elif self.hash != expected:
            raise ValueError(f"hash does not match text of passage {self.id!r}")
        return self


class EvidenceLedger(BaseModel):
    """The frozen evidence of one request. Its hash keys caches and audit records."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    passages: tuple[Passage, ...]

    @model_validator(mode="after")
    def _unique_ids(self) -> EvidenceLedger:
        seen: set[str] = set()
        for passage in self.passages:
            if passage.id in seen:
                raise ValueError(f"duplicate passage id {passage.id!r}")
            seen.add(passage.id)
        return self

    @property
    def ledger_hash(self) -> str:
        return canonical_hash(
            [
                {
                    "id": p.id,
                    "hash": p.hash,
                    "source": p.source,
                    "timestamp": p.timestamp.isoformat() if p.timestamp else None,
                    "trust_tier": p.trust_tier,
                    "parent_offsets": p.parent_offsets.model_dump() if p.parent_offsets else None,
                }
                for p in self.passages
            ]
        )

    def get(self, passage_id: str) -> Passage | None:
        for passage in self.passages:
            if passage.id == passage_id:
                return passage
        return None

    @property
    def ids(self) -> list[str]:
        return [p.id for p in self.passages]
