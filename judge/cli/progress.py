"""Progress of a long ``judge verify`` on standard error: the model-facing step under way, or
claims judged of the total, and the seconds elapsed.

Shown when standard error is a terminal (a line redrawn in place) or with ``--progress``
(a plain line per claim, for logs). Never on standard output, so ``--json`` stays parseable.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from typing import TextIO

from judge.pipeline.progress import JUDGING, Observer, observe


def wanted(forced: bool, stream: TextIO | None = None) -> bool:
    return forced or _isatty(stream or sys.stderr)


@contextlib.contextmanager
def claims_progress(enabled: bool, stream: TextIO | None = None) -> Iterator[None]:
    """Report claims judged while the block runs, when ``enabled``."""
    if not enabled:
        yield
        return
    out = stream or sys.stderr
    live = _isatty(out)
    started = time.monotonic()
    shown = False

    def report(name: str, done: int, total: int) -> None:
        nonlocal shown
        what = f"{done}/{total} claims judged" if name == JUDGING else name
        if name == JUDGING and total == 0:
            return
        line = f"judge: {what}, {time.monotonic() - started:.1f} s"
        if live:
            out.write(f"\r\x1b[2K{line}")
        else:
            out.write(f"{line}\n")
        out.flush()
        shown = True

    observer: Observer = report
    try:
        with observe(observer):
            yield
    finally:
        if live and shown:
            out.write("\r\x1b[2K")
            out.flush()


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
