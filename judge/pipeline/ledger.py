"""Freeze a request's evidence into a ledger, enforcing the configured bounds."""

from __future__ import annotations

from collections.abc import Sequence

from judge.config import Settings
from judge.errors import InputError, LimitExceeded
from judge.schemas import EvidenceLedger, Passage


def freeze_ledger(passages: Sequence[Passage], settings: Settings) -> EvidenceLedger:
    """Build the ledger of one request. Passages are already hash-checked by their model."""
    if not passages:
        raise InputError("at least one passage is required", field="evidence")
    if len(passages) > settings.max_passages:
        raise LimitExceeded(
            f"{len(passages)} passages exceed the limit of {settings.max_passages}",
            field="evidence",
        )
    for index, passage in enumerate(passages):
        if len(passage.text) > settings.max_passage_chars:
            raise LimitExceeded(
                f"{len(passage.text)} characters exceed the limit of {settings.max_passage_chars}",
                field=f"evidence[{index}].text",
            )
    try:
        return EvidenceLedger(passages=tuple(passages))
    except ValueError as exc:
        raise InputError(_first_error(exc), field="evidence") from exc


def _first_error(exc: ValueError) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        first = errors()[0]
        return str(first.get("msg", exc)).removeprefix("Value error, ")
    return str(exc)


def passages_text(ledger: EvidenceLedger, passage_ids: Sequence[str]) -> str:
    """The cited passages' texts joined in citation order; what the exact checks read."""
    texts = [p.text for pid in passage_ids if (p := ledger.get(pid)) is not None]
    return "\n\n".join(texts)
