"""The input of a batch: JSON Lines of ``judge verify`` requests, each with an ``id``.

Input comes from files, folders of files or stdin (``-``). Reading never stops on a bad line:
a line that is not a JSON object, or has no usable id, becomes an item that carries its error
and its place (``file:line``), so the output reports it instead of dropping it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from judge.inputs import strict_json

STDIN = "-"
# Files of a folder that are read, in name order; anything else in it is left alone.
INPUT_SUFFIXES = (".jsonl", ".ndjson", ".json")


@dataclass(frozen=True)
class BatchItem:
    """One input line: a request to verify, or the reason it cannot be."""

    source: str  # "file:line"
    id: str | None
    request: dict[str, Any] | None  # the line without its id
    status: str = "ok"  # "ok", or why the line never reaches the verifier
    error: str | None = None

    @property
    def key(self) -> str:
        """What identifies the record across runs: its id, or its place for a line without one."""
        return self.id if self.id is not None else self.source


def input_files(inputs: Sequence[str]) -> list[str]:
    """The files to read, folders expanded; ``-`` stays as stdin. Raises ``FileNotFoundError``."""
    files: list[str] = []
    for name in inputs:
        if name == STDIN:
            files.append(STDIN)
            continue
        path = Path(name)
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.is_file() and p.suffix in INPUT_SUFFIXES)
            files.extend(str(p) for p in found)
        elif path.is_file():
            files.append(str(path))
        else:
            raise FileNotFoundError(f"no such file or folder: {name}")
    return files


def count_lines(files: Sequence[str]) -> int | None:
    """Non-blank lines of the input, for progress; ``None`` when stdin is read."""
    if STDIN in files:
        return None
    total = 0
    for name in files:
        with open(name, "rb") as handle:
            total += sum(1 for line in handle if line.strip())
    return total


def read_items(files: Sequence[str], stdin: TextIO | None = None) -> Iterator[BatchItem]:
    for name in files:
        if name == STDIN:
            yield from parse_lines(stdin or sys.stdin, "<stdin>")
            continue
        with open(name, encoding="utf-8", errors="replace") as handle:
            yield from parse_lines(handle, name)


def parse_lines(lines: Iterable[str], name: str) -> Iterator[BatchItem]:
    for number, line in enumerate(lines, start=1):
        if line.strip():
            yield parse_line(line, f"{name}:{number}")


def parse_line(line: str, source: str) -> BatchItem:
    try:
        record = strict_json.loads(line)
    except strict_json.DuplicateKeyError as exc:
        return _bad(source, None, "malformed", exc.describe())
    except json.JSONDecodeError as exc:
        return _bad(source, None, "malformed", f"malformed JSON at column {exc.colno}: {exc.msg}")
    except RecursionError:
        return _bad(source, None, "malformed", "JSON nested too deeply")
    if not isinstance(record, dict):
        return _bad(source, None, "malformed", "a record must be a JSON object")
    raw_id = record.pop("id", None)
    if isinstance(raw_id, bool) or not isinstance(raw_id, str | int):
        what = "missing" if raw_id is None else f"must be a string or an integer, not {raw_id!r}"
        return _bad(source, None, "invalid", f"id: {what}"[:200])
    record_id = str(raw_id)
    if not record_id.strip():
        return _bad(source, None, "invalid", "id: must not be empty")
    return BatchItem(source=source, id=record_id, request=record)


def _bad(source: str, record_id: str | None, status: str, error: str) -> BatchItem:
    return BatchItem(source=source, id=record_id, request=None, status=status, error=error)
