"""When the embedded llama.cpp server counts as idle, how its metrics are read, and how it
retires: its record withdrawn under the lock unless a holder came meanwhile."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from judge.local_models import holders, idle
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
