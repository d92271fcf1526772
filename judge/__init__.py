"""Grounding verifier: checks every claim in an answer against the evidence it was given.

::

    import judge

    result = judge.verify_sync(answer="... [S1]", evidence=["the passage the model saw"])
    if not result.passed:
        print(result.action, [v.claim.text for v in result.failing])
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from judge.api import Verifier, build_request, verify, verify_sync
    from judge.config import (
        CitationPolicy,
        ConclusionPolicy,
        EvidenceMode,
        Extractor,
        ProbePolicy,
        Settings,
        load_settings,
    )
    from judge.errors import (
        AuditError,
        CacheFault,
        CalibrationInfeasible,
        ConfigError,
        DuplicateRecord,
        GeneratorFault,
        InputError,
        JudgeError,
        JudgeOutputInvalid,
        JudgeUnavailable,
        LimitExceeded,
        LocalServerError,
        RequestDeadlineExceeded,
        VerifierFault,
    )
    from judge.protocols import (
        Check,
        ConclusionExtractor,
        ContradictionProbe,
        Decomposer,
        Judge,
        Pingable,
        RequestScoped,
    )
    from judge.schemas import (
        Action,
        CharSpan,
        CheckOutcome,
        CheckStatus,
        Claim,
        ClaimVerdict,
        CoverageReport,
        EvidenceLedger,
        EvidenceSpan,
        FirstTierClaim,
        FirstTierSignal,
        JudgeTrace,
        Label,
        Passage,
        RepairEdit,
        StructuredClaim,
        VerifyRequest,
        VerifyResponse,
    )
    from judge.schemas.judging import EntailmentResult, Premise, PremisePiece
    from judge.stream import Release, StreamedSentence, StreamEnd, StreamLimits, StreamResult

__version__ = "0.1.0"

# Where each public name lives. Imported on first use, so that `judge --help` and the schemas
# load without the HTTP stack (openai, instructor).
_EXPORTS = {
    "judge.api": ("Verifier", "build_request", "verify", "verify_sync"),
    "judge.config": (
        "CitationPolicy",
        "ConclusionPolicy",
        "EvidenceMode",
        "Extractor",
        "ProbePolicy",
        "Settings",
        "load_settings",
    ),
    "judge.schemas": (
        "Action",
        "CharSpan",
        "CheckOutcome",
        "CheckStatus",
        "Claim",
        "ClaimVerdict",
        "CoverageReport",
        "EvidenceLedger",
        "EvidenceSpan",
        "FirstTierClaim",
        "FirstTierSignal",
        "JudgeTrace",
        "Label",
        "Passage",
        "RepairEdit",
        "StructuredClaim",
        "VerifyRequest",
        "VerifyResponse",
    ),
    "judge.protocols": (
        "Check",
        "ConclusionExtractor",
        "ContradictionProbe",
        "Decomposer",
        "Judge",
        "Pingable",
        "RequestScoped",
    ),
    "judge.schemas.judging": ("EntailmentResult", "Premise", "PremisePiece"),
    "judge.stream": ("Release", "StreamEnd", "StreamLimits", "StreamResult", "StreamedSentence"),
    "judge.errors": (
        "AuditError",
        "CacheFault",
        "CalibrationInfeasible",
        "ConfigError",
        "DuplicateRecord",
        "GeneratorFault",
        "InputError",
        "JudgeError",
        "JudgeOutputInvalid",
        "JudgeUnavailable",
        "LimitExceeded",
        "LocalServerError",
        "RequestDeadlineExceeded",
        "VerifierFault",
    ),
}
_MODULE_OF = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = [
    "Action",
    "AuditError",
    "CacheFault",
    "CalibrationInfeasible",
    "CharSpan",
    "Check",
    "CheckOutcome",
    "CheckStatus",
    "CitationPolicy",
    "Claim",
    "ClaimVerdict",
    "ConclusionExtractor",
    "ConclusionPolicy",
    "ConfigError",
    "ContradictionProbe",
    "CoverageReport",
    "Decomposer",
    "DuplicateRecord",
    "EntailmentResult",
    "EvidenceLedger",
    "EvidenceMode",
    "EvidenceSpan",
    "Extractor",
    "FirstTierClaim",
    "FirstTierSignal",
    "GeneratorFault",
    "InputError",
    "Judge",
    "JudgeError",
    "JudgeOutputInvalid",
    "JudgeTrace",
    "JudgeUnavailable",
    "Label",
    "LimitExceeded",
    "LocalServerError",
    "Passage",
    "Pingable",
    "Premise",
    "PremisePiece",
    "ProbePolicy",
    "Release",
    "RepairEdit",
    "RequestDeadlineExceeded",
    "RequestScoped",
    "Settings",
    "StreamEnd",
    "StreamLimits",
    "StreamResult",
    "StreamedSentence",
    "StructuredClaim",
    "Verifier",
    "VerifierFault",
    "VerifyRequest",
    "VerifyResponse",
    "__version__",
    "build_request",
    "load_settings",
    "verify",
    "verify_sync",
]


def __getattr__(name: str) -> Any:
    module = _MODULE_OF.get(name)
    if module is None:
        raise AttributeError(f"module 'judge' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
