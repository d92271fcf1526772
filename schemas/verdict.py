"""Verdicts per claim and the answer-level response."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from judge.schemas.claim import CharSpan, Claim


class Label(StrEnum):
    SUPPORTED = "supported"
    UNSUPPORTED = "unsupported"
    CONTRADICTED = "contradicted"
    UNCITED = "uncited"  # a factual claim with no citation (strict policy)
    BAD_CITATION = "bad_citation"  # cites an id that is not in the ledger
    NUMBER_MISMATCH = "number_mismatch"
    DATE_MISMATCH = "date_mismatch"
    IDENTIFIER_MISMATCH = "identifier_mismatch"
    QUOTE_MISMATCH = "quote_mismatch"
    NAME_MISMATCH = "name_mismatch"  # the evidence names another where the claim's name stands
    HEDGE_ADDED = "hedge_added"  # a hedge or quantifier the evidence does not carry
    NEEDS_REVIEW = "needs_review"  # arithmetic or conversions a person must check
    UNVERIFIED = "unverified"  # passed the exact checks, no judge consulted
    NOT_FACTUAL = "not_factual"  # no checkable content (greeting, connective)
    VERIFIER_ERROR = "verifier_error"


# Labels that stop an answer from passing.
FAILING_LABELS = frozenset(
    {
        Label.UNSUPPORTED,
        Label.CONTRADICTED,
        Label.UNCITED,
        Label.BAD_CITATION,
        Label.NUMBER_MISMATCH,
        Label.DATE_MISMATCH,
        Label.IDENTIFIER_MISMATCH,
        Label.QUOTE_MISMATCH,
        Label.NAME_MISMATCH,
        Label.HEDGE_ADDED,
        Label.NEEDS_REVIEW,
        Label.UNVERIFIED,
        Label.VERIFIER_ERROR,
    }
)


class Action(StrEnum):
    PASS = "pass"
    REPAIR = "repair"
    REGENERATE = "regenerate"
    BLOCK = "block"


class CheckStatus(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    NEEDS_REVIEW = "needs_review"
    # The check reads words, and has no word lists for the claim's or the evidence's language.
    SKIPPED = "skipped"


class Finding(StrEnum):
    """What kind of failure an exact check found."""

    # The evidence states something else for the same slot: another value ("30 days" for the
    # claim's "60 days"), a negation, an opposite, another name in the same place.
    CONFLICT = "conflict"
    # The evidence does not state it: no value, name or phrase of the claim's there.
    ABSENT = "absent"
    # The claim computes or converts it from what the evidence states ("3 weeks" for 21
    # days, a total, a year "a year later" than one the evidence gives): a person checks it.
    DERIVED = "derived"


class EvidenceSpan(BaseModel):
    """A span of a passage a verdict relies on (character offsets into the passage text)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    passage_id: str
    start: int = Field(ge=0)
    end: int = Field(ge=0)
    text: str


class CheckOutcome(BaseModel):
    """The result of one deterministic check on one claim."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    check: str
    status: CheckStatus
    label: Label | None = None  # the verdict label when the check failed
    detail: str = ""
    missing: tuple[str, ...] = ()  # tokens of the claim absent from the evidence
    # The evidence sentence a failure was read against, when the check compares with one.
    evidence_sentence: str = ""
    # What kind of failure it was, where the check tells (a failed value check always does).
    finding: Finding | None = None
    # The claim's value a finding is about (offsets into the claim text) and the evidence span
    # it was read against (a passage id and offsets into that passage), where the check reads
    # values: a conflict names the evidence's own statement of the value.
    claim_span: CharSpan | None = None
    evidence_span: EvidenceSpan | None = None
    # Values of the claim the evidence does not state but gives by exact arithmetic, each with
    # its computation ("2.4 percentage points = 18.5% − 16.1%").
    derivations: tuple[str, ...] = ()


class JudgeTrace(BaseModel):
    """What produced a model verdict, for audit and cache keys."""

    model_config = ConfigDict(extra="forbid")

    model: str
    template: str
    template_hash: str
    calibration_hash: str | None = None
    cached: bool = False
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    window: int | None = None  # index of the evidence window that decided
    raw_label: str | None = None  # the judge's own label, before thresholds
    latency_s: float = 0.0


class ClaimVerdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    claim: Claim
    label: Label
    score: float | None = Field(default=None, description="P(supported), when the judge gives one")
    contradiction_score: float | None = Field(default=None, description="P(contradicted)")
    reason: str = ""
    evidence: list[EvidenceSpan] = Field(default_factory=list)
    checks: list[CheckOutcome] = Field(default_factory=list)
    finding: Finding | None = Field(
        default=None, description="conflict, absent or derived, where an exact check decided"
    )
    judge: JudgeTrace | None = None
    error: str | None = None  # class and message of a verifier error
    first_tier_score: float | None = None
    agrees_with_first_tier: bool | None = None
    language: str | None = Field(
        default=None, description="the claim's language (ISO 639-1; 'und' when not told)"
    )


class CoverageReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    uncovered_words: list[str] = Field(default_factory=list)
    uncovered_spans: list[CharSpan] = Field(default_factory=list)
    sentences_without_claims: list[CharSpan] = Field(default_factory=list)

    @property
    def complete(self) -> bool:
        return not (self.uncovered_words or self.sentences_without_claims)


class RepairEdit(BaseModel):
    """One edit of a repair: the span of the answer removed or hedged."""

    model_config = ConfigDict(extra="forbid")

    span: CharSpan
    claim_ids: list[str]
    replacement: str = ""


class VerifyResponse(BaseModel):
    model_config = ConfigDict(extra="forbid")

    request_id: str
    action: Action
    reasons: list[str] = Field(default_factory=list)
    ledger_hash: str
    verdicts: list[ClaimVerdict]
    coverage: CoverageReport = Field(default_factory=CoverageReport)
    citation_stuffing: bool = False
    repaired_answer: str | None = None
    repair_edits: list[RepairEdit] = Field(default_factory=list)
    failing_claims: list[str] = Field(default_factory=list, description="ids to name on regenerate")
    judge_calls: int = 0
    seconds: float = 0.0
    calibration_hash: str | None = None
    limits_exceeded: list[str] = Field(default_factory=list)
    passage_languages: dict[str, str] = Field(
        default_factory=dict, description="each passage's language (ISO 639-1; 'und' when not told)"
    )
    warnings: list[str] = Field(
        default_factory=list,
        description="what the result rests on that was not measured (claims judged in a "
        "language the judge was not measured on)",
    )

    # Properties, not fields: a response read back from JSON (audit log, HTTP) has the same shape.
    @property
    def passed(self) -> bool:
        """True only when the answer may be shown as it is."""
        return self.action is Action.PASS

    @property
    def failing(self) -> list[ClaimVerdict]:
        """The verdicts of the claims that stop the answer from passing."""
        return [v for v in self.verdicts if v.label in FAILING_LABELS]
