"""Stopping the embedded server, with stand-in server processes that take their time over
SIGTERM or ignore it: `judge local down` returns only once every process is gone and says how
it ended. And who holds the embedded judge open."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from judge.cli.app import main
from judge.config import Settings, load_settings
from judge.local_models import holders, server
from judge.local_models.files import write_json_atomic


def test_the_embedded_judge_is_held_only_when_no_endpoint_is_set(tmp_path: Path) -> None:
    embedded = Settings(state_dir=tmp_path)
    with server.holding_embedded(embedded):
        assert holders.live_holders(server.server_dir(embedded)) == 1
    assert holders.live_holders(server.server_dir(embedded)) == 0
    remote = Settings(state_dir=tmp_path, base_url="http://127.0.0.1:9/v1")
    with server.holding_embedded(remote):
        assert holders.live_holders(server.server_dir(remote)) == 0


# A stand-in server: leads its own session like the real one and names its port on its command
# line as `_is_our_server` expects. On SIGTERM it exits at once ("quick"), after a second
# ("slow") or never ("deaf"); with a fourth argument it first starts a worker in its process
# group that is deaf to SIGTERM, as vLLM's engine processes could be.
_STAND_IN = textwrap.dedent(
    """
    import signal, subprocess, sys, time
    mode = sys.argv[3]
    if len(sys.argv) > 4:
        worker = subprocess.Popen(
            [sys.executable, sys.argv[0], "--port", "0", "deaf"], stdout=subprocess.PIPE
        )
        worker.stdout.readline()
    def on_term(*_):
        if mode == "slow":
            time.sleep(1.0)
        sys.exit(0)
    signal.signal(signal.SIGTERM, signal.SIG_IGN if mode == "deaf" else on_term)
    print("ready", flush=True)
    while True:
        time.sleep(0.1)
    """
)


def _stand_in(tmp_path: Path, settings: Settings, mode: str, *worker: str) -> int:
    script = tmp_path / "stand_in.py"
    script.write_text(_STAND_IN)
    port = 45_678
    proc = subprocess.Popen(
        [sys.executable, str(script), "--port", str(port), mode, *worker],
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
    info = server.ServerInfo(
        base_url=f"http://127.0.0.1:{port}/v1",
        model_id="stand-in",
        model="stand-in",
        backend="llamacpp",
        pid=proc.pid,
        port=port,
        log_path=server.log_path(settings),
        started_at=time.time(),
    )
    write_json_atomic(server.server_dir(settings) / "server.json", info.to_json())
    return proc.pid


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("JUDGE_STATE_DIR", str(tmp_path / "state"))
    return load_settings()


def test_down_waits_for_a_slow_exit_and_says_how_it_ended(
    tmp_path: Path, settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    pid = _stand_in(tmp_path, settings, "slow")
    assert main(["local", "down"]) == 0
    assert not server._alive(pid)
    message = capsys.readouterr().err
    assert f"(pid {pid}) exited on SIGTERM; it was gone after" in message
    assert server.recorded_server(settings) is None
    assert main(["local", "down"]) == 0
    assert "no local judge server was running" in capsys.readouterr().err


def test_down_kills_a_server_that_ignores_sigterm(
    tmp_path: Path, settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    pid = _stand_in(tmp_path, settings, "deaf")
    assert main(["local", "down", "--timeout", "0.5"]) == 0
    assert not server._alive(pid)
    assert "did not exit on SIGTERM and was killed" in capsys.readouterr().err


def test_stop_returns_only_once_the_whole_process_group_is_gone(
    tmp_path: Path, settings: Settings
) -> None:
    pid = _stand_in(tmp_path, settings, "quick", "with-worker")
    [worker] = [p for p in server._group_members(pid) if p != pid]
    stopped = server.stop_server(settings, timeout_s=0.5)
    assert stopped is not None and stopped.info.pid == pid
    assert stopped.killed  # the leader went at once; its worker needed SIGKILL
    assert server._group_members(pid) == []
    assert not server._alive(worker)
