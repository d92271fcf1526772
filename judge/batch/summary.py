"""Counts of a batch run, and the progress line (rate and ETA) printed while it runs."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

from judge.batch.outcome import Row

_BURST_S = 0.05


@dataclass
class Summary:
    records: int = 0
    skipped: int = 0  # already in the output from an earlier run
    duplicates: int = 0  # an id seen earlier in the input
    statuses: Counter[str] = field(default_factory=Counter)
    actions: Counter[str] = field(default_factory=Counter)
    labels: Counter[str] = field(default_factory=Counter)
    judge_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    started: float = field(default_factory=time.perf_counter)
    seconds: float = 0.0
    first_row_at: float | None = None  # perf_counter of the first and last rows written
    last_row_at: float | None = None

    first_burst: int = 0  # rows that arrived together with the first (one Ray batch)

    def add(self, row: Row) -> None:
        now = time.perf_counter()
        self.first_row_at = self.first_row_at or now
        self.last_row_at = now
        if now - self.first_row_at < _BURST_S:
            self.first_burst += 1
        self.records += 1
        self.statuses[str(row["status"])] += 1
        self.actions[str(row["action"])] += 1
        for verdict in row.get("verdicts") or []:
            self.labels[str(verdict.get("label"))] += 1
        self.judge_calls += int(row.get("judge_calls") or 0)
        self.prompt_tokens += int(row.get("prompt_tokens") or 0)
        self.completion_tokens += int(row.get("completion_tokens") or 0)

    def finish(self) -> None:
        self.seconds = round(time.perf_counter() - self.started, 3)

    @property
    def errors(self) -> int:
        return self.records - self.statuses.get("ok", 0)

    def as_dict(self) -> dict[str, Any]:
        return {
            "records": self.records,
            "skipped": self.skipped,
            "duplicates": self.duplicates,
            "statuses": dict(self.statuses),
            "actions": dict(self.actions),
            "labels": dict(self.labels),
            "errors": self.errors,
            "judge_calls": self.judge_calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "seconds": self.seconds,
            "records_per_s": round(self.records / self.seconds, 3) if self.seconds else None,
            "steady_records_per_s": self.steady_rate(),
        }

    def steady_rate(self) -> float | None:
        """Records per second after the first rows arrived: start-up (Ray actors, the first
        connection) left out, and so are the rows that came with the first."""
        if self.first_row_at is None or self.last_row_at is None:
            return None
        span = self.last_row_at - self.first_row_at
        later = self.records - self.first_burst
        return round(later / span, 3) if span > 0 and later > 0 else None

    def render(self) -> str:
        def counts(counter: Mapping[str, int]) -> str:
            return ", ".join(f"{k} {v}" for k, v in sorted(counter.items())) or "none"

        errors = {k: v for k, v in self.statuses.items() if k != "ok"}

        rate = f"{self.records / self.seconds:.2f}/s" if self.seconds else "-"
        return "\n".join(
            [
                f"records   {self.records} verified in {self.seconds:.1f} s ({rate}); "
                f"{self.skipped} already done, {self.duplicates} duplicate ids skipped",
                f"actions   {counts(self.actions)}",
                f"labels    {counts(self.labels)}",
                f"errors    {self.errors} ({counts(errors)})",
                f"judge     {self.judge_calls} calls, {self.prompt_tokens} prompt + "
                f"{self.completion_tokens} completion tokens",
            ]
        )


class Progress:
    """A progress line on stderr at most every ``every_s`` seconds: done, rate, ETA."""

    def __init__(self, stream: TextIO, total: int | None, *, every_s: float = 2.0) -> None:
        self._stream = stream
        self._total = total
        self._every_s = every_s
        self._started = time.perf_counter()
        self._last = self._started
        self.done = 0

    def advance(self, *, skipped: bool = False) -> None:
        if skipped and self._total is not None:
            self._total -= 1
            return
        self.done += 1
        now = time.perf_counter()
        if now - self._last >= self._every_s:
            self._last = now
            self._print(now)

    def final(self) -> None:
        self._print(time.perf_counter())

    def _print(self, now: float) -> None:
        elapsed = max(now - self._started, 1e-9)
        rate = self.done / elapsed
        line = f"judge batch: {self.done}"
        if self._total is not None:
            line += f"/{self._total}"
        line += f" records, {rate:.2f}/s"
        if self._total is not None and rate > 0:
            line += f", ETA {max(self._total - self.done, 0) / rate:.0f} s"
        print(line, file=self._stream, flush=True)
