"""The processes that hold the embedded server open: counted while they hold it, not once
gone, nor when their pid now belongs to another process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from judge.local_models import holders


def test_holders_count_while_held_and_not_once_gone(tmp_path: Path) -> None:
    server_dir = tmp_path / "server"
    assert holders.live_holders(server_dir) == 0
    with holders.holding(server_dir) as path:
        assert path.is_file() and holders.live_holders(server_dir) == 1
        assert path.stat().st_mode & 0o777 == 0o600
    assert not path.exists() and holders.live_holders(server_dir) == 0

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(timeout=30)
    stale = holders.holders_dir(server_dir) / f"{gone.pid}.crashed"
    stale.write_text("")
    recycled = holders.holders_dir(server_dir) / f"{os.getpid()}.recycled"
    recycled.write_text("1")  # this pid, but not this process's start time
    assert holders.live_holders(server_dir) == 0
    assert not stale.exists() and not recycled.exists()
