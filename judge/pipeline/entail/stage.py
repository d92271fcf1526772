"""Stage 5 as the pipeline runs it: judge every claim that passed the exact checks, concurrently
and bounded, then ask the contradiction probe of the unsupported ones the caller wants probed.
Every fault is handled fail-closed: a fault while judging or probing one claim becomes that
claim's ``verifier_error``; the other claims keep their verdicts."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from judge.errors import VerifierFault, fault_text
from judge.judges.wrappers import UnavailableJudge
from judge.pipeline.context import ClaimContext
from judge.pipeline.entail.claim import JudgedClaim, claim_verdict, judge_claim, probe_claim
from judge.pipeline.progress import claims_judged
from judge.protocols import ContradictionProbe, Judge
from judge.schemas import CheckOutcome, Claim, ClaimVerdict, Label


@dataclass(frozen=True)
class Entailed:
    """One claim's verdict and, for an unsupported claim the probe may still find
    contradicted, what the probe needs."""

    verdict: ClaimVerdict
    pending: JudgedClaim | None = None


async def entail_all(claims: Sequence[ClaimContext], judge: Judge | None) -> list[Entailed]:
    """Judge every claim with ``judge`` (the request's view of it); results keep the input
    order. Without a judge (``use_judge`` off) claims are ``unverified``; with one that could
    not be opened, ``verifier_error``."""
    if judge is None:
        return [Entailed(_unverified(c)) for c in claims]
    if isinstance(judge, UnavailableJudge):
        reason = judge.reason
        return [Entailed(error_verdict(c.alignment.claim, c.outcomes, reason)) for c in claims]
    results: list[Entailed | None] = [None] * len(claims)
    judged = 0
    claims_judged(judged, len(claims))

    async def judge_at(position: int) -> None:
        nonlocal judged
        results[position] = await _judge_one(judge, claims[position])
        judged += 1
        claims_judged(judged, len(claims))

    await _in_prefix_groups(claims, judge_at)
    return [r for r in results if r is not None]


async def probe_pending(
    entailed: Sequence[Entailed],
    judge: Judge,
    until: Callable[[Sequence[ClaimVerdict]], bool] | None = None,
) -> list[ClaimVerdict]:
    """The verdicts once the pending claims have been probed; as they are when the judge has no
    contradiction probe. With ``until``, claims are probed one after another in answer order,
    and probing stops as soon as ``until`` holds for the verdicts so far (the claims left stay
    unsupported): the same verdicts for the same judge replies, whatever the timing. Without
    it every pending claim is probed, concurrently as claims are judged."""
    verdicts = [e.verdict for e in entailed]
    pending = [(i, e.pending) for i, e in enumerate(entailed) if e.pending is not None]
    if not pending or not isinstance(judge, ContradictionProbe):
        return verdicts
    if until is not None:
        for index, judged in pending:
            verdicts[index] = await _probe_one(judge, judged)
            if until(verdicts):
                break
        return verdicts

    async def probe_at(position: int) -> None:
        index, judged = pending[position]
        verdicts[index] = await _probe_one(judge, judged)

    await _in_prefix_groups([judged.context for _, judged in pending], probe_at)
    return verdicts


async def _in_prefix_groups(
    claims: Sequence[ClaimContext], work: Callable[[int], Awaitable[None]]
) -> None:
    """``work`` on every claim position, the groups concurrently (bounded) and the claims of a
    group one after another: each call after the first finds the evidence prefix in the
    server's cache; a second, concurrent call would compute it again in another slot."""
    if not claims:
        return
    semaphore = asyncio.Semaphore(claims[0].settings.concurrency)

    async def run(group: list[int]) -> None:
        async with semaphore:
            for position in group:
                await work(position)

    await asyncio.gather(*(run(group) for group in premise_groups(claims)))


def premise_groups(claims: Sequence[ClaimContext]) -> list[list[int]]:
    """Claim positions grouped by the passages they are judged against, in first-seen order:
    the claims of one group share their evidence prefix."""
    groups: dict[tuple[str, ...], list[int]] = {}
    for position, context in enumerate(claims):
        groups.setdefault(tuple(context.alignment.passage_ids), []).append(position)
    return list(groups.values())


async def _judge_one(judge: Judge, context: ClaimContext) -> Entailed:
    try:
        judged = await judge_claim(judge, context)
        pending = judged if judged.judgement.probe_target is not None else None
        return Entailed(claim_verdict(judged), pending)
    except Exception as exc:
        return Entailed(error_verdict(context.alignment.claim, context.outcomes, _message(exc)))


async def _probe_one(probe: ContradictionProbe, judged: JudgedClaim) -> ClaimVerdict:
    context = judged.context
    try:
        return claim_verdict(await probe_claim(probe, judged))
    except Exception as exc:
        return error_verdict(context.alignment.claim, context.outcomes, _message(exc))


def _message(exc: Exception) -> str:
    if isinstance(exc, VerifierFault):
        return fault_text(exc)
    return f"unexpected {type(exc).__name__}: {exc}"


def _unverified(context: ClaimContext) -> ClaimVerdict:
    return ClaimVerdict(
        claim=context.alignment.claim,
        label=Label.UNVERIFIED,
        reason="passed every exact check; no judge consulted",
        checks=context.outcomes,
    )


def error_verdict(claim: Claim, outcomes: list[CheckOutcome], message: str) -> ClaimVerdict:
    return ClaimVerdict(
        claim=claim, label=Label.VERIFIER_ERROR, reason=message, error=message, checks=outcomes
    )
