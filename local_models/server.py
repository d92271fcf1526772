"""Lifecycle of the local OpenAI-compatible judge server.

The server runs as a detached process (its own session, so Ctrl-C in the terminal that started
it does not reach it) and outlives the command that started it; the next ``judge verify``
finds it through a state file and reuses it. The llama.cpp server stops itself once it has gone
``local_idle_timeout_s`` without a request while no process holds it open (``idle.py``,
``holders.py``); ``stop_server`` returns once its processes have exited. Everything lives under
``settings.state_dir / "server"``: ``server.json`` (pid, port, model, backend, started_at),
``server.log`` and ``.lock``, which serialises starts and stops across processes.

Every wait has a deadline. A server that exits or never becomes healthy is killed and reported
as ``LocalServerError`` with the last lines of its log.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx

from judge.config import Settings
from judge.errors import ConfigError, LocalServerError
from judge.state import FILE_MODE, private_dir, private_file

from .backends import LaunchPlan, plan_launch
from .files import file_lock, read_json, tail, write_json_atomic
from .holders import holding
from .registry import Backend, check_backend
from .weights import Progress

_START_LOCK_TIMEOUT_S = 1200.0  # longer than any start: weights assembly plus vLLM start-up
_STOP_LOCK_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 20.0  # SIGTERM to SIGKILL, unless the caller says otherwise
_KILL_WAIT_S = 5.0
_HEALTH_TIMEOUT_S = 2.0
_POLL_S = 0.2
_START_ATTEMPTS = 3


@dataclass(frozen=True)
class ServerInfo:
    base_url: str  # http://127.0.0.1:PORT/v1, for the openai client
    model_id: str  # the model name to send in requests
    model: str  # registry name, or the name of a custom model
    backend: Backend
    pid: int
    port: int
    log_path: Path
    started_at: float  # Unix time
    idle_timeout_s: float = 0.0  # it stops itself after this long unused; 0: never

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["log_path"] = str(self.log_path)
        return data

    @classmethod
    def from_json(cls, data: Any) -> ServerInfo | None:
        try:
            return cls(
                base_url=str(data["base_url"]),
                model_id=str(data["model_id"]),
                model=str(data["model"]),
                backend=check_backend(str(data["backend"])),
                pid=int(data["pid"]),
                port=int(data["port"]),
                log_path=Path(str(data["log_path"])),
                started_at=float(data["started_at"]),
                idle_timeout_s=float(data.get("idle_timeout_s", 0.0)),
            )
        except (KeyError, TypeError, ValueError, ConfigError):  # torn, foreign or older file
            return None


def server_dir(settings: Settings) -> Path:
    return settings.state_dir / "server"


def _state_path(settings: Settings) -> Path:
    return server_dir(settings) / "server.json"


def _lock_path(settings: Settings) -> Path:
    return server_dir(settings) / ".lock"


def log_path(settings: Settings) -> Path:
    return server_dir(settings) / "server.log"


# --- queries -----------------------------------------------------------------------------------


def recorded_server(settings: Settings) -> ServerInfo | None:
    """The server the state file names, if its process is still ours and alive.

    A state file whose process is gone is stale and is removed.
    """
    path = _state_path(settings)
    raw = read_json(path)
    info = ServerInfo.from_json(raw)
    if info is not None and _is_our_server(info):
        return info
    # Unlocked readers may race a start that has just written a fresh record: remove only
    # the record that was judged stale.
    if raw is not None and read_json(path) == raw:
        path.unlink(missing_ok=True)
    return None


def is_healthy(info: ServerInfo) -> bool:
    """The server answers /health and lists the expected model id."""
    root = info.base_url.removesuffix("/v1")
    try:
        with httpx.Client(timeout=_HEALTH_TIMEOUT_S, trust_env=False) as client:
            if client.get(f"{root}/health").status_code != 200:
                return False
            models = client.get(f"{info.base_url}/models")
            if models.status_code != 200:
                return False
            ids = {m.get("id") for m in models.json().get("data", []) if isinstance(m, dict)}
    except (httpx.HTTPError, ValueError, AttributeError):
        return False
    return info.model_id in ids


def server_status(settings: Settings) -> ServerInfo | None:
    """The running server if it is alive and healthy, else None."""
    info = recorded_server(settings)
    if info is None or not is_healthy(info):
        return None
    return info


# --- start / stop ------------------------------------------------------------------------------


def start_server(
    settings: Settings,
    model: str | None = None,
    backend: str = "llamacpp",
    model_dir: Path | None = None,
    progress: Progress | None = None,
) -> ServerInfo:
    """Start a server for ``model`` (default: ``settings.local_model``), replacing any running one.

    ``model_dir`` is, for vLLM, a Hugging Face safetensors folder (default: the folder
    ``convert_gguf`` writes for the model); for llama.cpp, a GGUF file (or a folder with one)
    served without a registry checksum.
    """
    checked = check_backend(backend)
    with file_lock(_lock_path(settings), _START_LOCK_TIMEOUT_S, "the local server lock"):
        return _start_locked(settings, model, checked, model_dir, progress)


def ensure_server(settings: Settings, progress: Progress | None = None) -> ServerInfo:
    """A healthy server for ``settings.local_model``: the running one if it serves that model
    (whatever its backend), else a freshly started llama.cpp server."""
    info = server_status(settings)
    if info is not None and info.model == settings.local_model:
        return info
    with file_lock(_lock_path(settings), _START_LOCK_TIMEOUT_S, "the local server lock"):
        # Another process may have started it while this one waited for the lock.
        info = server_status(settings)
        if info is not None and info.model == settings.local_model:
            return info
        return _start_locked(settings, settings.local_model, "llamacpp", None, progress)


@dataclass(frozen=True)
class Stopped:
    """How a server stop ended: it returns only once the server's processes are gone."""

    info: ServerInfo
    seconds: float
    killed: bool  # it outlived SIGTERM's deadline and was killed


def stop_server(settings: Settings, timeout_s: float = STOP_TIMEOUT_S) -> Stopped | None:
    """Stop the recorded server and wait until its processes have exited: SIGTERM, then
    SIGKILL after ``timeout_s``. None if no server was running."""
    with file_lock(_lock_path(settings), _STOP_LOCK_TIMEOUT_S, "the local server lock"):
        return _stop_locked(settings, None, timeout_s)


@contextlib.contextmanager
def holding_embedded(settings: Settings) -> Iterator[None]:
    """While the block runs, the embedded server (the one used when no ``base_url`` is set)
    does not stop for being idle. Take hold before looking for the server, so it cannot retire
    between being found and being used."""
    if settings.base_url:
        yield
        return
    with holding(server_dir(settings)):
        yield


def _start_locked(
    settings: Settings,
    model: str | None,
    backend: Backend,
    model_dir: Path | None,
    progress: Progress | None,
) -> ServerInfo:
    """Replace the running server, if any, with a new one."""
    say = progress or (lambda _msg: None)
    for attempt in range(1, _START_ATTEMPTS + 1):
        port = _free_port()
        # Planning validates the request and prepares the weights: a typo in a model name must
        # fail before the running server is stopped.
        plan = plan_launch(
            settings, model, backend, model_dir, port, progress, _state_path(settings)
        )
        _stop_locked(settings, progress)
        try:
            return _spawn(settings, plan, port, say)
        except _PortTaken:
            # Another program took the free port between the probe and the bind.
            if attempt == _START_ATTEMPTS:
                raise LocalServerError(
                    f"the local server could not bind a free port in {_START_ATTEMPTS} attempts; "
                    f"see {log_path(settings)}"
                ) from None
    raise AssertionError("unreachable")


class _PortTaken(Exception):
    pass


def _spawn(settings: Settings, plan: LaunchPlan, port: int, say: Progress) -> ServerInfo:
    log = log_path(settings)
    private_dir(settings.state_dir)
    private_dir(log.parent)
    say(f"starting {plan.backend} server for {plan.model} on 127.0.0.1:{port} (log: {log})")
    started = time.time()
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    private_file(log)
    with os.fdopen(fd, "wb") as log_fh:
        try:
            proc = subprocess.Popen(
                plan.argv,
                stdin=subprocess.DEVNULL,
                stdout=log_fh,
                stderr=subprocess.STDOUT,
                cwd=log.parent,
                env={**os.environ, **plan.env},
                start_new_session=True,  # detached: survives this process and its terminal
                close_fds=True,
            )
        except OSError as exc:
            raise LocalServerError(f"cannot run {plan.argv[0]}: {exc}") from exc
    info = ServerInfo(
        base_url=f"http://127.0.0.1:{port}/v1",
        model_id=plan.model_id,
        model=plan.model,
        backend=plan.backend,
        pid=proc.pid,
        port=port,
        log_path=log,
        started_at=started,
        idle_timeout_s=plan.idle_timeout_s,
    )
    # Recorded before it is healthy, so a start interrupted by a crash can still be stopped.
    write_json_atomic(_state_path(settings), info.to_json())
    try:
        _wait_healthy(proc, info, plan, say)
    except BaseException as exc:
        _terminate(proc.pid, proc)
        _state_path(settings).unlink(missing_ok=True)
        if isinstance(exc, LocalServerError) and _bind_failed(log):
            raise _PortTaken from exc
        raise
    say(f"{plan.backend} server ready after {time.time() - started:.1f} s at {info.base_url}")
    return info


def _wait_healthy(
    proc: subprocess.Popen[bytes], info: ServerInfo, plan: LaunchPlan, say: Progress
) -> None:
    begun = time.monotonic()
    deadline = begun + plan.ready_timeout_s
    next_note = time.monotonic() + 15.0
    while True:
        code = proc.poll()
        if code is not None:
            raise LocalServerError(
                f"the {plan.backend} server for {plan.model} exited with code {code} while "
                f"starting; last lines of {info.log_path}:\n{tail(info.log_path)}"
            )
        if is_healthy(info):
            return
        now = time.monotonic()
        if now >= deadline:
            raise LocalServerError(
                f"the {plan.backend} server for {plan.model} was not healthy after "
                f"{plan.ready_timeout_s:.0f} s; last lines of {info.log_path}:\n"
                f"{tail(info.log_path)}"
            )
        if now >= next_note:
            say(f"waiting for the {plan.backend} server ({now - begun:.0f} s)")
            next_note = now + 15.0
        time.sleep(_POLL_S)


def _bind_failed(log: Path) -> bool:
    text = tail(log, lines=60).lower()
    return "couldn't bind" in text or "address already in use" in text


def _stop_locked(
    settings: Settings, progress: Progress | None, timeout_s: float = STOP_TIMEOUT_S
) -> Stopped | None:
    info = recorded_server(settings)
    if info is None:
        return None
    if progress is not None:
        progress(f"stopping the {info.backend} server for {info.model} (pid {info.pid})")
    started = time.monotonic()
    killed = _terminate(info.pid, None, timeout_s)
    _state_path(settings).unlink(missing_ok=True)
    return Stopped(info, time.monotonic() - started, killed)


def _terminate(
    pid: int, proc: subprocess.Popen[bytes] | None, timeout_s: float = STOP_TIMEOUT_S
) -> bool:
    """SIGTERM the server's process group (vLLM runs engine workers), SIGKILL after
    ``timeout_s``; return once the server and the rest of its group are gone. True if it had
    to be killed."""
    for sig, wait_s in ((signal.SIGTERM, timeout_s), (signal.SIGKILL, _KILL_WAIT_S)):
        try:
            try:
                os.killpg(pid, sig)  # the server leads its own session: its group id is its pid
            except ProcessLookupError:
                os.kill(pid, sig)  # not a group leader after all: signal the process alone
        except ProcessLookupError:
            return sig == signal.SIGKILL
        except PermissionError:
            raise LocalServerError(f"not allowed to stop the local server (pid {pid})") from None
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if not _alive(pid, proc) and not _group_members(pid):
                return sig == signal.SIGKILL
            time.sleep(0.1)
    if _alive(pid, proc) or _group_members(pid):
        raise LocalServerError(f"the local server (pid {pid}) survived SIGKILL")
    return True


# --- process checks ----------------------------------------------------------------------------


def _alive(pid: int, proc: subprocess.Popen[bytes] | None = None) -> bool:
    if proc is not None:
        return proc.poll() is None
    try:
        # Reap it if it is our child: otherwise a dead server lingers as a zombie that kill(0)
        # still reports alive.
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return False
    except ChildProcessError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return _proc_state(pid) not in ("Z", "X")


def _group_members(pgid: int) -> list[int]:
    """The live (not zombie) processes of process group ``pgid`` (empty without /proc)."""
    members = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        # fields[0] is the state, fields[2] the process group.
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] not in ("Z", "X"):
            members.append(int(entry.name))
    return members


def _proc_state(pid: int) -> str | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rpartition(")")[2].split()[0]


def _is_our_server(info: ServerInfo) -> bool:
    """Alive, and (where /proc exists) still the command we started: a recycled pid is not."""
    if not _alive(info.pid):
        return False
    try:
        args = Path(f"/proc/{info.pid}/cmdline").read_bytes().split(b"\0")
    except FileNotFoundError:
        return not Path("/proc/self").exists()  # no procfs (macOS): trust the pid
    except OSError:
        return True
    return b"--port" in args and str(info.port).encode() in args


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port
