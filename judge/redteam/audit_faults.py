"""The audit-faults family: break the audit log under a running service and count the answers
released without a record.

Each fault runs against a fresh service (the real ASGI app with the rule-based fake judge) in a
forked process, so a fault that kills the process (SIGBUS from a memory-mapped file) is counted
as a crash instead of ending the run. Two answers are served before the fault, three after.
An answer with HTTP 200 whose request id is not in the file at the log's path is unrecorded
(answers before the fault are checked before it is applied, those after it at the end);
the family passes when there are none, nothing crashed, and the fault was noticed: readiness
503 for a log that cannot take writes, ``judge audit verify`` naming a broken link for
tampering. ``-shm`` faults must change nothing: the log and the verdict cache use no shared
memory.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import httpx

from judge.audit.log import AuditLog
from judge.config import Settings
from judge.errors import AuditError
from judge.judges.cache import VerdictCache
from judge.pipeline.entail.llm_judge import build_http_judge
from judge.testing.rule_judge import FAKE_BASE_URL, FAKE_MODEL, RuleJudge

FAMILY = "audit-faults"
BEFORE, AFTER = 2, 3  # answers served before and after the fault
TIME_LIMIT_S = 60.0

REQUEST: dict[str, Any] = {
    "evidence": [
        {
            "id": "P1",
            "source": "docs/policy.md",
            "text": "Unopened items may be returned within 30 days of delivery for a refund.",
        }
    ],
    "claims": [{"text": "Unopened items may be returned within 30 days.", "chunk_id": "P1"}],
}

Breaker = Callable[[Path, AuditLog], None]


@dataclass(frozen=True)
class Fault:
    name: str
    about: str
    apply: Breaker
    writable_after: bool = False  # the log can still take writes: answers must be 200
    tamper: bool = False  # `judge audit verify` must name a broken link


@dataclass
class FaultRun:
    fault: str
    statuses: list[int] = field(default_factory=list)  # of the answers after the fault
    unrecorded: int = 0  # 200s whose record is not in the file at the log's path
    ready_status: int = 0
    ready_audit: str = ""  # what /readyz says about the audit log
    chain: str = ""  # what `judge audit verify` says
    detail: str = ""  # what the service said, or why the run failed
    crashed: bool = False
    passed: bool = False

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _delete(path: Path, _: AuditLog) -> None:
    path.unlink()


def _replace(path: Path, _: AuditLog) -> None:
    other = path.with_name("other.sqlite3")
    AuditLog.open(other).close()
    os.replace(other, path)


def _read_only(path: Path, _: AuditLog) -> None:
    path.chmod(0o400)


def _full(_: Path, log: AuditLog) -> None:
    log.limit_pages(log.page_count())


def _unwritable_shm(path: Path, _: AuditLog) -> None:
    # What kills a process that maps -shm: the file truncated and made read-only under it.
    for shm in (Path(f"{path}-shm"), *path.parent.glob("cache/*-shm")):
        shm.write_bytes(b"")
        shm.chmod(0o400)
    cache_shm = path.parent / "cache" / "cache.db-shm"
    if not cache_shm.exists():
        cache_shm.write_bytes(b"")
        cache_shm.chmod(0o400)


def _raw(path: Path, *statements: str) -> None:
    """Statements from another process with write access to the file (foreign keys off)."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        for statement in statements:
            conn.execute(statement)
    finally:
        conn.close()


def _first_id(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return str(conn.execute("SELECT id FROM records ORDER BY rowid LIMIT 1").fetchone()[0])
    finally:
        conn.close()


def _tamper_replace(path: Path, _: AuditLog) -> None:
    rid = _first_id(path)
    replace = (
        "REPLACE INTO records (id, kind, created_at, created_ts, action, request_json, "
        "response_json, prev_hash, record_hash) SELECT id, kind, created_at, created_ts, "
        "'block', request_json, replace(response_json, '\"pass\"', '\"block\"'), "
        f"prev_hash, record_hash FROM records WHERE id = '{rid}'"
    )
    with contextlib.suppress(sqlite3.IntegrityError):
        _raw(path, replace)  # refused by the log's no-replace trigger
    _raw(path, "DROP TRIGGER records_no_replace", replace)


def _tamper_delete(path: Path, _: AuditLog) -> None:
    rid = _first_id(path)
    _raw(path, "DROP TRIGGER records_no_delete", f"DELETE FROM records WHERE id = '{rid}'")


def _tamper_drop(path: Path, _: AuditLog) -> None:
    _raw(path, "DROP TABLE verdicts")


def _tamper_forge(path: Path, _: AuditLog) -> None:
    _raw(
        path,
        "INSERT INTO records (id, kind, created_at, created_ts, action, prev_hash, record_hash) "
        "VALUES ('forged', 'verify', '2026-01-01T00:00:00+00:00', 1767225600.0, 'pass', "
        f"'{'0' * 64}', '{'f' * 64}')",
    )


FAULTS: tuple[Fault, ...] = (
    Fault("deleted", "the log file deleted while the service runs", _delete),
    Fault("replaced", "another SQLite file moved into the log's place", _replace),
    Fault("read-only", "the log file made read-only (mode 0400)", _read_only),
    Fault("full", "no page left for the log (SQLite's max_page_count)", _full),
    Fault(
        "unwritable-shm",
        "-shm files of the log and the verdict cache truncated and made read-only",
        _unwritable_shm,
        writable_after=True,
    ),
    Fault("tampered-replace", "a record REPLACEd with another action", _tamper_replace, True, True),
    Fault("tampered-delete", "the first record DELETEd", _tamper_delete, True, True),
    Fault("tampered-drop", "the verdicts table DROPped", _tamper_drop, False, True),
    Fault("tampered-forge", "a record INSERTed with made-up hashes", _tamper_forge, True, True),
)


def run_fault(fault: Fault, settings: Settings, workdir: Path) -> FaultRun:
    """One fault against a fresh service in this process (see :func:`run_isolated`)."""
    from fastapi.testclient import TestClient

    from judge.service.app import ServeOptions, create_app

    result = FaultRun(fault.name)
    path = workdir / "audit.sqlite3"
    settings = settings.model_copy(
        update={"state_dir": workdir, "base_url": FAKE_BASE_URL, "model": FAKE_MODEL,
                "http_retries": 0, "cache_enabled": True}
    )  # fmt: skip
    cache = VerdictCache(settings.cache_dir)
    client = httpx.AsyncClient(transport=RuleJudge().transport)
    judge = build_http_judge(settings, http_client=client, cache=cache)
    log = AuditLog.open(path)
    released: list[str] = []
    try:
        app = create_app(settings, ServeOptions(audit_path=path), judge=judge, audit=log)
        with TestClient(app) as http:
            for _ in range(BEFORE):
                reply = http.post("/v1/verify", json=REQUEST)
                if reply.status_code != 200:
                    result.detail = f"before the fault: HTTP {reply.status_code}"
                    return result
                released.append(reply.json()["request_id"])
            result.unrecorded = len(released) - _recorded(path, released)
            fault.apply(path, log)
            released = []  # what the fault removed or rewrote is the chain's to report
            for _ in range(AFTER):
                reply = http.post("/v1/verify", json=REQUEST)
                result.statuses.append(reply.status_code)
                if reply.status_code == 200:
                    released.append(reply.json()["request_id"])
                elif not result.detail:
                    result.detail = str(reply.json().get("detail", ""))
            ready = http.get("/readyz")
            result.ready_status = ready.status_code
            result.ready_audit = str(ready.json().get("checks", {}).get("audit", ""))
    finally:
        log.close()
        cache.close()
    result.unrecorded += len(released) - _recorded(path, released)
    result.chain = _chain(path)
    result.passed = _passed(fault, result)
    return result


def _recorded(path: Path, ids: Sequence[str]) -> int:
    """How many of ``ids`` have a record in the file now at ``path``."""
    if not path.is_file():
        return 0
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        found = 0
        for rid in ids:
            with contextlib.suppress(sqlite3.Error):
                row = conn.execute("SELECT 1 FROM records WHERE id = ?", (rid,)).fetchone()
                found += row is not None
        return found
    finally:
        conn.close()


def _chain(path: Path) -> str:
    try:
        with AuditLog.open(path, create=False) as log:
            report = log.verify_chain()
    except AuditError as exc:
        return str(exc)
    if report.breaks:
        return "tampered with: " + "; ".join(b.describe() for b in report.breaks)
    return f"intact: {report.records} records"


def _passed(fault: Fault, run: FaultRun) -> bool:
    if run.unrecorded or run.crashed:
        return False
    if fault.tamper and not run.chain.startswith("tampered with"):
        return False
    if fault.writable_after:
        return all(status == 200 for status in run.statuses)
    return all(status == 503 for status in run.statuses) and run.ready_status == 503


def run_isolated(fault: Fault, settings: Settings) -> FaultRun:
    """:func:`run_fault` in a forked process with its own directory; a process killed by a
    signal, or past :data:`TIME_LIMIT_S`, is a crash."""
    workdir = Path(tempfile.mkdtemp(prefix=f"judge-audit-{fault.name}-"))
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(fault, settings, workdir, sender))
    try:
        process.start()
        sender.close()
        ready = receiver.poll(TIME_LIMIT_S)
        result = receiver.recv() if ready else None
        process.join(5)
        if process.is_alive():
            process.kill()
            process.join()
        if isinstance(result, FaultRun):
            return result
        why = f"exit code {process.exitcode}" if ready else f"past {TIME_LIMIT_S:g} s"
        return FaultRun(fault.name, crashed=True, detail=f"service process died: {why}")
    except EOFError:
        process.join()
        return FaultRun(fault.name, crashed=True, detail=f"killed: exit code {process.exitcode}")
    finally:
        receiver.close()
        shutil.rmtree(workdir, ignore_errors=True)


def _child(fault: Fault, settings: Settings, workdir: Path, sender: Connection) -> None:
    try:
        result = run_fault(fault, settings, workdir)
    except Exception as exc:  # reported, not raised: the parent counts it as a failure
        result = FaultRun(fault.name, detail=f"{type(exc).__name__}: {exc}")
    sender.send(result)
    sender.close()


def run_all(settings: Settings, faults: Sequence[Fault] = FAULTS) -> list[FaultRun]:
    return [run_isolated(fault, settings) for fault in faults]


def render(runs: Sequence[FaultRun], console: Any) -> None:
    """A table of what the service and `judge audit verify` said under each fault."""
    from rich.table import Table

    table = Table(title=f"{FAMILY}: answers released without a record", title_justify="left")
    for column in ("fault", "after the fault", "unrecorded 200s", "/readyz audit", "audit verify"):
        table.add_column(column, overflow="fold")
    for run in runs:
        statuses = ", ".join(str(s) for s in run.statuses) or run.detail
        verdict = "ok" if run.passed else "FAILED"
        table.add_row(
            f"{run.fault} [{verdict}]",
            statuses,
            str(run.unrecorded),
            f"{run.ready_status} {run.ready_audit}",
            run.chain,
        )
    console.print(table)
    failed = [run.fault for run in runs if not run.passed]
    unrecorded = sum(run.unrecorded for run in runs)
    console.print(
        f"{FAMILY}: {len(runs) - len(failed)}/{len(runs)} faults handled, "
        f"{unrecorded} unrecorded 200s" + (f"; failed: {', '.join(failed)}" if failed else "")
    )
