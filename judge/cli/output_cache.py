"""A `judge verify` run again on the same inputs, answered from the output of an earlier run.

The verdict cache spares a repeated request every judge call, but the repeat still loads the
pipeline and, with the embedded judge, waits for its server: about a second where the checks
and the cached verdicts take a twentieth of that. So `judge verify` also keeps what it printed,
under a key of everything the run read before it ran:

- the command line, the working directory and the environment (less a few shell variables
  that change between identical commands), and whether stdout is a terminal and its size;
- the code: the size and modification time of every file of the package and of every
  directory on ``sys.path`` (installing or removing a package changes its directory), as
  Python's own bytecode cache judges staleness;

and then checks what the run read as it ran, stored with the output:

- the request, config and calibration files, by content (a file that was absent must still
  be absent);
- every verdict-cache entry the output was built from, by content, so that an entry changed,
  evicted or cleared sends the request through the pipeline again.

A run that asked the judge also asks it again: the pipeline checks that the judge answers before
it runs, and a replay does the same, so a judge that is down still stops the command.

When all of it matches, the stored output is printed with a new request id and this run's
time, and no judge, server or pipeline module is loaded. Anything that is absent, unreadable
or different is a miss: the pipeline runs as if this cache did not exist, failing closed as it
always does. Only answers the pipeline decided are stored: never a verifier error, an input
error or limits exceeded, nor a run that writes an audit record or an HTML report (those take
the full path, so the record and the report are written by the code that writes them).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TextIO

from judge.judges.cache_store import DATABASE, open_store, value_digest
from judge.state import cache_directory, default_state_dir, private_dir, private_files

if TYPE_CHECKING:
    import diskcache

Style = Literal["json", "table"]  # how the output shows the run's time

_FORMAT = 2  # 2: the judge endpoints a replay asks again
_PREFIX = "output:"
# Set by the shell, not by the user: they differ between two runs of the same command.
_VOLATILE = frozenset({"_", "OLDPWD", "PWD", "SHLVL"})
JSON_SECONDS = '\n  "seconds": '  # the response's top-level field, as model_dump_json(indent=2)
TABLE_SECONDS = " s"  # the footer's "... judge calls 0  0.00 s"


def store_directory() -> Path:
    """Where the outputs are kept: the verdict cache's own store, so clearing it clears both."""
    return cache_directory(default_state_dir())


def run_key(argv: Sequence[str], out: TextIO) -> str:
    material = {
        "format": _FORMAT,
        "argv": list(argv),
        "cwd": os.getcwd(),
        "environment": {k: v for k, v in sorted(os.environ.items()) if k not in _VOLATILE},
        "terminal": _terminal(out),
        "python": [sys.executable, sys.version, list(sys.flags)],
        "code": list(_code_stamps()),
    }
    encoded = json.dumps(material, sort_keys=True, ensure_ascii=True).encode()
    return _PREFIX + hashlib.sha256(encoded).hexdigest()


def _terminal(out: TextIO) -> list[Any]:
    try:
        tty = out.isatty()
        size = list(os.get_terminal_size(out.fileno())) if tty else None
    except (AttributeError, OSError, ValueError):
        tty, size = False, None
    return [tty, size, getattr(out, "encoding", None)]


def _code_stamps() -> Iterator[list[Any]]:
    package = Path(__file__).resolve().parents[1]
    for root, dirs, files in os.walk(package, followlinks=True):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            info = os.stat(os.path.join(root, name))
            yield [
                os.path.relpath(os.path.join(root, name), package),
                info.st_size,
                info.st_mtime_ns,
            ]
    # sys.path[0] is the script's directory or the working directory, whose files come and go.
    for entry in sys.path[1:]:
        try:
            yield [entry, os.stat(entry).st_mtime_ns]
        except OSError:
            yield [entry, None]


def file_digest(path: Path) -> str | None:
    """The sha256 of a regular file's bytes; ``None`` when nothing is there. Anything else (a
    pipe, a directory, an unreadable file) raises ``OSError``: such an input is never replayed."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        raise OSError(f"{path} is not a regular file")
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass(frozen=True)
class StoredOutput:
    """What one run printed, split around its time, and everything it was built from."""

    head: str
    tail: str
    seconds_style: Style
    request_id: str
    exit_code: int
    files: Mapping[str, str | None]  # absolute path -> file_digest
    verdicts: Mapping[str, str | None]  # verdict-cache key -> value_digest
    endpoints: list[str]  # the judge's base URLs the run checked; none with --no-judge
    probe_timeout_s: float

    def render(self, request_id: str, seconds: float) -> str:
        shown = repr(round(seconds, 4)) if self.seconds_style == "json" else f"{seconds:.2f}"
        return (self.head + shown + self.tail).replace(self.request_id, request_id)

    def to_json(self) -> str:
        return json.dumps({"format": _FORMAT, **asdict(self)})

    @classmethod
    def from_json(cls, raw: object) -> StoredOutput | None:
        if not isinstance(raw, str):
            return None
        try:
            data = json.loads(raw)
            if not isinstance(data, dict) or data.pop("format", None) != _FORMAT:
                return None
            entry = cls(**data)
        except (ValueError, TypeError):
            return None
        fields = (entry.head, entry.tail, entry.request_id)
        if not all(isinstance(f, str) for f in fields) or entry.seconds_style not in (
            "json",
            "table",
        ):
            return None
        if entry.exit_code not in (0, 1) or not entry.request_id:
            return None
        if not isinstance(entry.files, dict) or not isinstance(entry.verdicts, dict):
            return None
        if not isinstance(entry.endpoints, list) or not all(
            isinstance(u, str) for u in entry.endpoints
        ):
            return None
        if not isinstance(entry.probe_timeout_s, (int, float)) or entry.probe_timeout_s <= 0:
            return None
        return entry


def split_at_seconds(text: str, style: Style, request_id: str) -> tuple[str, str] | None:
    """``text`` cut around the time it shows (printed as zero), or ``None`` if it is not there
    exactly once where the response puts it."""
    if style == "json":
        marker = JSON_SECONDS + "0.0"
        at = text.find(marker)
        if at < 0 or text.find(marker, at + 1) >= 0:
            return None
        cut = at + len(JSON_SECONDS)
        return text[:cut], text[cut + len("0.0") :]
    footer = text.rfind(request_id)
    at = text.find("0.00" + TABLE_SECONDS, footer)
    if footer < 0 or at < 0:
        return None
    return text[:at], text[at + len("0.00") :]


def replay(argv: Sequence[str], out: TextIO) -> tuple[int | None, str | None]:
    """Print the stored output of an identical earlier run and return its exit code, or return
    ``None`` (a miss: run the pipeline). The second value is the run's key, for :func:`save`."""
    started = time.perf_counter()
    try:
        key = run_key(argv, out)
    except OSError:
        return None, None
    try:
        entry = _current(key)
    except Exception:  # a miss, whatever went wrong: the pipeline decides, and fails closed
        entry = None
    if entry is None:
        return None, key
    out.write(entry.render(uuid.uuid4().hex, time.perf_counter() - started))
    out.flush()
    return entry.exit_code, key


def _current(key: str) -> StoredOutput | None:
    directory = store_directory()
    if not (directory / DATABASE).is_file():
        return None
    store = open_store(directory)
    try:
        entry = StoredOutput.from_json(store.get(key, default=None))
        if entry is None or not _verdicts_unchanged(store, entry.verdicts):
            return None
    finally:
        store.close()
    for path, digest in entry.files.items():
        if file_digest(Path(path)) != digest:
            return None
    if entry.endpoints and not any(_answers(u, entry.probe_timeout_s) for u in entry.endpoints):
        return None  # the pipeline would stop at its preflight: let it say why
    return entry


def _answers(base_url: str, timeout: float) -> bool:
    """Whether the judge at ``base_url`` answers, as the pipeline's preflight asks it
    (judge/cli/preflight.py): it connects, and does not refuse with 401 or 403. A slow answer
    counts; no credentials are sent, so a server that wants them is left to the pipeline."""
    import http.client
    import urllib.parse

    parts = urllib.parse.urlsplit(f"{base_url.rstrip('/')}/models")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return False
    connection_type = (
        http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    )
    connection = connection_type(parts.hostname, parts.port, timeout=timeout)
    try:
        connection.connect()
    except OSError:
        return False
    try:
        connection.request("GET", parts.path)
        status = connection.getresponse().status
    except TimeoutError:
        return True  # connected, and busy
    except (OSError, http.client.HTTPException):
        return False
    finally:
        connection.close()
    return status not in (401, 403)


def _verdicts_unchanged(store: diskcache.Cache, verdicts: Mapping[str, str | None]) -> bool:
    for key, digest in verdicts.items():
        value = store.get(key, default=None)
        if value is not None and not isinstance(value, str):
            return False
        if value_digest(value) != digest:
            return False
    return True


def save(key: str, entry: StoredOutput) -> None:
    """Keep ``entry`` under ``key`` in the store; raises what the store raises."""
    directory = private_dir(store_directory())
    store = open_store(directory)
    try:
        store.set(key, entry.to_json())
    finally:
        store.close()
    private_files(directory)
