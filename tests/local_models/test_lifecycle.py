"""The embedded server's lifecycle without a model: when it counts as idle, who holds it open,
how it retires, and `judge local down` returning only once the processes are gone (stand-in
server processes that take their time over SIGTERM, or ignore it)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from judge.cli.app import main
from judge.config import Settings, load_settings
from judge.local_models import holders, idle, server
from judge.local_models.files import write_json_atomic


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _metrics(prompt: float = 0, predicted: float = 0, processing: float = 0) -> idle.Metrics:
    return {
        "llamacpp:prompt_tokens_total": prompt,
        "llamacpp:tokens_predicted_total": predicted,
        "llamacpp:n_decode_total": predicted,
        "llamacpp:requests_processing": processing,
        "llamacpp:requests_deferred": 0,
    }


def test_idle_after_the_timeout_without_requests_and_not_before() -> None:
    clock = Clock()
    readings = [_metrics()]
    watch = idle.IdleWatch(100.0, lambda: readings[-1], lambda: 0, clock)
    assert watch.every_s == 10.0
    clock.now += 95
    assert not watch.idle()
    clock.now += 10
    assert watch.idle()


def test_a_request_restarts_the_idle_clock() -> None:
    clock = Clock()
    readings = [_metrics()]
    watch = idle.IdleWatch(100.0, lambda: readings[-1], lambda: 0, clock)
    clock.now += 50
    assert not watch.idle()  # the first look only notes the counters
    readings.append(_metrics(prompt=31, predicted=3))
    clock.now += 40
    assert not watch.idle()  # the counters moved: used at 1090
    clock.now += 95
    assert not watch.idle()
    clock.now += 10
    assert watch.idle()


@pytest.mark.parametrize(
    "reading",
    [_metrics(processing=1), None],
    ids=["a request in progress", "metrics that cannot be read"],
)
def test_busy_or_unseen_counts_as_used(reading: idle.Metrics | None) -> None:
    clock = Clock()
    watch = idle.IdleWatch(100.0, lambda: reading, lambda: 0, clock)
    for _ in range(30):
        clock.now += 10
        assert not watch.idle()


def test_a_holder_keeps_it_and_zero_means_never() -> None:
    clock = Clock()
    held = [1]
    watch = idle.IdleWatch(100.0, _metrics, lambda: held[0], clock)
    clock.now += 500
    assert not watch.idle()
    held[0] = 0
    clock.now += 101
    assert watch.idle()
    never = idle.IdleWatch(0.0, _metrics, lambda: 0, clock)
    clock.now += 10**6
    assert not never.idle()


def test_metrics_are_read_from_the_prometheus_text() -> None:
    body = (
        b"# HELP llamacpp:prompt_tokens_total Number of prompt tokens processed.\n"
        b"llamacpp:prompt_tokens_total 31\nllamacpp:tokens_predicted_total 3\n"
        b"llamacpp:n_decode_total 3\nllamacpp:requests_processing 0\n"
    )
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        reply = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
        child = subprocess.Popen(
            [sys.executable, "-c", _ONE_REPLY, str(listener.fileno()), reply.hex()],
            pass_fds=[listener.fileno()],
        )
        try:
            values = idle.read_metrics(f"http://127.0.0.1:{port}/metrics")
        finally:
            child.wait(timeout=30)
    assert values is not None
    assert values["llamacpp:prompt_tokens_total"] == 31.0
    assert idle.read_metrics(f"http://127.0.0.1:{port}/metrics") is None  # nobody listens


_ONE_REPLY = textwrap.dedent(
    """
    import socket, sys
    listener = socket.socket(fileno=int(sys.argv[1]))
    conn, _ = listener.accept()
    conn.recv(65536)
    conn.sendall(bytes.fromhex(sys.argv[2]))
    conn.close()
    """
)


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


def test_retire_withdraws_the_record_unless_a_holder_came(tmp_path: Path) -> None:
    server_dir = tmp_path / "server"
    state = server_dir / "server.json"
    record = {"pid": 4242, "port": 1}
    write_json_atomic(state, record)
    with holders.holding(server_dir):
        assert idle.retire(state, 4242) is False
        assert json.loads(state.read_text()) == record  # put back: it serves on
    assert idle.retire(state, 4242) is True
    assert not state.exists()
    write_json_atomic(state, {"pid": 1, "port": 1})
    assert idle.retire(state, 4242) is True  # the record names another server
    assert json.loads(state.read_text())["pid"] == 1


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
