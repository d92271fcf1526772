"""What the stages after alignment share: one request's evidence, question, settings and
thresholds, and per claim its alignment and the outcomes of the checks it passed."""

from __future__ import annotations

from dataclasses import dataclass

from judge.config import Settings
from judge.pipeline.align import Alignment
from judge.pipeline.entail.thresholds import Thresholds
from judge.schemas import CheckOutcome, EvidenceLedger


@dataclass(frozen=True)
class RequestContext:
    ledger: EvidenceLedger
    question: str | None
    settings: Settings
    thresholds: Thresholds

    def for_claim(self, alignment: Alignment, outcomes: list[CheckOutcome]) -> ClaimContext:
        return ClaimContext(self, alignment, outcomes)


@dataclass(frozen=True)
class ClaimContext:
    """One claim on its way to the judge: it passed alignment and every exact check."""

    request: RequestContext
    alignment: Alignment
    outcomes: list[CheckOutcome]

    @property
    def settings(self) -> Settings:
        return self.request.settings

    @property
    def ledger(self) -> EvidenceLedger:
        return self.request.ledger

    @property
    def question(self) -> str | None:
        return self.request.question

    @property
    def thresholds(self) -> Thresholds:
        return self.request.thresholds
