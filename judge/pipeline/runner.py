"""Orchestration, and nothing else: ledger (1) -> claims (2) -> alignment (3) -> exact checks
(4) -> entailment (5) -> policy (6).

Cheap exact checks run before any model call. A fault while judging one claim becomes that
claim's ``verifier_error`` verdict (the answer is then blocked); other claims keep their
verdicts, so nothing already verified is lost.
"""

from __future__ import annotations

import functools
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from judge.config import ProbePolicy, Settings, load_settings
from judge.judges.binding import bind_request
from judge.judges.endpoint import judge_for_run
from judge.judges.wrappers import UnavailableJudge
from judge.pipeline.align import PassageRanker, PassageWidener, align_claims
from judge.pipeline.checks import default_checks
from judge.pipeline.checks.injection import InjectionScreen
from judge.pipeline.checks.runner import pre_judge
from judge.pipeline.checks.stuffing import detect_citation_stuffing
from judge.pipeline.claims.extract import add_conclusion, extract_claims
from judge.pipeline.claims.sentences import coverage, is_factual
from judge.pipeline.context import ClaimContext, RequestContext
from judge.pipeline.entail.claim import fits_one_window
from judge.pipeline.entail.select import PassageCover, rank_passages
from judge.pipeline.entail.stage import Entailed, entail_all, error_verdict, probe_pending
from judge.pipeline.entail.thresholds import Thresholds, active_thresholds
from judge.pipeline.first_tier import compare_first_tier
from judge.pipeline.inputs import parse_request
from judge.pipeline.languages import (
    claim_language,
    language_gate,
    passage_languages,
    text_language,
    unmeasured_warning,
    with_languages,
)
from judge.pipeline.ledger import freeze_ledger
from judge.pipeline.policy import PolicyDecision, PolicyInput, decide
from judge.protocols import Check, Judge
from judge.reading.languages import UNDETERMINED
from judge.schemas import (
    Action,
    Claim,
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
    use_judge: bool = True,
    checks: Sequence[Check] | None = None,
    thresholds: Thresholds | None = None,
) -> VerifyResponse:
    """Verify an answer against its evidence. With ``use_judge=False`` no model is consulted and
    claims that pass every exact check are reported ``unverified`` (never ``supported``).

    ``checks`` replaces the default exact checks (:func:`judge.pipeline.checks.default_checks`);
    ``thresholds`` are those in force (loaded from the settings when not given)."""
    started = time.perf_counter()
    settings = settings or load_settings()
    req = parse_request(request)
    ledger = freeze_ledger(req.evidence, settings)
    thresholds = thresholds or active_thresholds(settings)
    run = RunFrame(
        uuid.uuid4().hex, ledger, req, settings, started, thresholds.hash, thresholds.t_answer
    )
    limits = _limits_exceeded(req, settings)
    if limits:
        return run.finish(limits=limits)

    async with judge_for_run(settings, judge, use_judge=use_judge) as opened:
        # One view of the judge for the whole request: a fresh prompt-fence nonce, kept across
        # its claims so the evidence prefix is byte-identical for the server's prefix cache.
        judge_view = bind_request(opened, ledger.ledger_hash) if opened is not None else None
        extractor = None if isinstance(judge_view, UnavailableJudge) else judge_view
        extraction = await extract_claims(req, extractor, settings)
        claims = extraction.claims
        if len(claims) > settings.max_claims:
            limit = f"claims: {len(claims)} claims exceed the limit of {settings.max_claims}"
            return run.finish(limits=[limit], calls=extraction.calls)
        stuffing = False
        if settings.detect_stuffing:
            stuffing = detect_citation_stuffing(
                [c.citations for c in claims if is_factual(c.text)],
                ledger.ids,
                min_passages=settings.stuffing_min_passages,
            )
        context = RequestContext(ledger, req.question, settings, thresholds)
        stage = claim_stage(context, checks, req.answer)
        report = (
            coverage(req.answer, claims, extraction.sentences)
            if req.answer is not None
            else CoverageReport()
        )

        def blocked(verdicts: Sequence[ClaimVerdict]) -> bool:
            return run.decide(verdicts, report, stuffing).action is Action.BLOCK

        entailed = await stage.run(claims, extraction.errors, judge_view)
        verdicts = await stage.settle(entailed, judge_view, blocked)
        # The conclusion can only fail an answer its claims pass: it is extracted and judged
        # then, and an answer its claims already fail is repaired or regenerated and verified
        # again, conclusion and all.
        if run.decide(verdicts, report, stuffing).action is Action.PASS:
            conclusion = await add_conclusion(extraction, req, extractor, settings)
            if conclusion is not None:
                claimed = list(verdicts)
                entailed = await stage.run([conclusion], extraction.errors, judge_view)
                verdicts += await stage.settle(
                    entailed, judge_view, lambda more: blocked([*claimed, *more])
                )
        if req.first_tier is not None:
            verdicts = compare_first_tier(verdicts, req.first_tier)
        calls = extraction.calls + sum(v.judge.calls for v in verdicts if v.judge is not None)
        return run.finish(
            verdicts, coverage=report, stuffing=stuffing, calls=calls, notes=extraction.notes
        )


@dataclass(frozen=True)
class ClaimStage:
    """Stages 3-5 for a list of claims: alignment, the injection screen and the exact checks
    (``prejudge``), then the judge for the claims those left open (``run``); then the
    contradiction probe for the unsupported ones the setting wants probed (``settle``). One
    stage serves every claim of a request, so the screen reads each passage once."""

    context: RequestContext
    checks: list[Check]
    screen: InjectionScreen
    search: PassageRanker
    widen: PassageWidener
    answer_language: str = UNDETERMINED

    def prejudge(
        self, claims: Sequence[Claim], errors: Mapping[str, str]
    ) -> tuple[list[Entailed | None], list[tuple[int, ClaimContext]]]:
        """Each claim's verdict where alignment, the screen or an exact check decided it, and
        the claims left for the judge with their positions. No model call."""
        ledger, settings = self.context.ledger, self.context.settings
        alignments = align_claims(
            claims,
            ledger,
            policy=settings.citation_policy,
            max_citations=settings.max_citations_per_claim,
            search=self.search,
            search_top_k=settings.search_top_k,
            is_factual=is_factual,
            widen=self.widen,
        )
        results: list[Entailed | None] = [None] * len(alignments)
        pending: list[tuple[int, ClaimContext]] = []
        for index, alignment in enumerate(alignments):
            error = errors.get(alignment.claim.id)
            if error is not None:
                results[index] = Entailed(error_verdict(alignment.claim, [], error))
                continue
            # Text addressed to the judge never reaches it: the claim goes to review.
            flagged = self.screen.verdict(alignment) if settings.detect_injection else None
            if flagged is not None:
                results[index] = Entailed(flagged)
                continue
            verdict, outcomes = pre_judge(alignment, ledger, self.checks)
            if verdict is None:
                language = claim_language(alignment.claim.text, self.answer_language)
                verdict = language_gate(alignment.claim, language, outcomes, settings)
            if verdict is not None:
                results[index] = Entailed(verdict)
            else:
                pending.append((index, self.context.for_claim(alignment, outcomes)))
        return results, pending

    async def run(
        self, claims: Sequence[Claim], errors: Mapping[str, str], judge: Judge | None
    ) -> list[Entailed]:
        results, pending = self.prejudge(claims, errors)
        judged = await entail_all([claim for _, claim in pending], judge)
        for (index, _), entailed in zip(pending, judged, strict=True):
            results[index] = entailed
        return [e for e in results if e is not None]

    async def settle(
        self,
        entailed: Sequence[Entailed],
        judge: Judge | None,
        blocked: Callable[[Sequence[ClaimVerdict]], bool],
    ) -> list[ClaimVerdict]:
        """The verdicts, with the contradiction probe asked where the setting wants it. The
        probe only tells block from repair, so by default it is asked only until ``blocked``
        says the answer is blocked (by another claim or by a contradiction it found); the
        unsupported claims not probed stay unsupported."""
        verdicts = [e.verdict for e in entailed]
        policy = self.context.settings.contradiction_probe
        if judge is None or policy is ProbePolicy.NEVER:
            return verdicts
        if policy is ProbePolicy.ALWAYS:
            return await probe_pending(entailed, judge)
        if blocked(verdicts):
            return verdicts
        return await probe_pending(entailed, judge, until=blocked)


def claim_stage(
    context: RequestContext, checks: Sequence[Check] | None, answer: str | None
) -> ClaimStage:
    """The claim stage of one request: ``checks`` (the defaults when None) over its ledger."""
    ledger, settings = context.ledger, context.settings
    return ClaimStage(
        context,
        list(checks) if checks is not None else default_checks(),
        InjectionScreen(ledger, context.question, answer),
        passage_search(ledger, settings),
        passage_widener(ledger, settings),
        text_language(answer),
    )


def passage_search(ledger: EvidenceLedger, settings: Settings) -> PassageRanker:
    """How an uncited claim finds its passages under the search policy: its ``search_top_k``
    most similar ones. A claim that shares no word with any passage (an abstractive summary
    sentence) gets the whole evidence when it fits one window, for the judge to decide; beyond
    one window it stays uncited.

    With ``search_whole_evidence`` every claim gets the whole evidence when it fits one window,
    in ledger order, so a claim drawing on several passages sees them all and every claim of
    the answer shares one evidence prefix. That is off by default: on the development answers
    it did not beat the most similar two passages and made longer prompts
    (benchmarks/history/accuracy-rounds-2026-11-29-to-12-03.md)."""
    everything = [(pid, 1.0) for pid in ledger.ids]

    @functools.cache  # windowing the whole ledger once, and only if a claim needs it
    def fits() -> bool:
        return fits_one_window(ledger, settings)

    def search(text: str, top_k: int) -> list[tuple[str, float]]:
        if settings.search_whole_evidence and fits():
            return everything
        found = rank_passages(text, ledger.passages, top_k)
        return found or (everything if fits() else [])

    return search


def passage_widener(ledger: EvidenceLedger, settings: Settings) -> PassageWidener:
    """The passages the exact checks read besides those search chose (``search_cover_k``):
    those holding the claim words the chosen ones lack. Only the checks read them: a hard check
    must not fail a detail the evidence holds elsewhere, while the small judge, shown more
    text, supports more of what it should not
    (benchmarks/history/accuracy-rounds-2026-11-29-to-12-03.md)."""
    extra = settings.search_cover_k

    @functools.cache  # built on the first uncited claim: cited answers never need it
    def cover() -> PassageCover:
        return PassageCover(ledger.passages)

    return lambda text, chosen: cover().covering(text, chosen, extra) if extra > 0 else []


def _limits_exceeded(req: VerifyRequest, settings: Settings) -> list[str]:
    if req.answer is not None and len(req.answer) > settings.max_answer_chars:
        return [
            f"answer: {len(req.answer)} characters exceed the limit of {settings.max_answer_chars}"
        ]
    if req.claims is not None and len(req.claims) > settings.max_claims:
        return [f"claims: {len(req.claims)} claims exceed the limit of {settings.max_claims}"]
    return []


@dataclass(frozen=True)
class RunFrame:
    """What every response of one request is built from, whichever stage it ends at."""

    request_id: str
    ledger: EvidenceLedger
    req: VerifyRequest
    settings: Settings
    started: float
    calibration_hash: str | None
    t_answer: float | None

    def decide(
        self,
        verdicts: Sequence[ClaimVerdict],
        coverage: CoverageReport,
        stuffing: bool,
        limits: Sequence[str] = (),
    ) -> PolicyDecision:
        return decide(
            PolicyInput(
                verdicts=verdicts,
                answer=self.req.answer,
                coverage=coverage,
                citation_stuffing=stuffing,
                limits_exceeded=limits,
                repair_min_kept_ratio=self.settings.repair_min_kept_ratio,
                t_answer=self.t_answer,
            )
        )

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
        verdicts = with_languages(verdicts, self.req.answer)
        decision = self.decide(verdicts, report, stuffing, limits)
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
            passage_languages=passage_languages(self.ledger),
            warnings=unmeasured_warning(verdicts, self.settings),
        )
