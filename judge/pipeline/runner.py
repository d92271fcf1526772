"""Orchestration: ledger -> claims -> alignment -> exact checks -> entailment -> policy.

Cheap exact checks run before any model call. A fault while judging one claim becomes that
claim's ``verifier_error`` verdict (the answer is then blocked); other claims keep their
verdicts, so nothing already verified is lost.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from judge.config import Settings, load_settings
from judge.pipeline import stages
from judge.pipeline.align import Alignment, AlignmentStatus, align_claims
from judge.pipeline.checks import default_checks
from judge.pipeline.checks.injection import InjectionScreen
from judge.pipeline.checks.stuffing import detect_citation_stuffing
from judge.pipeline.claims.sentences import (
    coverage,
    is_factual,
)
from judge.pipeline.entail import thresholds as calibration
from judge.pipeline.entail.select import rank_passages
from judge.pipeline.inputs import parse_request
from judge.pipeline.ledger import freeze_ledger, passages_text
from judge.pipeline.policy import PolicyInput, decide
from judge.protocols import Check, Judge
from judge.schemas import (
    CheckOutcome,
    CheckStatus,
    ClaimVerdict,
    CoverageReport,
    EvidenceLedger,
    Label,
    VerifyRequest,
    VerifyResponse,
)


@dataclass
class _Pending:
    """A claim that passed alignment and the exact checks, waiting for the judge."""

    index: int
    alignment: Alignment
    outcomes: list[CheckOutcome]


async def verify(
    request: VerifyRequest | dict[str, Any],
    settings: Settings | None = None,
    *,
    judge: Judge | None = None,
    use_judge: bool = True,
) -> VerifyResponse:
    """Verify an answer against its evidence. With ``use_judge=False`` no model is consulted and
    claims that pass every exact check are reported ``unverified`` (never ``supported``)."""
    started = time.perf_counter()
    settings = settings or load_settings()
    req = parse_request(request)
    ledger = freeze_ledger(req.evidence, settings)
    thresholds = calibration.active_thresholds(settings)
    request_id = uuid.uuid4().hex

    run = _Run(request_id, ledger, req, settings, started, thresholds.hash)
    limits = _limits_exceeded(req, settings)
    if limits:
        return run.finish(limits=limits)

    async with stages.judge_session(settings, judge, use_judge) as session:
        extraction = await stages.extract_claims(req, session, settings)
        claims = extraction.claims
        if len(claims) > settings.max_claims:
            limit = f"claims: {len(claims)} claims exceed the limit of {settings.max_claims}"
            return run.finish(limits=[limit], calls=session.calls)
        alignments = align_claims(
            claims,
            ledger,
            policy=settings.citation_policy,
            max_citations=settings.max_citations_per_claim,
            search=lambda text, k: rank_passages(text, ledger.passages, k),
            search_top_k=settings.search_top_k,
            is_factual=is_factual,
        )
        stuffing = settings.detect_stuffing and detect_citation_stuffing(
            [a.claim.citations for a in alignments if a.status is not AlignmentStatus.NOT_FACTUAL],
            ledger.ids,
            min_passages=settings.stuffing_min_passages,
        )
        verdicts: list[ClaimVerdict | None] = [None] * len(alignments)
        pending: list[_Pending] = []
        checks = default_checks()
        screen = InjectionScreen(ledger, req.question, req.answer)
        for index, alignment in enumerate(alignments):
            error = extraction.errors.get(alignment.claim.id)
            if error is not None:
                verdicts[index] = ClaimVerdict(
                    claim=alignment.claim, label=Label.VERIFIER_ERROR, reason=error, error=error
                )
                continue
            flagged = screen.verdict(alignment) if settings.detect_injection else None
            if flagged is not None:
                verdicts[index] = flagged
                continue
            verdict, outcomes = _pre_judge(alignment, ledger, checks)
            if verdict is not None:
                verdicts[index] = verdict
            else:
                pending.append(_Pending(index, alignment, outcomes))

        judged = await stages.entail_all(
            [(p.alignment, p.outcomes) for p in pending],
            ledger,
            req.question,
            session,
            settings,
            thresholds,
        )
        for item, verdict in zip(pending, judged, strict=True):
            verdicts[item.index] = verdict
        final = [v for v in verdicts if v is not None]
        if req.first_tier is not None:
            final = stages.compare_first_tier(final, req.first_tier)
        report = (
            coverage(req.answer, claims, extraction.sentences)
            if req.answer is not None
            else CoverageReport()
        )
        return run.finish(
            final, coverage=report, stuffing=stuffing, calls=session.calls, notes=extraction.notes
        )


def verify_sync(
    request: VerifyRequest | dict[str, Any],
    settings: Settings | None = None,
    *,
    judge: Judge | None = None,
    use_judge: bool = True,
) -> VerifyResponse:
    """Blocking wrapper of :func:`verify` for callers without an event loop."""
    return asyncio.run(verify(request, settings, judge=judge, use_judge=use_judge))


def _limits_exceeded(req: VerifyRequest, settings: Settings) -> list[str]:
    if req.answer is not None and len(req.answer) > settings.max_answer_chars:
        return [
            f"answer: {len(req.answer)} characters exceed the limit of {settings.max_answer_chars}"
        ]
    if req.claims is not None and len(req.claims) > settings.max_claims:
        return [f"claims: {len(req.claims)} claims exceed the limit of {settings.max_claims}"]
    return []


def _pre_judge(
    alignment: Alignment, ledger: EvidenceLedger, checks: Sequence[Check]
) -> tuple[ClaimVerdict | None, list[CheckOutcome]]:
    """Decide a claim without a model where alignment or an exact check already does."""
    claim = alignment.claim
    if alignment.status is AlignmentStatus.NOT_FACTUAL:
        return ClaimVerdict(claim=claim, label=Label.NOT_FACTUAL, reason="no checkable content"), []
    if alignment.status is AlignmentStatus.BAD_CITATION:
        reason = "cites passages not in the evidence: " + ", ".join(alignment.unknown_ids)
        return ClaimVerdict(claim=claim, label=Label.BAD_CITATION, reason=reason), []
    if alignment.status is AlignmentStatus.OVER_CAP:
        reason = f"cites {len(alignment.passage_ids)} passages, over the per-claim cap"
        return ClaimVerdict(claim=claim, label=Label.BAD_CITATION, reason=reason), []
    if alignment.status is AlignmentStatus.UNCITED:
        return ClaimVerdict(
            claim=claim, label=Label.UNCITED, reason="factual claim without a citation"
        ), []

    evidence = passages_text(ledger, alignment.passage_ids)
    outcomes: list[CheckOutcome] = []
    for check in checks:
        try:
            outcome = check(claim.text, evidence)
        except Exception as exc:
            error = f"check {check.name} failed: {type(exc).__name__}: {exc}"
            verdict = ClaimVerdict(
                claim=claim, label=Label.VERIFIER_ERROR, reason=error, error=error, checks=outcomes
            )
            return verdict, outcomes
        if outcome is None:
            continue
        outcomes.append(outcome)
        if outcome.status is not CheckStatus.PASSED:
            label = outcome.label or (
                Label.NEEDS_REVIEW
                if outcome.status is CheckStatus.NEEDS_REVIEW
                else Label.UNSUPPORTED
            )
            reason = f"{outcome.detail} (checked against {', '.join(alignment.passage_ids)})"
            return ClaimVerdict(claim=claim, label=label, reason=reason, checks=outcomes), outcomes
    return None, outcomes


@dataclass(frozen=True)
class _Run:
    """What every response of one request is built from, whichever stage it ends at."""

    request_id: str
    ledger: EvidenceLedger
    req: VerifyRequest
    settings: Settings
    started: float
    calibration_hash: str | None

    def finish(
        self,
        verdicts: Sequence[ClaimVerdict] = (),
        *,
        coverage: CoverageReport | None = None,
        stuffing: bool = False,
        limits: Sequence[str] = (),
        calls: int = 0,
        notes: Sequence[str] = (),
    ) -> VerifyResponse:
        report = coverage or CoverageReport()
        decision = decide(
            PolicyInput(
                verdicts=verdicts,
                answer=self.req.answer,
                coverage=report,
                citation_stuffing=stuffing,
                limits_exceeded=limits,
                repair_min_kept_ratio=self.settings.repair_min_kept_ratio,
            )
        )
        return VerifyResponse(
            request_id=self.request_id,
            action=decision.action,
            reasons=[*decision.reasons, *notes],
            ledger_hash=self.ledger.ledger_hash,
            verdicts=list(verdicts),
            coverage=report,
            citation_stuffing=stuffing,
            repaired_answer=decision.repaired_answer,
            repair_edits=decision.repair_edits,
            failing_claims=decision.failing_claims,
            judge_calls=calls,
            seconds=round(time.perf_counter() - self.started, 4),
            calibration_hash=self.calibration_hash,
            limits_exceeded=list(limits),
        )
