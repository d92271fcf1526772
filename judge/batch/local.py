"""The in-process engine: one judge (one client, cache and endpoint pool) for the whole run,
``concurrency`` records verified at once on one event loop."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable

from judge.batch.outcome import Row, verify_item
from judge.batch.records import BatchItem
from judge.config import Settings
from judge.protocols import Judge


async def run_local(
    items: Iterable[BatchItem],
    settings: Settings,
    write: Callable[[Row], None],
    *,
    concurrency: int,
    use_judge: bool = True,
    judge: Judge | None = None,
) -> None:
    """Verify ``items``, calling ``write`` with each row as it finishes (in finishing order)."""
    async with contextlib.AsyncExitStack() as stack:
        if judge is None and use_judge:
            from judge.pipeline.entail.connect import open_judge

            judge = await stack.enter_async_context(open_judge(settings))
        slots = asyncio.Semaphore(concurrency)

        async def one(item: BatchItem) -> None:
            try:
                write(await verify_item(item, settings, judge, use_judge=use_judge))
            finally:
                slots.release()

        async with asyncio.TaskGroup() as group:
            for item in items:
                await slots.acquire()  # at most `concurrency` records in flight
                group.create_task(one(item))
