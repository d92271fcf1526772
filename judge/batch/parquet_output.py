"""Parquet output of a batch: a folder of part files, each written whole (a temporary file and
a rename) every ``rows_per_file`` rows and at the end, so a kill loses at most the rows not yet
in a part and a rerun verifies just those. Same rows as the JSON Lines output, with
``verdicts`` as JSON text."""

from __future__ import annotations

import os
import sys
import time
import uuid
from pathlib import Path
from types import TracebackType
from typing import Any

from judge.batch.outcome import Row, is_error, row_key
from judge.batch.table import rows_table
from judge.errors import ConfigError


def _parquet() -> Any:
    try:
        import pyarrow.parquet as pq
    except ModuleNotFoundError:
        raise ConfigError(
            "--format parquet needs pyarrow: pip install 'grounding-judge[ray]'"
        ) from None
    return pq


class ParquetOutput:
    def __init__(
        self, folder: Path, *, retry_errors: bool = False, rows_per_file: int = 1000
    ) -> None:
        self._pq = _parquet()
        self.folder = folder
        self.done: set[str] = set()
        self.kept_errors = 0
        self.dropped_errors = 0
        self._rows_per_file = rows_per_file
        self._pending: list[Row] = []
        self._run = f"{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}"
        self._parts = 0
        folder.mkdir(parents=True, exist_ok=True)
        for part in sorted(folder.glob("*.parquet")):
            self._load(part, retry_errors)

    def _load(self, part: Path, retry_errors: bool) -> None:
        try:
            table = self._pq.read_table(part)
        except Exception as exc:  # a part is whole or absent; anything else is reported
            print(f"judge batch: {part}: unreadable Parquet, ignored: {exc}", file=sys.stderr)
            return
        rows = table.to_pylist()
        if retry_errors and any(is_error(row) for row in rows):
            kept = [row for row in rows if not is_error(row)]
            self.dropped_errors += len(rows) - len(kept)
            self._write_table(part, table.filter([not is_error(row) for row in rows]))
            rows = kept
        for row in rows:
            key = row_key(row)
            if key is not None:
                self.done.add(key)
        self.kept_errors += sum(1 for row in rows if is_error(row))

    def write(self, row: Row) -> None:
        self._pending.append(row)
        key = row_key(row)
        if key is not None:
            self.done.add(key)
        if len(self._pending) >= self._rows_per_file:
            self.flush()

    def flush(self) -> None:
        if not self._pending:
            return
        self._parts += 1
        part = self.folder / f"part-{self._run}-{self._parts:05d}.parquet"
        self._write_table(part, rows_table(self._pending))
        self._pending = []

    def _write_table(self, path: Path, table: Any) -> None:
        temporary = path.with_name(path.name + ".tmp")
        self._pq.write_table(table, temporary)
        os.replace(temporary, path)

    def close(self) -> None:
        self.flush()

    def __enter__(self) -> ParquetOutput:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
