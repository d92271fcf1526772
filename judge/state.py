"""Owner-only permissions for the state directory and what is kept in it.

The audit log and the verdict cache hold evidence text, which can be confidential, and the
local server's state names its port and log: directories are 0700 and files 0600 however the
process's umask is set.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600


def default_state_dir() -> Path:
    """One directory holds all state (cache, local server, audit log); JUDGE_STATE_DIR moves it."""
    env = os.environ.get("JUDGE_STATE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "grounding-judge"


def cache_directory(state_dir: Path) -> Path:
    """Where the verdict cache (and the output ``judge verify`` keeps) lives in a state dir."""
    return state_dir / "cache"


def private_dir(path: Path, *, tighten: bool = True) -> Path:
    """Create ``path`` and its missing parents owner-only; with ``tighten``, make ``path``
    owner-only also when it already existed (parents that existed are left as they are).
    Returns ``path``."""
    missing = [p for p in (path, *path.parents) if not p.exists()]
    for directory in reversed(missing):
        directory.mkdir(mode=DIR_MODE, exist_ok=True)
        os.chmod(directory, DIR_MODE)  # mkdir's mode is filtered by the umask
    if tighten and stat.S_IMODE(path.stat().st_mode) != DIR_MODE:
        os.chmod(path, DIR_MODE)
    return path


def private_file(path: Path) -> None:
    if stat.S_IMODE(path.stat().st_mode) != FILE_MODE:
        os.chmod(path, FILE_MODE)


def private_files(directory: Path) -> None:
    """Make every regular file directly in ``directory`` owner-only."""
    for entry in directory.iterdir():
        if entry.is_file() and not entry.is_symlink():
            private_file(entry)
