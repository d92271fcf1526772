"""How the service fails closed: a per-request deadline on every judge call, a stand-in judge
when the real one could not be opened, and a last guard that no verifier error ever passes."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from judge.config import Settings
from judge.errors import InputError, JudgeUnavailable
from judge.pipeline.claims.sentences import claims_from_structured, extract_sentence_claims
from judge.pipeline.ledger import freeze_ledger
from judge.protocols import EntailmentResult, Judge, Premise
from judge.schemas import Action, Claim, ClaimVerdict, Label, VerifyRequest, VerifyResponse

T = TypeVar("T")


class RequestDeadlineExceeded(JudgeUnavailable):
    """The request's time budget ran out before the judge answered."""


class DeadlineJudge:
    """Wraps a judge so that every call ends by the request's deadline (event-loop time).

    A call cut short raises :class:`RequestDeadlineExceeded`, a ``VerifierFault``: the pipeline
    turns it into that claim's ``verifier_error`` while claims already judged keep their verdicts.
    Optional judge methods (``decompose``, ``main_conclusion``) are offered only when the wrapped
    judge has them, because the pipeline looks them up with ``getattr``.
    """

    decompose: Callable[..., Awaitable[list[str]]]
    main_conclusion: Callable[..., Awaitable[str]]

    def __init__(self, inner: Judge, deadline: float, budget_s: float) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self._deadline = deadline
        self._budget_s = budget_s
        for name in ("decompose", "main_conclusion"):
            method = getattr(inner, name, None)
            if method is not None:
                setattr(self, name, self._bounded(method))

    async def entail(
        self, claim: Claim, premise: Premise, question: str | None = None
    ) -> EntailmentResult:
        return await self._within(self.inner.entail(claim, premise, question))

    def _bounded(self, method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def call(*args: Any, **kwargs: Any) -> Any:
            return await self._within(method(*args, **kwargs))

        return call

    async def _within(self, call: Awaitable[T]) -> T:
        try:
            async with asyncio.timeout_at(self._deadline):
                return await call
        except TimeoutError:
            raise RequestDeadlineExceeded(
                f"request timed out after {self._budget_s:g} s before the judge answered"
            ) from None


class UnavailableJudge:
    """Stands in for a judge that could not be opened: every call fails closed with the reason."""

    model_id = "unavailable"

    def __init__(self, reason: str) -> None:
        self.reason = reason

    async def entail(
        self, claim: Claim, premise: Premise, question: str | None = None
    ) -> EntailmentResult:
        raise JudgeUnavailable(self.reason)

    async def ping(self) -> None:
        raise JudgeUnavailable(self.reason)


async def ping_judge(judge: Judge, timeout_s: float) -> None:
    """Readiness: the judge's ``ping()`` when it has one (sync or async), bounded in time."""
    ping = getattr(judge, "ping", None)
    if ping is None:
        return
    try:
        async with asyncio.timeout(timeout_s):
            result = ping()
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
