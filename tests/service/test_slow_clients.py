"""Slow clients against a real uvicorn server on loopback: headers and bodies that take too
long are cut off within their bound, and a token in the URL is refused and never logged."""

import contextlib
import http.client
import logging
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn

from judge.service.app import ServeOptions, create_app
from judge.service.transport import server_config
from tests.support.fake_judge import FakeJudgeServer, fake_settings

BOUND_S = 0.6  # header and body deadline of the server under test
TOKEN = "a-token-of-sixteen-chars"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[int]:
    options = ServeOptions(
        token=TOKEN, body_timeout_s=BOUND_S, audit_path=tmp_path / "audit.sqlite3"
    )
    app = create_app(fake_settings(state_dir=tmp_path), options, judge=FakeJudgeServer().judge())
    config = server_config(app, host="127.0.0.1", port=0, header_timeout_s=BOUND_S)
    config.lifespan = "on"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config.port = port
    instance = uvicorn.Server(config)
    thread = threading.Thread(target=instance.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not instance.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert instance.started
    yield port
    instance.should_exit = True
    thread.join(timeout=10)


def held_for(
    port: int, chunks: list[bytes], gap_s: float, limit_s: float = 5.0
) -> tuple[float, bytes]:
    """Send ``chunks`` ``gap_s`` apart until the server closes; seconds held and the reply."""
    started = time.monotonic()
    reply = b""
    with socket.create_connection(("127.0.0.1", port), timeout=limit_s) as conn:
        for chunk in chunks:
            with contextlib.suppress(OSError):
                conn.sendall(chunk)
            conn.settimeout(gap_s)
            try:
                data = conn.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                break
            reply += data
            if not data:
                break
        conn.settimeout(max(0.1, limit_s - (time.monotonic() - started)))
        with contextlib.suppress(OSError):
            while data := conn.recv(65536):
                reply += data
    return time.monotonic() - started, reply


def test_slow_headers_are_cut_off(server: int) -> None:
    drip = [b"POST /v1/verify HTTP/1.1\r\n"] + [b"X-Slow: 1\r\n"] * 40
    seconds, reply = held_for(server, drip, gap_s=0.1)
    assert seconds < BOUND_S + 1.0
    assert reply.startswith(b"HTTP/1.1 408")


def test_an_idle_connection_is_cut_off(server: int) -> None:
    seconds, reply = held_for(server, [b""], gap_s=3.0)
    assert seconds < BOUND_S + 1.0
    assert reply.startswith(b"HTTP/1.1 408")


def test_slow_headers_of_a_second_request_are_cut_off(server: int) -> None:
    first = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    drip = [first, b"GET /healthz HTTP/1.1\r\n"] + [b"X-Slow: 1\r\n"] * 40
    seconds, reply = held_for(server, drip, gap_s=0.1)
    assert seconds < BOUND_S + 1.2
    assert reply.startswith(b"HTTP/1.1 200") and b"HTTP/1.1 408" in reply


def test_slow_body_is_cut_off(server: int) -> None:
    head = (
        b"POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Authorization: Bearer " + TOKEN.encode() + b"\r\nContent-Length: 1000\r\n\r\n"
    )
    seconds, reply = held_for(server, [head] + [b" "] * 40, gap_s=0.1)
    assert seconds < BOUND_S + 1.0
    assert reply.startswith(b"HTTP/1.1 408")
    assert b"request body not received within" in reply


def test_many_slow_clients_are_all_released(server: int) -> None:
    results: list[float] = []

    def client() -> None:
        results.append(
            held_for(server, [b"GET /healthz HTTP/1.1\r\n"] + [b"X: 1\r\n"] * 50, 0.1)[0]
        )

    threads = [threading.Thread(target=client) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert len(results) == 20 and max(results) < BOUND_S + 1.5


def test_requests_on_a_kept_alive_connection_still_work(server: int) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", server, timeout=5)
    try:
        for _ in range(2):
            conn.request("GET", "/healthz")
            reply = conn.getresponse()
            assert reply.status == 200 and reply.read() == b'{"status":"ok","checks":{}}'
            time.sleep(BOUND_S + 0.2)  # idle past the header deadline: the keep-alive bound
    finally:
        conn.close()


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


def test_token_in_the_query_string_is_refused_and_not_logged(server: int) -> None:
    secret = "leaked-secret-value-123"
    request = f"GET /metrics?token={secret} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    access = logging.getLogger("uvicorn.access")
    lines = Lines()
    access.addHandler(lines)  # behind the logger's filters, as uvicorn's own handler is
    try:
        _, reply = held_for(server, [request.encode()], gap_s=1.0)
        time.sleep(0.1)
    finally:
        access.removeHandler(lines)
    assert reply.startswith(b"HTTP/1.1 400")
    assert b"Authorization header" in reply
    assert any("/metrics?[redacted]" in line for line in lines.lines), lines.lines
    assert not any(secret in line for line in lines.lines)
