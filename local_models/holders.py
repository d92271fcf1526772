"""Processes that hold the embedded judge server open, so it does not stop for being idle.

A process that opens the embedded judge (a ``judge.Verifier``, ``judge serve``, one ``judge
verify`` run) writes one file into ``state_dir/server/holders`` for as long as it keeps the
judge open, named after its pid and holding the process's start time, so a recycled pid does
not count. The server's idle watch counts the live ones and removes those of processes that
are gone (a crash leaves its file behind).
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

from judge.state import FILE_MODE, private_dir


def holders_dir(server_dir: Path) -> Path:
    return server_dir / "holders"


@contextlib.contextmanager
def holding(server_dir: Path) -> Iterator[Path]:
    """Hold the server open while the block runs; yields the holder's file."""
    directory = private_dir(holders_dir(server_dir))
    path = directory / f"{os.getpid()}.{uuid.uuid4().hex}"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    with os.fdopen(fd, "w", encoding="ascii") as out:
        out.write(_start_time(os.getpid()) or "")
    try:
        yield path
    finally:
        path.unlink(missing_ok=True)


def live_holders(server_dir: Path) -> int:
    """How many processes hold the server open; the files of those gone are removed."""
    directory = holders_dir(server_dir)
    try:
        entries = list(directory.iterdir())
    except OSError:
        return 0
    live = 0
    for entry in entries:
        if _is_live(entry):
            live += 1
        else:
            entry.unlink(missing_ok=True)
    return live


def _is_live(entry: Path) -> bool:
    pid_text = entry.name.partition(".")[0]
    if not pid_text.isdigit():
        return False  # not a holder's file
    pid = int(pid_text)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, another user's
    try:
        recorded = entry.read_text(encoding="ascii")
    except (OSError, ValueError):
        return True  # being written, or unreadable: count it rather than stop under it
    started = _start_time(pid)
    return not recorded or started is None or recorded == started


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot (/proc), None where unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()
    # Field 22 of /proc/PID/stat; fields[0] here is field 3 (the state).
    return fields[19] if len(fields) > 19 else None
