"""Run the service on 127.0.0.1 for load and fault tests: in a thread of the test process, or
as a `judge serve` child process that can be killed outright. The judge is the loopback fake
judge server."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import uvicorn

from judge.config import Settings
from judge.pipeline.entail.llm_judge import build_http_judge
from judge.service.app import ServeOptions, create_app

REPO = Path(__file__).resolve().parents[2]
FAKE_MODEL = "fake-judge"


def service_settings(state_dir: Path, judge_url: str) -> Settings:
    # No HTTP retries: a dead judge must fail at once, not after the client's backoff.
    return Settings(
        base_url=judge_url,
        model=FAKE_MODEL,
        http_retries=0,
        reasks=0,
        cache_enabled=False,
        state_dir=state_dir,
        timeout_s=20,
    )


def _bound_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


def _server(settings: Settings, options: ServeOptions, judge_url: str) -> uvicorn.Server:
    judge = build_http_judge(settings, base_url=judge_url, model=FAKE_MODEL)
    app = create_app(settings, options, judge=judge)
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, lifespan="on", backlog=2048, workers=1
    )
    return uvicorn.Server(config)


@dataclass
class RunningService:
    base_url: str
    server: uvicorn.Server


@contextlib.contextmanager
def service_in_thread(
    state_dir: Path, judge_url: str, options: ServeOptions | None = None
) -> Iterator[RunningService]:
    """uvicorn on its own event loop in a thread; stopped (and its audit log closed) on exit."""
    settings = service_settings(state_dir, judge_url)
    server = _server(settings, options or ServeOptions(), judge_url)
    sock = _bound_socket()
    port = sock.getsockname()[1]
    thread = threading.Thread(
        target=lambda: asyncio.run(server.serve(sockets=[sock])), name="service", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the service did not start")
        time.sleep(0.02)
    try:
        yield RunningService(f"http://127.0.0.1:{port}", server)
    finally:
        server.should_exit = True
        thread.join(timeout=20)
        sock.close()


@dataclass
class ServiceProcess:
    base_url: str
    process: subprocess.Popen[bytes]

    def kill(self) -> None:
        """SIGKILL: no shutdown handlers, no flush; what the audit log holds is what committed."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=20)


def _free_port() -> int:
    with _bound_socket() as sock:
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def service_process(state_dir: Path, judge_url: str, audit_path: Path) -> Iterator[ServiceProcess]:
    """`judge serve` as a child process, on the fake judge; killed on exit if still running."""
    port = _free_port()
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "JUDGE_STATE_DIR": str(state_dir),
        "JUDGE_HTTP_RETRIES": "0",
        "JUDGE_REASKS": "0",
        "JUDGE_CACHE_ENABLED": "false",
    }
    command = [
        sys.executable, "-m", "judge.cli", "serve", "--port", str(port),
        "--base-url", judge_url, "--model", FAKE_MODEL, "--audit-db", str(audit_path),
    ]  # fmt: skip
    with (state_dir / f"serve-{port}.log").open("wb") as log:
        process = subprocess.Popen(command, cwd=REPO, env=env, stdout=log, stderr=log)
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_live(url, process)
        yield ServiceProcess(url, process)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
        process.wait(timeout=20)


def _wait_live(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 90  # generous: a loaded machine starts Python slowly
    while time.monotonic() < deadline and process.poll() is None:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        time.sleep(0.05)
    raise RuntimeError(f"`judge serve` at {url} never became live (exit {process.poll()})")
