"""Progress of a long ``judge verify`` on standard error: the model-facing step under way, or
claims judged of the total, and the seconds elapsed.

Shown when standard error is a terminal (a line redrawn in place) or with ``--progress``
(a plain line per claim, for logs). Never on standard output, so ``--json`` stays parseable.
"""

from __future__ import annotations

import contextlib
import sys
import threading
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
    display = _Display(stream or sys.stderr)
    observer: Observer = display.report
    try:
        with observe(observer):
            yield
    finally:
        display.close()


class _Display:
    """Plain lines for logs; on a terminal one line redrawn in place, and every second while a
    judge call is slow, so the elapsed time never stands still."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.live = _isatty(out)
        self.started = time.monotonic()
        self.what: str | None = None
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.ticker: threading.Thread | None = None
        if self.live:
            self.ticker = threading.Thread(target=self._tick, daemon=True)
            self.ticker.start()

    def report(self, name: str, done: int, total: int) -> None:
        if name == JUDGING and total == 0:
            return
        with self.lock:
            self.what = f"{done}/{total} claims judged" if name == JUDGING else name
            self._draw(newline=not self.live)

    def close(self) -> None:
        self.stop.set()
        if self.ticker is not None:
            self.ticker.join()
        with self.lock:
            if self.live and self.what is not None:
                self.out.write("\r\x1b[2K")
                self.out.flush()

    def _tick(self) -> None:
        while not self.stop.wait(1.0):
            with self.lock:
                if self.what is not None:
                    self._draw(newline=False)

    def _draw(self, newline: bool) -> None:
        line = f"judge: {self.what}, {time.monotonic() - self.started:.1f} s"
        self.out.write(f"{line}\n" if newline else f"\r\x1b[2K{line}")
        self.out.flush()


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
