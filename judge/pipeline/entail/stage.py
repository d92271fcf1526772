"""Stage 5 as the pipeline runs it: judge every claim that passed the exact checks, concurrently
and bounded, with fail-closed handling of every fault: a fault while judging one claim becomes
that claim's ``verifier_error``; the other claims keep their verdicts."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from judge.errors import VerifierFault, fault_text
from judge.judges.wrappers import UnavailableJudge
from judge.pipeline.context import ClaimContext
from judge.pipeline.entail.claim import judge_claim
from judge.pipeline.progress import claims_judged
from judge.protocols import Judge
from judge.schemas import CheckOutcome, Claim, ClaimVerdict, Label


async def entail_all(claims: Sequence[ClaimContext], judge: Judge | None) -> list[ClaimVerdict]:
    """Judge every claim with ``judge`` (the request's view of it); results keep the input
    order. Without a judge (``use_judge`` off) claims are ``unverified``; with one that could
    not be opened, ``verifier_error``."""
    if judge is None:
        return [_unverified(c) for c in claims]
    if isinstance(judge, UnavailableJudge):
        return [error_verdict(c.alignment.claim, c.outcomes, judge.reason) for c in claims]
    if not claims:
        return []
    semaphore = asyncio.Semaphore(claims[0].settings.concurrency)
    results: list[ClaimVerdict | None] = [None] * len(claims)
    judged = 0
    claims_judged(judged, len(claims))

    async def run(group: list[int]) -> None:
        # One claim after another within a group: each call after the first finds the
        # evidence prefix in the server's cache; a second, concurrent call would compute it
        # again in another slot.
        nonlocal judged
        async with semaphore:
            for position in group:
                results[position] = await judge_one(judge, claims[position])
                judged += 1
                claims_judged(judged, len(claims))

    await asyncio.gather(*(run(group) for group in premise_groups(claims)))
    return [v for v in results if v is not None]


def premise_groups(claims: Sequence[ClaimContext]) -> list[list[int]]:
    """Claim positions grouped by the passages they are judged against, in first-seen order:
    the claims of one group share their evidence prefix."""
    groups: dict[tuple[str, ...], list[int]] = {}
    for position, context in enumerate(claims):
        groups.setdefault(tuple(context.alignment.passage_ids), []).append(position)
    return list(groups.values())


async def judge_one(judge: Judge, context: ClaimContext) -> ClaimVerdict:
    try:
        return await judge_claim(judge, context)
    except VerifierFault as exc:
        return error_verdict(context.alignment.claim, context.outcomes, fault_text(exc))
    except Exception as exc:
        message = f"unexpected {type(exc).__name__}: {exc}"
        return error_verdict(context.alignment.claim, context.outcomes, message)


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
