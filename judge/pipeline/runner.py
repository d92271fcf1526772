"""Orchestration, and nothing else: ledger (1) -> claims (2) -> alignment (3) -> exact checks
(4) -> entailment (5) -> policy (6).

Cheap exact checks run before any model call. A fault while judging one claim becomes that
claim's ``verifier_error`` verdict (the answer is then blocked); other claims keep their
verdicts, so nothing already verified is lost.

No I/O here: the judge is opened by the caller (the command line, the service, the Python API:
:mod:`judge.pipeline.entail.connect`) and passed in. The streaming engine
(:mod:`judge.stream.engine`) runs the same stages sentence by sentence and ends with the same
:func:`conclude`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from judge.config import Settings, load_settings
from judge.inputs.request import exceeded_limits, parse_request
from judge.judges.binding import bind_request
from judge.judges.wrappers import UnavailableJudge
from judge.pipeline.claim_stage import ClaimJudging, claim_stage
from judge.pipeline.claims.extract import Extraction, add_conclusion, extract_claims
from judge.pipeline.context import RequestContext
from judge.pipeline.entail.thresholds import Thresholds, active_thresholds
from judge.pipeline.first_tier import compare_first_tier
from judge.pipeline.languages import (
    passage_languages,
    unmeasured_warning,
    with_languages,
)
from judge.pipeline.ledger import freeze_ledger
from judge.pipeline.policy import PolicyDecision, PolicyInput, decide
from judge.pipeline.screens.answer import AnswerScreens, answer_rules
from judge.protocols import Check, Judge
from judge.reading.languages import UNDETERMINED
from judge.schemas import (
    Action,
    ClaimVerdict,
    CoverageReport,
    EvidenceLedger,
    VerifyRequest,
    VerifyResponse,
)


async def verify(
    request: VerifyRequest | dict[str, Any],
    settings: Settings | None = None,
    *,
    judge: Judge | None = None,
    checks: Sequence[Check] | None = None,
    thresholds: Thresholds | None = None,
) -> VerifyResponse:
    """Verify an answer against its evidence with ``judge``. Without a judge no model is
    consulted and claims that pass every exact check are reported ``unverified`` (never
    ``supported``).

    ``checks`` replaces the default exact checks (:func:`judge.pipeline.checks.default_checks`);
    ``thresholds`` are those in force (loaded from the settings when not given)."""
    run = RunFrame.start(request, settings, thresholds)
    if run.limits:
        return run.finish(limits=run.limits)
    # One view of the judge for the whole request: a fresh prompt-fence nonce, kept across its
    # claims so the evidence prefix is byte-identical for the server's prefix cache.
    judge_view = bind_request(judge, run.ledger.ledger_hash) if judge is not None else None
    extraction = await extract_claims(run.req, extractor_of(judge_view), run.settings)
    claims = extraction.claims
    if len(claims) > run.settings.max_claims:
        limit = f"claims: {len(claims)} claims exceed the limit of {run.settings.max_claims}"
        return run.finish(limits=[limit], calls=extraction.calls)
    stage = claim_stage(run.context, checks, run.req.answer, extraction.language)
    report, screens = answer_rules(extraction, run.ledger.ids, run.settings)
    judging = stage.judging(extraction.errors, judge_view)
    verdicts = await judging(claims, run.blocks(report, screens))
    return await conclude(run, extraction, verdicts, judge_view, judging, report, screens)


async def conclude(
    run: RunFrame,
    extraction: Extraction,
    verdicts: Sequence[ClaimVerdict],
    judge: Judge | None,
    judging: ClaimJudging,
    report: CoverageReport,
    screens: AnswerScreens,
    *,
    limits: Sequence[str] = (),
    complete: bool = True,
) -> VerifyResponse:
    """Stage 6 once the claims are decided, for a buffered answer and a stream alike.

    The main conclusion can only fail an answer its claims pass: it is extracted and judged
    then (for a ``complete`` answer within its limits), and an answer its claims already fail is
    repaired or regenerated and verified again, conclusion and all; ``judging`` judges it as
    the other claims were. Then the first tier's scores are compared, and the policy decides."""
    verdicts = list(verdicts)
    blocked = run.blocks(report, screens)
    if complete and not limits and run.decide(verdicts, report, screens).action is Action.PASS:
        conclusion = await add_conclusion(extraction, run.req, extractor_of(judge), run.settings)
        if conclusion is not None:
            claimed = list(verdicts)
            verdicts += await judging([conclusion], lambda more: blocked([*claimed, *more]))
    if run.req.first_tier is not None:
        verdicts = compare_first_tier(verdicts, run.req.first_tier)
    calls = extraction.calls + sum(v.judge.calls for v in verdicts if v.judge is not None)
    return run.finish(
        verdicts,
        coverage=report,
        screens=screens,
        limits=limits,
        calls=calls,
        notes=extraction.notes,
        answer_language=extraction.language,
    )


def extractor_of(judge: Judge | None) -> Judge | None:
    """The judge to extract claims and the conclusion with: none when it is only a stand-in
    for one that could not be opened (its every call would fail)."""
    return None if judge is None or isinstance(judge, UnavailableJudge) else judge


@dataclass(frozen=True)
class RunFrame:
    """What every response of one request is built from, whichever stage it ends at."""

    request_id: str
    ledger: EvidenceLedger
    req: VerifyRequest
    settings: Settings
    thresholds: Thresholds
    started: float
    limits: tuple[str, ...] = ()  # the request's own, before any stage

    @classmethod
    def start(
        cls,
        request: VerifyRequest | dict[str, Any],
        settings: Settings | None = None,
        thresholds: Thresholds | None = None,
    ) -> RunFrame:
        """Stage 1: the request read, its limits checked and its evidence frozen into a
        ledger."""
        started = time.perf_counter()
        settings = settings or load_settings()
        req = parse_request(request)
        limits = exceeded_limits(
            req, max_answer_chars=settings.max_answer_chars, max_claims=settings.max_claims
        )
        ledger = freeze_ledger(req.evidence, settings)
        thresholds = thresholds or active_thresholds(settings)
        return cls(uuid.uuid4().hex, ledger, req, settings, thresholds, started, limits)

    @property
    def context(self) -> RequestContext:
        return RequestContext(self.ledger, self.req.question, self.settings, self.thresholds)

    def decide(
        self,
        verdicts: Sequence[ClaimVerdict],
        coverage: CoverageReport,
        screens: AnswerScreens,
        limits: Sequence[str] = (),
    ) -> PolicyDecision:
        return decide(
            PolicyInput(
                verdicts=verdicts,
                answer=self.req.answer,
                coverage=coverage,
                screens=screens,
                limits_exceeded=limits,
                repair_min_kept_ratio=self.settings.repair_min_kept_ratio,
                t_answer=self.thresholds.t_answer,
            )
        )

    def blocks(
        self, coverage: CoverageReport, screens: AnswerScreens
    ) -> Callable[[Sequence[ClaimVerdict]], bool]:
        """Whether verdicts block the answer, with its coverage and screens as they stand."""
        return lambda verdicts: self.decide(verdicts, coverage, screens).action is Action.BLOCK

    def finish(
        self,
        verdicts: Sequence[ClaimVerdict] = (),
        *,
        coverage: CoverageReport | None = None,
        screens: AnswerScreens | None = None,
        limits: Sequence[str] = (),
        calls: int = 0,
        notes: Sequence[str] = (),
        answer_language: str = UNDETERMINED,
    ) -> VerifyResponse:
        report = coverage or CoverageReport()
        screens = screens or AnswerScreens()
        # The policy reads labels, not languages: it decides before they are recorded.
        decision = self.decide(verdicts, report, screens, limits)
        verdicts = with_languages(verdicts, answer_language)
        languages = passage_languages(self.ledger)
        warnings = unmeasured_warning(verdicts, self.settings)
        return VerifyResponse(
            request_id=self.request_id,
            action=decision.action,
            reasons=[*decision.reasons, *notes],
            ledger_hash=self.ledger.ledger_hash,
            verdicts=list(verdicts),
            coverage=report,
            citation_stuffing=screens.citation_stuffing,
            repaired_answer=decision.repaired_answer,
            repair_edits=decision.repair_edits,
            failing_claims=decision.failing_claims,
            judge_calls=calls,
            seconds=round(time.perf_counter() - self.started, 4),
            calibration_hash=self.thresholds.hash,
            limits_exceeded=list(limits),
            passage_languages=languages,
            warnings=warnings,
        )
