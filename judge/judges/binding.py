"""Bind a judge to one request: the one place that takes a per-request view."""

from __future__ import annotations

from judge.protocols import Judge, RequestScoped


def bind_request(judge: Judge, ledger_hash: str | None) -> Judge:
    """The judge's view for one request when it offers one (the ledger's fence nonce, the
    ledger hash in its cache keys), the judge itself otherwise.

    One view serves every claim of the request: its nonce stays the same, so the evidence
    prefix of the prompts is byte-identical and the server's prefix cache reuses it."""
    if isinstance(judge, RequestScoped):
        return judge.for_request(ledger_hash=ledger_hash)
    return judge
