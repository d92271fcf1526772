"""Pydantic models for requests, the evidence ledger, claims, verdicts and reports.

Shipped as ``judge.schemas``; the repository keeps them in ``schemas/``.
"""

from judge.schemas.claim import CharSpan, Claim, ClaimOrigin, StructuredClaim
from judge.schemas.ledger import EvidenceLedger, Passage, content_hash
from judge.schemas.request import FirstTierClaim, FirstTierSignal, VerifyRequest
from judge.schemas.verdict import (
    FAILING_LABELS,
    Action,
    CheckOutcome,
    CheckStatus,
    ClaimVerdict,
    CoverageReport,
    EvidenceSpan,
    Finding,
    JudgeTrace,
    Label,
    RepairEdit,
    VerifyResponse,
)

__all__ = [
    "FAILING_LABELS",
    "Action",
    "CharSpan",
    "CheckOutcome",
    "CheckStatus",
    "Claim",
    "ClaimOrigin",
    "ClaimVerdict",
    "CoverageReport",
    "EvidenceLedger",
    "EvidenceSpan",
    "Finding",
    "FirstTierClaim",
    "FirstTierSignal",
    "JudgeTrace",
    "Label",
    "Passage",
    "RepairEdit",
    "StructuredClaim",
    "VerifyRequest",
    "VerifyResponse",
    "content_hash",
]
