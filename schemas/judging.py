"""What stage 5 passes between its parts and the judge: the premise a claim is judged against
(one window over its cited passages, mapped back to passage offsets) and the judge's validated
verdict on it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from judge.schemas import JudgeTrace

JudgeLabel = Literal["supported", "unsupported", "contradicted"]


@dataclass(frozen=True)
class PremisePiece:
    """Where a stretch of the premise text comes from: passage id and offsets in that passage."""

    passage_id: str
    premise_start: int
    premise_end: int
    passage_start: int


@dataclass(frozen=True)
class Premise:
    """The evidence text a claim is judged against: one window over its cited passages."""

    text: str
    pieces: tuple[PremisePiece, ...]
    window_index: int = 0
    window_count: int = 1

    @property
    def passage_ids(self) -> list[str]:
        ids: list[str] = []
        for piece in self.pieces:
            if piece.passage_id not in ids:
                ids.append(piece.passage_id)
        return ids


@dataclass
class EntailmentResult:
    """A validated judge verdict for one claim against one premise."""

    label: JudgeLabel
    reason: str
    p_supported: float | None
    p_contradicted: float | None
    evidence_quote: str | None
    evidence_ids: list[str]
    trace: JudgeTrace
    extra: dict[str, float] = field(default_factory=dict)
