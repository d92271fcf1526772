"""Judges that wrap other judges: a per-request deadline on every call, and a stand-in for a
judge that could not be opened. Both keep failing closed: what they cannot do raises a
``VerifierFault``, never returns a default."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

from judge.errors import JudgeUnavailable, RequestDeadlineExceeded
from judge.protocols import (
    ConclusionExtractor,
    ContradictionProbe,
    Decomposer,
    Judge,
    RequestScoped,
)
from judge.schemas import Claim
from judge.schemas.judging import EntailmentResult, Premise

T = TypeVar("T")


class DeadlineJudge:
    """Wraps a judge so that every call ends by the request's deadline (event-loop time).

    A call cut short raises :class:`~judge.errors.RequestDeadlineExceeded`: the pipeline turns
    it into that claim's ``verifier_error`` while claims already judged keep their verdicts.
    Build it with :func:`with_deadline`, which offers the optional abilities (decomposition,
    conclusion, contradiction probe) exactly when the wrapped judge has them."""

    def __init__(self, inner: Judge, deadline: float, budget_s: float) -> None:
        self.inner = inner
        self._deadline = deadline
        self._budget_s = budget_s

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    async def entail(
        self, claim: Claim, premise: Premise, question: str | None = None
    ) -> EntailmentResult:
        return await self._within(self.inner.entail(claim, premise, question))

    async def _within(self, call: Awaitable[T]) -> T:
        try:
            async with asyncio.timeout_at(self._deadline):
                return await call
        except TimeoutError:
            raise RequestDeadlineExceeded(
                f"request timed out after {self._budget_s:g} s before the judge answered"
            ) from None


class _DecomposeWithin(DeadlineJudge):
    async def decompose(
        self, sentence: str, context: str, question: str | None = None
    ) -> list[str]:
        assert isinstance(self.inner, Decomposer)
        return await self._within(self.inner.decompose(sentence, context, question))


class _ConcludeWithin(DeadlineJudge):
    async def main_conclusion(self, answer: str, question: str | None = None) -> str:
        assert isinstance(self.inner, ConclusionExtractor)
        return await self._within(self.inner.main_conclusion(answer, question))


class _ProbeWithin(DeadlineJudge):
    async def probe_contradiction(
        self, claim: Claim, premise: Premise, question: str | None = None
    ) -> EntailmentResult:
        assert isinstance(self.inner, ContradictionProbe)
        return await self._within(self.inner.probe_contradiction(claim, premise, question))


class _BindWithin(DeadlineJudge):
    def for_request(self, *, ledger_hash: str | None = None) -> Judge:
        assert isinstance(self.inner, RequestScoped)
        view = self.inner.for_request(ledger_hash=ledger_hash)
        return with_deadline(view, self._deadline, self._budget_s)


_ABILITIES: tuple[tuple[type, type[DeadlineJudge]], ...] = (
    (Decomposer, _DecomposeWithin),
    (ConclusionExtractor, _ConcludeWithin),
    (ContradictionProbe, _ProbeWithin),
    (RequestScoped, _BindWithin),
)
_CLASSES: dict[tuple[type[DeadlineJudge], ...], type[DeadlineJudge]] = {}


def with_deadline(inner: Judge, deadline: float, budget_s: float) -> DeadlineJudge:
    """``inner`` bounded by ``deadline``, offering what ``inner`` offers and nothing more."""
    bases = tuple(wrapper for ability, wrapper in _ABILITIES if isinstance(inner, ability))
    cls = _CLASSES.get(bases)
    if cls is None:
        cls = type("DeadlineJudge", (*bases, DeadlineJudge), {}) if bases else DeadlineJudge
        _CLASSES[bases] = cls
    return cls(inner, deadline, budget_s)


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
