"""The JSON Lines output of a batch: one line per record, appended as each finishes.

Resuming reads what an earlier run wrote: records with a line are not verified again. A line
cut short by a kill (no final newline, or not JSON) is removed first, so the file holds only
whole lines. With ``retry_errors`` the error lines are dropped (the file is rewritten through a
temporary file and a rename) so their records run again and no record has two lines.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from types import TracebackType
from typing import IO

from judge.batch.outcome import Row, is_error, row_key
from judge.errors import InputError


class JsonlOutput:
    def __init__(self, path: Path, *, retry_errors: bool = False) -> None:
        self.path = path
        self.done: set[str] = set()
        self.kept_errors = 0
        self.dropped_errors = 0
        rows = self._read_whole_lines()
        if retry_errors:
            kept = [row for row in rows if not is_error(row)]
            self.dropped_errors = len(rows) - len(kept)
            if self.dropped_errors:
                self._rewrite(kept)
            rows = kept
        for row in rows:
            key = row_key(row)
            if key is not None:
                self.done.add(key)
        self.kept_errors = sum(1 for row in rows if is_error(row))
        path.parent.mkdir(parents=True, exist_ok=True)
        self._handle: IO[str] = path.open("a", encoding="utf-8")

    def write(self, row: Row) -> None:
        # One write per whole line and a flush: a kill loses at most the line being written.
        self._handle.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._handle.flush()
        key = row_key(row)
        if key is not None:
            self.done.add(key)

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> JsonlOutput:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _read_whole_lines(self) -> list[Row]:
        if not self.path.exists():
            return []
        try:
            raw = self.path.read_bytes()
        except OSError as exc:
            raise InputError(f"cannot read {self.path}: {exc.strerror}", field="--out") from None
        rows: list[Row] = []
        good_end = 0
        offset = 0
        for line in raw.splitlines(keepends=True):
            end = offset + len(line)
            offset = end
            if not line.endswith(b"\n"):
                break  # cut short by a kill
            try:
                row = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                raise InputError(
                    f"{self.path}:{len(rows) + 1} is not a batch output line; "
                    "give a new --out file or the one an earlier batch wrote",
                    field="--out",
                ) from None
            if not isinstance(row, dict) or "status" not in row:
                raise InputError(
                    f"{self.path}:{len(rows) + 1} is not a batch output line", field="--out"
                )
            rows.append(row)
            good_end = end
        if good_end < len(raw):
            with self.path.open("r+b") as handle:
                handle.truncate(good_end)
        return rows

    def _rewrite(self, rows: list[Row]) -> None:
        temporary = self.path.with_name(self.path.name + ".tmp")
        with temporary.open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, self.path)
