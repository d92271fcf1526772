"""When the embedded llama.cpp server may stop itself: nobody has used it for a while.

The server counts as in use while any process holds it open (``holders``), while its
``/metrics`` show a request being processed or waiting, and whenever its token counters have
moved since the last look. Metrics that cannot be read count as use: the watch never stops a
server it cannot see. Once it has been idle for the timeout, ``retire`` withdraws the server's
record under the server lock and looks once more for a holder, so a process that took hold
meanwhile either keeps it (the record is put back) or finds no record and starts a new one:
none is left talking to a server that is going away.
"""

from __future__ import annotations

import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from judge.errors import LocalServerError

from .files import file_lock, read_json, write_json_atomic
from .holders import live_holders

# Counters that move with every request the server decodes.
_COUNTERS = (
    "llamacpp:prompt_tokens_total",
    "llamacpp:tokens_predicted_total",
    "llamacpp:n_decode_total",
)
_BUSY = ("llamacpp:requests_processing", "llamacpp:requests_deferred")
_METRICS_TIMEOUT_S = 5.0
_LOCK_TIMEOUT_S = 0.5  # another process holds the lock: it is starting or stopping a server

Metrics = dict[str, float]


def read_metrics(url: str) -> Metrics | None:
    """The server's Prometheus metrics as numbers, or None when they cannot be read."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback, no proxy
    try:
        with opener.open(url, timeout=_METRICS_TIMEOUT_S) as response:
            text = response.read().decode("utf-8", errors="replace")
    except (OSError, ValueError):
        return None
    values: Metrics = {}
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name.startswith("llamacpp:"):
            try:
                values[name] = float(value)
            except ValueError:
                continue
    return values if all(name in values for name in _COUNTERS) else None


class IdleWatch:
    """Tells when the server has gone ``timeout_s`` without use (never when it is 0)."""

    def __init__(
        self,
        timeout_s: float,
        metrics: Callable[[], Metrics | None],
        held: Callable[[], int],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.timeout_s = timeout_s
        self.metrics = metrics
        self.held = held
        self.clock = clock
        # Look often enough to stop within a tenth of the timeout of it, at most every 30 s.
        self.every_s = min(30.0, max(0.5, timeout_s / 10))
        self.last_used = clock()
        self.next_look = self.last_used
        self.seen: tuple[float, ...] | None = None

    def idle(self) -> bool:
        if self.timeout_s <= 0:
            return False
        now = self.clock()
        if now < self.next_look:
            return False
        self.next_look = now + self.every_s
        if self._in_use():
            self.last_used = now
            return False
        return now - self.last_used >= self.timeout_s

    def _in_use(self) -> bool:
        if self.held() > 0:
            return True
        values = self.metrics()
        if values is None:
            return True
        counters = tuple(values[name] for name in _COUNTERS)
        moved = self.seen is not None and counters != self.seen
        self.seen = counters
        return moved or any(values.get(name, 0.0) > 0 for name in _BUSY)


def retire(state_file: Path, pid: int) -> bool:
    """Withdraw this server's record (``state_file``) if no process holds it; True when the
    server should now exit. Under the server lock, so no start or stop runs meanwhile."""
    server_dir = state_file.parent
    try:
        with file_lock(server_dir / ".lock", _LOCK_TIMEOUT_S, "the local server lock"):
            record = read_json(state_file)
            if not isinstance(record, dict) or record.get("pid") != pid:
                return True  # no longer this server's record: the orphan watch's case
            state_file.unlink(missing_ok=True)
            if live_holders(server_dir) == 0:
                return True
            write_json_atomic(state_file, record)  # taken hold of meanwhile: serve on
            return False
    except LocalServerError:
        return False  # a start or stop holds the lock: look again later
    except OSError:
        return False


def describe(timeout_s: float) -> str:
    """``timeout_s`` as the status line says it."""
    if timeout_s <= 0:
        return "never by itself (local_idle_timeout_s = 0): stop it with `judge local down`"
    return f"after {_duration(timeout_s)} without a request (local_idle_timeout_s)"


def _duration(seconds: float) -> str:
    if seconds >= 60 and seconds % 60 == 0:
        minutes = int(seconds // 60)
        return f"{minutes} minute" + ("s" if minutes != 1 else "")
    return f"{seconds:g} s"
