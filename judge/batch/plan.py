"""Which input items a run verifies: each id once, none already answered in the output."""

from __future__ import annotations

import sys
from collections.abc import Container, Iterable, Iterator
from typing import TextIO

from judge.batch.records import BatchItem
from judge.batch.summary import Progress, Summary


def pending_items(
    items: Iterable[BatchItem],
    done: Container[str],
    summary: Summary,
    progress: Progress,
    stderr: TextIO | None = None,
) -> Iterator[BatchItem]:
    """The items to verify, in input order. A line that cannot be verified is still yielded,
    so the output gets its error line; a repeated id is reported on stderr and skipped."""
    seen: dict[str, str] = {}
    for item in items:
        if item.key in seen:
            summary.duplicates += 1
            progress.advance(skipped=True)
            print(
                f"{item.source}: duplicate id {item.key!r} (first at {seen[item.key]}), skipped",
                file=stderr or sys.stderr,
            )
            continue
        seen[item.key] = item.source
        if item.key in done:
            summary.skipped += 1
            progress.advance(skipped=True)
            continue
        yield item
