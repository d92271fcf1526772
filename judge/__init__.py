"""Grounding verifier: checks every claim in an answer against the evidence it was given."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from judge.pipeline.runner import verify, verify_sync

__all__ = ["verify", "verify_sync"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # Imported lazily so `judge --help` and the schemas load without the HTTP stack.
    if name in __all__:
        from judge.pipeline import runner as pipeline

        return getattr(pipeline, name)
    raise AttributeError(name)
