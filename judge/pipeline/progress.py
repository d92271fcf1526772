"""Who wants to hear how far the judge has got: an observer set around a call to ``verify``.

A context variable rather than a parameter, so a caller (the command line's progress display)
can observe any run without every layer between it and the judge passing a callback along.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar

# (what the run is doing, claims judged so far, claims to judge); counts are 0 before judging.
Observer = Callable[[str, int, int], None]

JUDGING = "judging claims"

_observer: ContextVar[Observer | None] = ContextVar("verify_progress", default=None)


@contextlib.contextmanager
def observe(observer: Observer | None) -> Iterator[None]:
    token = _observer.set(observer)
    try:
        yield
    finally:
        _observer.reset(token)


def stage(name: str) -> None:
    """A model-facing step began (decomposing claims, extracting the conclusion)."""
    _tell(name, 0, 0)


def claims_judged(done: int, total: int) -> None:
    _tell(JUDGING, done, total)


def _tell(name: str, done: int, total: int) -> None:
    # An observer's fault never touches the verdicts.
    observer = _observer.get()
    if observer is None:
        return
    with contextlib.suppress(Exception):
        observer(name, done, total)
