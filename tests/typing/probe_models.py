"""Checked by mypy with the rest of the suite: every line fails type checking if a model of
``judge.schemas`` (or the pipeline's entry point) resolves to ``Any`` instead of its real type.

Not a test module: pytest never imports it; ``test_mypy_sees_models.py`` runs mypy on it and on a
deliberate misuse."""

from __future__ import annotations

from typing import assert_type

from judge.api import verify_sync
from judge.schemas import (
    Action,
    Claim,
    ClaimVerdict,
    EvidenceLedger,
    Label,
    Passage,
    VerifyRequest,
    VerifyResponse,
)


def probe(response: VerifyResponse, request: VerifyRequest, ledger: EvidenceLedger) -> None:
    assert_type(response.action, Action)
    assert_type(response.verdicts, list[ClaimVerdict])
    assert_type(response.verdicts[0].label, Label)
    assert_type(response.verdicts[0].claim, Claim)
    assert_type(response.verdicts[0].score, float | None)
    assert_type(request.evidence[0], Passage)
    assert_type(ledger.ledger_hash, str)
    assert_type(verify_sync(request), VerifyResponse)
