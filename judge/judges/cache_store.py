"""The verdict cache's SQLite store, opened alike by every reader, and a record of what one run
found in it.

Kept apart from :mod:`judge.judges.cache` so that a repeated `judge verify` can check its
stored output against the store (see :mod:`judge.cli.output_cache`) without loading pydantic
or the pipeline.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import diskcache

# No shared memory and no memory-mapped I/O: SQLite maps a WAL's -shm file, and a -shm
# truncated or made unwritable under a running process kills it with SIGBUS. Values stay in
# SQLite (never separate files), so every file of the cache is the database, owner-only.
# diskcache keeps these settings in the database: every reader must open it with the same ones.
STORE_SETTINGS: dict[str, Any] = {
    "sqlite_journal_mode": "delete",
    "sqlite_mmap_size": 0,
    "disk_min_file_size": 1 << 30,
}
DATABASE = "cache.db"  # diskcache's file in the store's directory


def open_store(directory: Path) -> diskcache.Cache:
    return diskcache.Cache(str(directory), **STORE_SETTINGS)


def value_digest(value: str | None) -> str | None:
    """What a run saw under a key: the sha256 of the stored text, ``None`` for no entry."""
    return None if value is None else hashlib.sha256(value.encode("utf-8")).hexdigest()


# Key -> digest of the value the current run read or left there, while a recording is open.
_seen: ContextVar[dict[str, str | None] | None] = ContextVar("cache_seen", default=None)


@contextmanager
def recording() -> Iterator[dict[str, str | None]]:
    """Collect every cache key the code inside reads or writes (tasks it starts included, as
    they copy the context) with :func:`value_digest` of its last value."""
    seen: dict[str, str | None] = {}
    token = _seen.set(seen)
    try:
        yield seen
    finally:
        _seen.reset(token)


def note(key: str, value: str | None) -> None:
    seen = _seen.get()
    if seen is not None:
        seen[key] = value_digest(value)
