"""``assert_grounded`` for tests, and a pytest plugin (entry point ``grounding_judge``) with a
session-wide ``grounding_verifier`` fixture.

::

    from judge.integrations.pytest import assert_grounded

    def test_refund_answer(grounding_verifier):
        assert_grounded(
            answer=my_rag_app("How long do I have to return an item?"),
            evidence=["Unopened items may be returned within 30 days of delivery."],
            verifier=grounding_verifier,
        )

A failure shows the action, the reasons and one row per claim, with the claim text escaped.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from judge.api import ClaimItem, EvidenceItem, Verifier
    from judge.config import Settings
    from judge.schemas import VerifyResponse

__all__ = ["assert_grounded", "grounding_verifier"]


def assert_grounded(
    answer: str | None = None,
    evidence: Iterable[EvidenceItem] | None = None,
    *,
    question: str | None = None,
    claims: Iterable[ClaimItem] | None = None,
    verifier: Verifier | None = None,
    settings: Settings | None = None,
    allow_repair: bool = False,
    **overrides: Any,
) -> VerifyResponse:
    """Verify the answer and fail (``AssertionError``) unless it passes, or, with
    ``allow_repair``, can be repaired. Returns the verification. ``settings`` and ``overrides``
    (settings by name) apply when no ``verifier`` is given."""
    __tracebackhide__ = True
    from judge.api import settings_with, verify_sync
    from judge.integrations.report import failure_report
    from judge.schemas import Action

    if verifier is not None:
        if settings is not None or overrides:
            raise TypeError("give settings to the Verifier, not with it")
        response = verifier.verify_sync(
            answer=answer, evidence=evidence, question=question, claims=claims
        )
    else:
        response = verify_sync(
            answer=answer,
            evidence=evidence,
            question=question,
            claims=claims,
            settings=settings_with(settings, **overrides),
        )
    if response.passed or (allow_repair and response.action is Action.REPAIR):
        return response
    raise AssertionError(failure_report(response))


@pytest.fixture(scope="session")
def grounding_verifier() -> Iterator[Verifier]:
    """One Verifier for the test session, configured like the CLI (``JUDGE_*``, config file)."""
    from judge.api import Verifier

    with Verifier() as verifier:
        yield verifier
