"""Append-only audit log of every verification, in SQLite.

One row per request in ``records`` (the full request and response JSON, so a request can be
replayed), with its ledger in ``passages`` and one row per verdict in ``verdicts`` for queries.
Triggers refuse UPDATE and DELETE on every table, and this API has no method that changes or
removes a record.

Durability: a rollback journal (``journal_mode=DELETE``) with ``synchronous=FULL``, and no
memory-mapped I/O. The service writes the record before it sends the response, and the promise
is that a response someone received has a record. WAL mode would need the ``-shm`` file, which
SQLite maps into memory: a ``-shm`` truncated or made unwritable under a running process kills
it with SIGBUS. Without shared memory the same faults are SQLite errors, so answers are
withheld (503) instead. FULL costs a few fsyncs per record, small next to a judge call.

Truthfulness: before and after every write the file at ``path`` must still be the file that was
opened (same device and inode) and writable by its owner; a log deleted, moved, replaced or
made read-only under a running process refuses the write instead of recording into a file
nobody will read. Every record carries a hash chain (:mod:`judge.audit.chain`), so changes made
outside this class show up in :meth:`AuditLog.verify_chain`.

Concurrency: one connection per ``AuditLog`` guarded by a lock (threads of one process), and
SQLite's file locks with a busy timeout between processes; writes take the write lock up front
(``BEGIN IMMEDIATE``) so concurrent writers queue instead of failing on lock upgrade.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import stat
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from pydantic import ValidationError

from judge.audit.chain import ChainReport, check_record, head_hash, record_digest, verify_chain
from judge.audit.migrations import TRIGGERS, applied, migrate
from judge.config import Settings
from judge.errors import AuditError, DuplicateRecord, InputError
from judge.schemas import ClaimVerdict, VerifyRequest, VerifyResponse
from judge.state import private_dir

AUDIT_FILENAME = "audit.sqlite3"
BUSY_TIMEOUT_MS = 10_000
_PAGE = 500  # records read per lock acquisition while iterating
MIN_FREE_BYTES = 1 << 20  # below this much free disk the log reports itself full
MIN_FREE_PAGES = 64  # nor when fewer pages than this are left under max_page_count
FAULT_HOLD_S = 30.0  # how long a failed write keeps the log "not ready" after the fact


def default_audit_path(settings: Settings) -> Path:
    return settings.state_dir / AUDIT_FILENAME


_RELATIVE = re.compile(r"^(\d+)([smhdw])$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_since(text: str, now: datetime | None = None) -> datetime:
    """``1h``, ``30m``, ``7d``, ``2w``, ``90s`` ago, or an ISO 8601 time (UTC when no zone)."""
    value = text.strip()
    match = _RELATIVE.match(value)
    if match:
        seconds = int(match.group(1)) * _UNIT_SECONDS[match.group(2)]
        return (now or datetime.now(UTC)) - timedelta(seconds=seconds)
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise InputError(
            f"{text!r} is neither a duration (1h, 7d) nor an ISO 8601 time", field="since"
        ) from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class AuditRecord:
    """One logged request. ``request`` and ``response`` are the JSON the models dumped."""

    id: str
    kind: str
    created_at: datetime
    action: str | None
    ledger_hash: str | None
    calibration_hash: str | None
    seconds: float | None
    latency_s: float | None
    request: dict[str, Any] | None
    response: dict[str, Any] | None
    extra: dict[str, Any] | None

    def verify_request(self) -> VerifyRequest:
        if self.request is None:
            raise AuditError(f"record {self.id} holds no request")
        try:
            return VerifyRequest.model_validate(self.request)
        except ValidationError as exc:
            raise AuditError(f"record {self.id} holds no valid request: {_first(exc)}") from None

    def verify_response(self) -> VerifyResponse:
        if self.response is None:
            raise AuditError(f"record {self.id} holds no response")
        try:
            return VerifyResponse.model_validate(self.response)
        except ValidationError as exc:
            raise AuditError(f"record {self.id} holds no valid response: {_first(exc)}") from None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "created_at": self.created_at.isoformat(),
            "action": self.action,
            "ledger_hash": self.ledger_hash,
            "calibration_hash": self.calibration_hash,
            "seconds": self.seconds,
            "latency_s": self.latency_s,
            "request": self.request,
            "response": self.response,
            "extra": self.extra,
        }


_RECORD_COLUMNS = (
    "id, kind, created_at, action, ledger_hash, calibration_hash, seconds, latency_s, "
    "request_json, response_json, extra_json"
)


class AuditLog:
    """The audit log at one path. Open with :meth:`open`; usable from many threads."""

    def __init__(self, path: Path, conn: sqlite3.Connection) -> None:
        self.path = path
        self._conn = conn
        self._lock = threading.Lock()
        opened = os.stat(path)
        self._identity = (opened.st_dev, opened.st_ino)
        self._write_fault: tuple[float, str] | None = None  # (monotonic time, message)

    @classmethod
    def open(cls, path: Path | str, *, create: bool = True) -> AuditLog:
        """Open the audit log at ``path``, migrating it when older than this version; created
        when absent unless ``create`` is false (readers should not leave empty logs behind)."""
        path = Path(path)
        if not create and not path.is_file():
            raise AuditError(f"no audit log at {path}")
        try:
            # A folder made here is owner-only; one the caller chose is left as it is.
            private_dir(path.parent, tighten=False)
            fresh = not path.exists()
            conn = sqlite3.connect(
                path,
                isolation_level=None,
                check_same_thread=False,
                timeout=BUSY_TIMEOUT_MS / 1000,
            )
        except (OSError, sqlite3.Error) as exc:
            raise AuditError(f"cannot open audit log {path}: {exc}") from exc
        try:
            if fresh:
                # Evidence texts can be confidential: the log is readable by its owner only.
                # SQLite gives the -wal and -shm files the same permissions.
                os.chmod(path, 0o600)
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA mmap_size = 0")
            conn.execute("PRAGMA journal_mode = DELETE")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            migrate(conn)
            log = cls(path, conn)
        except (OSError, sqlite3.Error) as exc:
            conn.close()
            raise AuditError(f"cannot open audit log {path}: {exc}") from exc
        problem = log.fault() if create else None
        if problem is not None:
            log.close()
            raise AuditError(problem)
        return log

    @classmethod
    def for_settings(cls, settings: Settings) -> AuditLog:
        return cls.open(default_audit_path(settings))

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # Writing.

    def record(
        self,
        request: VerifyRequest | None,
        response: VerifyResponse | None,
        *,
        kind: str = "verify",
        extra: Mapping[str, Any] | None = None,
        latency_s: float | None = None,
        record_id: str | None = None,
    ) -> str:
        """Append one record with its ledger and verdicts; returns its id.

        The id is ``record_id``, else ``response.request_id``, else a new random id. ``extra``
        is any JSON-serialisable detail (for example the step of a multi-step answer).
        """
        rid = record_id or (response.request_id if response is not None else uuid.uuid4().hex)
        now = datetime.now(UTC)
        row = (
            rid,
            kind,
            now.isoformat(),
            now.timestamp(),
            response.action.value if response is not None else None,
            response.ledger_hash if response is not None else None,
            response.calibration_hash if response is not None else None,
            _real(response.seconds) if response is not None else None,
            _real(latency_s),
            request.model_dump_json() if request is not None else None,
            response.model_dump_json() if response is not None else None,
            json.dumps(dict(extra), sort_keys=True, default=str) if extra is not None else None,
        )
        passages = _passage_rows(rid, request) if request is not None else []
        verdicts = _verdict_rows(rid, response.verdicts) if response is not None else []
        with self._lock, self._write() as conn:
            prev = head_hash(conn)
            digest = record_digest(prev, row, passages, verdicts)
            try:
                conn.execute(
                    "INSERT INTO records (id, kind, created_at, created_ts, action, ledger_hash,"
                    " calibration_hash, seconds, latency_s, request_json, response_json,"
                    " extra_json, prev_hash, record_hash)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (*row, prev, digest),
                )
            except sqlite3.IntegrityError as exc:
                raise DuplicateRecord(f"record {rid} already exists") from exc
            conn.executemany("INSERT INTO passages VALUES (?, ?, ?, ?, ?, ?, ?, ?)", passages)
            conn.executemany(
                "INSERT INTO verdicts VALUES "
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                verdicts,
            )
        return rid

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        try:
            with self._transaction() as conn:
                yield conn
            # A file swapped in while this one committed means the record went where nobody
            # will read it: the write did not happen as far as the caller is concerned.
            self._refuse_if_faulty()
        except DuplicateRecord:
            raise
        except AuditError as exc:
            self._write_fault = (time.monotonic(), str(exc))
            raise
        self._write_fault = None

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._refuse_if_faulty()
        conn = self._conn
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise AuditError(f"cannot write audit log {self.path}: {exc}") from exc
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException as exc:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise AuditError(f"cannot write audit log {self.path}: {exc}") from exc
            raise

    def _refuse_if_faulty(self) -> None:
        problem = self._file_fault()
        if problem is not None:
            raise AuditError(problem)

    # Health.

    def _file_fault(self) -> str | None:
        """What is wrong with the file at ``path`` for writing, checked with two stats: gone,
        another file, or read-only (by its mode, which also binds a root-owned process)."""
        try:
            now = os.stat(self.path)
        except FileNotFoundError:
            return f"audit log {self.path} was deleted or moved while open"
        except OSError as exc:
            return f"audit log {self.path} cannot be inspected: {exc.strerror}"
        if (now.st_dev, now.st_ino) != self._identity:
            return f"audit log {self.path} was replaced by another file while open"
        if not now.st_mode & stat.S_IWUSR or not os.access(self.path, os.W_OK):
            return f"audit log {self.path} is read-only"
        parent = self.path.parent
        # The rollback journal is created next to the log on every write.
        if not os.stat(parent).st_mode & stat.S_IWUSR or not os.access(parent, os.W_OK):
            return f"directory {parent} of the audit log is read-only"
        return None

    def fault(self) -> str | None:
        """Why a write would fail now, or ``None`` when the log is fit to record: the file
        checks of every write, free space (disk and SQLite's page limit), and a write that
        failed within the last :data:`FAULT_HOLD_S` seconds."""
        problem = self._file_fault()
        if problem is not None:
            return problem
        try:
            disk = os.statvfs(self.path.parent)
            with self._lock:
                page_size, page_count, max_pages = (
                    int(self._conn.execute(f"PRAGMA {name}").fetchone()[0])
                    for name in ("page_size", "page_count", "max_page_count")
                )
        except (OSError, sqlite3.Error) as exc:
            return f"cannot read audit log {self.path}: {exc}"
        free = disk.f_bavail * disk.f_frsize
        if free < max(MIN_FREE_BYTES, MIN_FREE_PAGES * page_size):
            return f"audit log {self.path} is full: {free} bytes free on its disk"
        if max_pages - page_count < MIN_FREE_PAGES:
            return f"audit log {self.path} is full: {page_count} of {max_pages} pages used"
        recent = self._write_fault
        if recent is not None and time.monotonic() - recent[0] < FAULT_HOLD_S:
            return f"last write failed: {recent[1]}"
        return None

    def verify_chain(self) -> ChainReport:
        """Check every record's hash and link (see :mod:`judge.audit.chain`)."""
        try:
            with self._lock:
                return verify_chain(self._conn, TRIGGERS)
        except sqlite3.Error as exc:
            raise AuditError(f"cannot read audit log {self.path}: {exc}") from exc

    def limit_pages(self, max_pages: int) -> int:
        """Cap the log's size at ``max_pages`` pages (SQLite's ``max_page_count``, for this
        connection); returns the cap in force, which is never below the pages in use."""
        try:
            with self._lock:
                row = self._conn.execute(f"PRAGMA max_page_count = {int(max_pages)}").fetchone()
        except sqlite3.Error as exc:
            raise AuditError(f"cannot limit audit log {self.path}: {exc}") from exc
        return int(row[0])

    def page_count(self) -> int:
        return int(self._query("PRAGMA page_count", ())[0][0])

    def holds_hash(self, record_hash: str) -> bool:
        rows = self._query("SELECT 1 FROM records WHERE record_hash = ?", (record_hash,))
        return bool(rows)

    def check_record(self, record_id: str) -> str | None:
        """Why one record cannot be trusted, or ``None`` when its hash and link hold."""
        try:
            with self._lock:
                return check_record(self._conn, record_id)
        except sqlite3.Error as exc:
            raise AuditError(f"cannot read audit log {self.path}: {exc}") from exc

    # Reading.

    def get(self, record_id: str) -> AuditRecord | None:
        rows = self._query(f"SELECT {_RECORD_COLUMNS} FROM records WHERE id = ?", (record_id,))
        return _to_record(rows[0]) if rows else None

    def iter_since(
        self, since: datetime | None = None, *, kind: str | None = None
    ) -> Iterator[AuditRecord]:
        """Records created at or after ``since`` (all when None), oldest first."""
        start = since.timestamp() if since is not None else float("-inf")
        last_rowid = -1
        kind_clause = " AND kind = ?" if kind is not None else ""
        while True:
            params: tuple[Any, ...] = (start, last_rowid)
            if kind is not None:
                params += (kind,)
            rows = self._query(
                f"SELECT rowid, {_RECORD_COLUMNS} FROM records "
                f"WHERE created_ts >= ? AND rowid > ?{kind_clause} ORDER BY rowid LIMIT {_PAGE}",
                params,
            )
            for row in rows:
                yield _to_record(row[1:])
            if len(rows) < _PAGE:
                return
            last_rowid = rows[-1][0]

    def count(self, kind: str | None = None) -> int:
        if kind is None:
            rows = self._query("SELECT count(*) FROM records", ())
        else:
            rows = self._query("SELECT count(*) FROM records WHERE kind = ?", (kind,))
        return int(rows[0][0])

    def migrations(self) -> list[str]:
        """Names of the applied migrations, oldest first (also a cheap readability probe)."""
        try:
            with self._lock:
                return applied(self._conn)
        except sqlite3.Error as exc:
            raise AuditError(f"cannot read audit log {self.path}: {exc}") from exc

    def integrity_check(self) -> str:
        """SQLite's own check of the file: ``"ok"`` when sound."""
        rows = self._query("PRAGMA integrity_check", ())
        return "; ".join(str(r[0]) for r in rows)

    def _query(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        try:
            with self._lock:
                return list(self._conn.execute(sql, params).fetchall())
        except sqlite3.Error as exc:
            raise AuditError(f"cannot read audit log {self.path}: {exc}") from exc


def _real(value: float | None) -> float | None:
    """As a REAL column stores it, so that the hash of what is written matches what is read."""
    return None if value is None else float(value)


def _first(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"]) or "(root)"
    return f"{where}: {error['msg']}"


def _passage_rows(rid: str, request: VerifyRequest) -> list[tuple[Any, ...]]:
    return [
        (
            rid,
            position,
            p.id,
            p.hash,
            p.source,
            p.text,
            p.timestamp.isoformat() if p.timestamp else None,
            p.trust_tier,
        )
        for position, p in enumerate(request.evidence)
    ]


def _verdict_rows(rid: str, verdicts: list[ClaimVerdict]) -> list[tuple[Any, ...]]:
    rows: list[tuple[Any, ...]] = []
    for position, v in enumerate(verdicts):
        trace = v.judge
        rows.append(
            (
                rid,
                position,
                v.claim.id,
                v.claim.text,
                v.claim.origin.value,
                json.dumps(list(v.claim.citations)),
                v.label.value,
                _real(v.score),
                _real(v.contradiction_score),
                v.reason,
                v.error,
                trace.model if trace else None,
                trace.template if trace else None,
                trace.template_hash if trace else None,
                trace.calibration_hash if trace else None,
                int(trace.cached) if trace else None,
                trace.calls if trace else None,
                _real(trace.latency_s) if trace else None,
                _real(v.first_tier_score),
                None if v.agrees_with_first_tier is None else int(v.agrees_with_first_tier),
            )
        )
    return rows


def _to_record(row: tuple[Any, ...]) -> AuditRecord:
    """A stored row as a record; a row that does not parse (written outside this class) is an
    :class:`AuditError`, not a crash of whoever reads it."""
    (rid, kind, created_at, action, ledger_hash, calibration_hash, seconds, latency_s,
     request_json, response_json, extra_json) = row  # fmt: skip
    try:
        return AuditRecord(
            id=str(rid),
            kind=str(kind),
            created_at=datetime.fromisoformat(created_at),
            action=action,
            ledger_hash=ledger_hash,
            calibration_hash=calibration_hash,
            seconds=seconds,
            latency_s=latency_s,
            request=_json_object(request_json),
            response=_json_object(response_json),
            extra=_json_object(extra_json),
        )
    except (TypeError, ValueError) as exc:
        raise AuditError(f"record {rid} is unreadable: {exc}") from None


def _json_object(text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError("a JSON column holds no object")
    return value
