"""How the service fails closed: a bounded readiness ping, the response when verification as a
whole failed, and a last guard that no verifier error ever passes. The judge wrappers (deadline,
stand-in) live in :mod:`judge.judges.wrappers`."""

from __future__ import annotations

import asyncio
import inspect

from judge.config import Settings
from judge.errors import InputError, JudgeUnavailable
from judge.pipeline.claims.extract import claims_from_structured
from judge.pipeline.claims.sentences import extract_sentence_claims
from judge.pipeline.ledger import freeze_ledger
from judge.protocols import Judge, Pingable
from judge.schemas import Action, Claim, ClaimVerdict, Label, VerifyRequest, VerifyResponse


async def ping_judge(judge: Judge, timeout_s: float) -> None:
    """Readiness: the judge's ``ping()`` when it has one (sync or async), bounded in time."""
    if not isinstance(judge, Pingable):
        return
    try:
        async with asyncio.timeout(timeout_s):
            result = judge.ping()
            if inspect.isawaitable(result):
                await result
    except TimeoutError:
        raise JudgeUnavailable(f"judge did not answer a ping within {timeout_s:g} s") from None


def failure_response(
    request: VerifyRequest, settings: Settings, request_id: str, message: str, seconds: float
) -> VerifyResponse:
    """The answer when verification as a whole failed (past its deadline, or an unexpected
    fault): blocked, and every claim a verifier error carrying ``message``."""
    ledger = freeze_ledger(request.evidence, settings)
    claims: list[Claim]
    try:
        if request.claims is not None:
            claims = claims_from_structured(request.claims)
        else:
            claims = extract_sentence_claims(request.answer or "")
    except InputError:
        claims = []
    verdicts = [
        ClaimVerdict(claim=claim, label=Label.VERIFIER_ERROR, reason=message, error=message)
        for claim in claims
    ]
    return VerifyResponse(
        request_id=request_id,
        action=Action.BLOCK,
        reasons=[f"verifier error: {message}"],
        ledger_hash=ledger.ledger_hash,
        verdicts=verdicts,
        failing_claims=[c.id for c in claims],
        seconds=round(seconds, 4),
    )


def never_pass_on_error(response: VerifyResponse) -> VerifyResponse:
    """Block any response that carries a verifier error, whatever the policy said."""
    if response.action is Action.BLOCK:
        return response
    if not any(v.label is Label.VERIFIER_ERROR for v in response.verdicts):
        return response
    reason = "verifier error: the service blocks every answer it could not fully verify"
    return response.model_copy(
        update={"action": Action.BLOCK, "reasons": [*response.reasons, reason],
                "repaired_answer": None, "repair_edits": []}
    )  # fmt: skip
