"""Append-only audit log of every verification, in SQLite.

One row per request in ``records`` (the full request and response JSON, so a request can be
replayed), with its ledger in ``passages`` and one row per verdict in ``verdicts`` for queries.
Triggers refuse UPDATE and DELETE on every table, and this API has no method that changes or
removes a record.

Durability: WAL journal with ``synchronous=FULL``. The service writes the record before it
sends the response, and the promise is that a response someone received has a record; with
``NORMAL`` a power loss may roll back the last committed transactions in WAL mode, which would
break that promise. FULL costs one fsync of the WAL per record, which is small next to a
judge call.

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
import threading
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from judge.audit.migrations import applied, migrate
from judge.config import Settings
from judge.errors import AuditError, InputError
from judge.schemas import ClaimVerdict, VerifyRequest, VerifyResponse

AUDIT_FILENAME = "audit.sqlite3"
BUSY_TIMEOUT_MS = 10_000
_PAGE = 500  # records read per lock acquisition while iterating


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
        return VerifyRequest.model_validate(self.request)

    def verify_response(self) -> VerifyResponse:
        if self.response is None:
            raise AuditError(f"record {self.id} holds no response")
        return VerifyResponse.model_validate(self.response)

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

    @classmethod
    def open(cls, path: Path | str, *, create: bool = True) -> AuditLog:
        """Open the audit log at ``path``, migrating it when older than this version; created
        when absent unless ``create`` is false (readers should not leave empty logs behind)."""
        path = Path(path)
        if not create and not path.is_file():
            raise AuditError(f"no audit log at {path}")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
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
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            migrate(conn)
        except (OSError, sqlite3.Error) as exc:
            conn.close()
            raise AuditError(f"cannot open audit log {path}: {exc}") from exc
        return cls(path, conn)

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
            response.seconds if response is not None else None,
            latency_s,
            request.model_dump_json() if request is not None else None,
            response.model_dump_json() if response is not None else None,
            json.dumps(dict(extra), sort_keys=True, default=str) if extra is not None else None,
        )
        passages = _passage_rows(rid, request) if request is not None else []
        verdicts = _verdict_rows(rid, response.verdicts) if response is not None else []
        with self._lock, self._write() as conn:
            try:
                conn.execute(
                    "INSERT INTO records (id, kind, created_at, created_ts, action, ledger_hash,"
                    " calibration_hash, seconds, latency_s, request_json, response_json,"
                    " extra_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    row,
                )
            except sqlite3.IntegrityError as exc:
                raise AuditError(f"record {rid} already exists") from exc
            conn.executemany("INSERT INTO passages VALUES (?, ?, ?, ?, ?, ?, ?, ?)", passages)
            conn.executemany(
                "INSERT INTO verdicts VALUES "
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                verdicts,
            )
        return rid

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
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
                v.score,
                v.contradiction_score,
                v.reason,
                v.error,
                trace.model if trace else None,
                trace.template if trace else None,
                trace.template_hash if trace else None,
                trace.calibration_hash if trace else None,
                int(trace.cached) if trace else None,
                trace.calls if trace else None,
                trace.latency_s if trace else None,
                v.first_tier_score,
                None if v.agrees_with_first_tier is None else int(v.agrees_with_first_tier),
            )
        )
    return rows


def _to_record(row: tuple[Any, ...]) -> AuditRecord:
    (rid, kind, created_at, action, ledger_hash, calibration_hash, seconds, latency_s,
     request_json, response_json, extra_json) = row  # fmt: skip
    return AuditRecord(
        id=rid,
        kind=kind,
        created_at=datetime.fromisoformat(created_at),
        action=action,
        ledger_hash=ledger_hash,
        calibration_hash=calibration_hash,
        seconds=seconds,
        latency_s=latency_s,
        request=json.loads(request_json) if request_json is not None else None,
        response=json.loads(response_json) if response_json is not None else None,
        extra=json.loads(extra_json) if extra_json is not None else None,
    )
