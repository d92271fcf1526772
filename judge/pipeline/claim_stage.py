"""Stages 3-5 for a list of claims, as the runner and the streaming engine both run them:
alignment, the injection screen and the exact checks (no model call), then the judge for the
claims those left open, then the contradiction probe where the setting wants it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass

from judge.config import ProbePolicy
from judge.pipeline.align import align_claims
from judge.pipeline.checks import default_checks
from judge.pipeline.checks.runner import pre_judge
from judge.pipeline.context import ClaimContext, RequestContext
from judge.pipeline.entail.stage import Entailed, entail_all, error_verdict, probe_pending
from judge.pipeline.languages import claim_language, language_gate
from judge.pipeline.screens.injection import InjectionScreen
from judge.pipeline.search import PassageSearch
from judge.protocols import Check, Judge
from judge.reading.answer import is_factual
from judge.reading.languages import UNDETERMINED
from judge.schemas import Claim, ClaimVerdict

# Whether verdicts, with those already given, block the answer.
Blocks = Callable[[Sequence[ClaimVerdict]], bool]
# Verdicts for more claims of a request, judged as its others were.
ClaimJudging = Callable[[Sequence[Claim], Blocks], Awaitable[list[ClaimVerdict]]]


@dataclass(frozen=True)
class ClaimStage:
    """Stages 3-5 for a list of claims: alignment, the injection screen and the exact checks
    (``prejudge``), then the judge for the claims those left open (``run``); then the
    contradiction probe for the unsupported ones the setting wants probed (``settle``). One
    stage serves every claim of a request, so the screen reads each passage once."""

    context: RequestContext
    checks: list[Check]
    screen: InjectionScreen
    search: PassageSearch
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
            search=self.search.rank,
            search_top_k=settings.search_top_k,
            is_factual=is_factual,
            widen=self.search.widen,
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

    async def decide(
        self,
        claims: Sequence[Claim],
        errors: Mapping[str, str],
        judge: Judge | None,
        blocked: Blocks,
    ) -> list[ClaimVerdict]:
        """The verdicts of ``claims``: :meth:`run`, then :meth:`settle`."""
        entailed = await self.run(claims, errors, judge)
        return await self.settle(entailed, judge, blocked)

    def judging(self, errors: Mapping[str, str], judge: Judge | None) -> ClaimJudging:
        """:meth:`decide` for more claims of the same request (its main conclusion)."""
        return lambda claims, blocked: self.decide(claims, errors, judge, blocked)

    async def settle(
        self,
        entailed: Sequence[Entailed],
        judge: Judge | None,
        blocked: Blocks,
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
    context: RequestContext,
    checks: Sequence[Check] | None,
    answer: str | None,
    answer_language: str = UNDETERMINED,
) -> ClaimStage:
    """The claim stage of one request: ``checks`` (the defaults when None) over its ledger;
    ``answer_language`` is the language a claim too short to tell takes."""
    ledger = context.ledger
    return ClaimStage(
        context,
        list(checks) if checks is not None else default_checks(),
        InjectionScreen(ledger, context.question, answer),
        PassageSearch(ledger, context.settings),
        answer_language,
    )
