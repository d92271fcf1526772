"""Small file helpers shared by the weights and server modules: a lock with a deadline, atomic
JSON writes, and the tail of a log."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judge.errors import LocalServerError
from judge.state import FILE_MODE, private_dir, private_file


@contextlib.contextmanager
def file_lock(path: Path, timeout_s: float, what: str) -> Iterator[None]:
    """Hold an exclusive advisory lock on ``path``; give up with a clear error after timeout_s.

    flock is released by the kernel when the holder dies, so a crashed process never leaves a
    lock behind.
    """
    private_dir(path.parent)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, FILE_MODE)
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LocalServerError(
                        f"another process held {what} for over {timeout_s:.0f} s ({path}); "
                        "try again once it has finished"
                    ) from None
                time.sleep(0.1)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def write_json_atomic(path: Path, data: Any) -> None:
    private_dir(path.parent)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with os.fdopen(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE), "w") as out:
        out.write(json.dumps(data, indent=2, sort_keys=True))
    private_file(tmp)  # an older tmp file of this pid keeps its mode through O_CREAT
    os.replace(tmp, path)


def read_json(path: Path) -> Any | None:
    """The file's JSON, or None when it is missing or unreadable (a torn or foreign file)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def tail(path: Path, lines: int = 30, max_bytes: int = 64 * 1024) -> str:
    try:
        with path.open("rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - max_bytes))
            data = fh.read()
    except OSError:
        return "(no log)"
    text = data.decode("utf-8", errors="replace")
    return "\n".join(text.splitlines()[-lines:]) or "(empty log)"
