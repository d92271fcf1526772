"""The Ray Data engine: the same job as :mod:`judge.batch.local`, spread over a Ray cluster.

The items become a dataset, verified in ``map_batches`` by a fixed pool of actors
(:class:`VerifyBatch`: each opens its judge client, cache and thresholds once and verifies a
batch ``concurrency`` records at a time). Ray does the scheduling; results stream back to the
driver, which appends JSON Lines as they arrive, or are written by Ray as Parquet files.

``ray`` is an optional dependency (``pip install 'grounding-judge[ray]'``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from judge.batch.outcome import Row, verify_item
from judge.batch.records import BatchItem
from judge.batch.table import row_from, rows_table
from judge.config import Settings
from judge.errors import ConfigError

RAY_ADDRESS_SETTING = "--ray-address (RAY_ADDRESS)"
# Unix socket paths under Ray's temp folder must stay under ~107 bytes.
_MAX_TEMP_DIR = 60


def require_ray() -> Any:
    try:
        import ray
    except ModuleNotFoundError:
        raise ConfigError("--engine ray needs Ray: pip install 'grounding-judge[ray]'") from None
    return ray


def start_ray(address: str | None, *, num_cpus: int, state_dir: Path) -> None:
    """Connect to the cluster at ``address``, or start a small local instance (no dashboard,
    logs under the state folder). An unreachable address is a ``ConfigError`` naming it."""
    ray = require_ray()
    if address:
        _check_reachable(address)
        try:
            ray.init(address=address, log_to_driver=False, logging_level="ERROR")
        except (ConnectionError, RuntimeError, ValueError, TimeoutError) as exc:
            raise ConfigError(
                f"{RAY_ADDRESS_SETTING}: cannot connect to the Ray cluster at {address}: {exc}"
            ) from None
        return
    ray.init(
        num_cpus=num_cpus,
        include_dashboard=False,
        log_to_driver=False,
        logging_level="ERROR",
        _temp_dir=str(_temp_dir(state_dir)),
    )


def _temp_dir(state_dir: Path) -> Path:
    wanted = (state_dir / "ray").resolve()
    if len(str(wanted)) <= _MAX_TEMP_DIR:
        wanted.mkdir(parents=True, exist_ok=True)
        return wanted
    return Path(tempfile.mkdtemp(prefix="judge-ray-"))  # state path too long for Ray's sockets


def _check_reachable(address: str, timeout_s: float = 3.0) -> None:
    """Fail fast on a host:port nobody listens on, before Ray's own long connection retries."""
    if address == "auto":
        return
    target = address.removeprefix("ray://")
    host, sep, port = target.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise ConfigError(
            f"{RAY_ADDRESS_SETTING}: {address!r} is not host:port, ray://host:port or auto"
        )
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s):
            pass
    except OSError as exc:
        raise ConfigError(
            f"{RAY_ADDRESS_SETTING}: cannot reach the Ray cluster at {address}: {exc}"
        ) from None


def stop_ray() -> None:
    ray = require_ray()
    if ray.is_initialized():
        ray.shutdown()


def _item_record(item: BatchItem) -> dict[str, str]:
    # Plain strings only: Arrow needs one type per column, and requests vary in shape.
    return {
        "source": item.source,
        "id": item.id or "",
        "request": json.dumps(item.request) if item.request is not None else "",
        "status": item.status,
        "error": item.error or "",
    }


def _item_from(columns: dict[str, Any], index: int) -> BatchItem:
    request = str(columns["request"][index])
    return BatchItem(
        source=str(columns["source"][index]),
        id=str(columns["id"][index]) or None,
        request=json.loads(request) if request else None,
        status=str(columns["status"][index]),
        error=str(columns["error"][index]) or None,
    )


class VerifyBatch:
    """The actor of ``map_batches``: one event loop and one judge for its lifetime."""

    def __init__(self, settings: dict[str, Any], use_judge: bool, concurrency: int) -> None:
        from judge.pipeline.entail.thresholds import active_thresholds

        self._settings = Settings.model_validate(settings)
        active_thresholds(self._settings)  # a bad calibration file fails the actor at start
        self._use_judge = use_judge
        self._concurrency = concurrency
        self._loop = asyncio.new_event_loop()
        self._stack = contextlib.AsyncExitStack()
        self._judge: Any = None
        if use_judge:
            from judge.pipeline.entail.connect import open_judge

            self._judge = self._loop.run_until_complete(
                self._stack.enter_async_context(open_judge(self._settings))
            )

    def __call__(self, batch: dict[str, Any]) -> Any:
        items = [_item_from(batch, i) for i in range(len(batch["source"]))]
        return rows_table(self._loop.run_until_complete(self._verify(items)))

    async def _verify(self, items: list[BatchItem]) -> list[Row]:
        slots = asyncio.Semaphore(self._concurrency)

        async def one(item: BatchItem) -> Row:
            async with slots:
                return await verify_item(
                    item, self._settings, self._judge, use_judge=self._use_judge
                )

        return list(await asyncio.gather(*(one(item) for item in items)))


def verified_dataset(
    items: Iterable[BatchItem],
    settings: Settings,
    *,
    workers: int,
    concurrency: int,
    batch_size: int,
    use_judge: bool,
) -> Any:
    """The lazy dataset of output rows (``None`` when there is nothing to verify)."""
    ray = require_ray()
    records = [_item_record(item) for item in items]
    if not records:
        return None
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False  # judge batch prints its own progress line
    logging.getLogger("ray.data").setLevel(logging.WARNING)
    return ray.data.from_items(records).map_batches(
        VerifyBatch,
        fn_constructor_kwargs={
            "settings": settings.model_dump(mode="json"),
            "use_judge": use_judge,
            "concurrency": concurrency,
        },
        batch_size=batch_size,
        batch_format="numpy",
        compute=ray.data.ActorPoolStrategy(size=workers),
        num_cpus=1,
    )


def write_rows(dataset: Any, write: Callable[[Row], None]) -> None:
    """Hand each output row to ``write`` as Ray delivers it (the driver appends it)."""
    for record in dataset.iter_rows():
        write(row_from(record))
