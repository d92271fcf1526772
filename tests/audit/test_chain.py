"""The audit log's hash chain, and writes refused when the file under it changed."""

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge.audit.log import AuditLog
from judge.audit.migrations import MIGRATIONS, migrate
from judge.errors import AuditError
from tests.audit.test_log import make_pair


@pytest.fixture
def log(tmp_path: Path) -> Iterator[AuditLog]:
    opened = AuditLog.open(tmp_path / "audit.sqlite3")
    for n in range(3):
        opened.record(*make_pair(f"r{n}"))
    yield opened
    opened.close()


def raw(log: AuditLog, *statements: str) -> None:
    conn = sqlite3.connect(log.path, isolation_level=None)
    try:
        for statement in statements:
            conn.execute(statement)
    finally:
        conn.close()


def first_break(log: AuditLog) -> str:
    report = log.verify_chain()
    assert not report.intact
    return report.breaks[0].describe()


def test_an_untouched_log_verifies(log: AuditLog) -> None:
    report = log.verify_chain()
    assert report.intact and report.records == 3
    assert log.holds_hash(report.head)
    assert all(log.check_record(f"r{n}") is None for n in range(3))


def test_replace_is_refused_and_detected_once_the_trigger_is_gone(log: AuditLog) -> None:
    replace = (
        "REPLACE INTO records (id, kind, created_at, created_ts, action, prev_hash, record_hash)"
        " SELECT id, kind, created_at, created_ts, 'pass', prev_hash, record_hash"
        " FROM records WHERE id = 'r1'"
    )
    with pytest.raises(sqlite3.IntegrityError, match="REPLACE on records"):
        raw(log, replace)
    assert log.verify_chain().intact
    raw(log, "DROP TRIGGER records_no_replace", replace)
    breaks = [b.describe() for b in log.verify_chain().breaks]
    assert breaks[0] == "append-only trigger records_no_replace missing (dropped)"
    assert any("record 2 (r2): does not link" in b for b in breaks)
    assert log.check_record("r1") == "its content does not match its hash: changed or forged"


def test_delete_breaks_the_next_link(log: AuditLog) -> None:
    raw(log, "DROP TRIGGER records_no_delete", "DELETE FROM records WHERE id = 'r0'")
    breaks = [b.describe() for b in log.verify_chain().breaks]
    assert breaks[1].startswith("record 1 (r1): does not link to the record before it")
    assert "belong to no record" in breaks[-1]


def test_drop_table_is_named(log: AuditLog) -> None:
    raw(log, "DROP TABLE verdicts")
    assert first_break(log) == "table verdicts missing (dropped)"


def test_forged_inserts(log: AuditLog) -> None:
    columns = "id, kind, created_at, created_ts, action"
    values = "'forged', 'verify', '2026-01-01T00:00:00+00:00', 1767225600.0, 'pass'"
    with pytest.raises(sqlite3.IntegrityError, match="must carry their chain hashes"):
        raw(log, f"INSERT INTO records ({columns}) VALUES ({values})")
    head = log.verify_chain().head
    raw(
        log,
        f"INSERT INTO records ({columns}, prev_hash, record_hash) "
        f"VALUES ({values}, '{head}', '{'f' * 64}')",
    )
    assert (
        first_break(log) == "record 4 (forged): content does not match its hash: changed or forged"
    )


def test_update_with_the_trigger_dropped_is_detected(log: AuditLog) -> None:
    raw(
        log,
        "DROP TRIGGER verdicts_no_update",
        "UPDATE verdicts SET label = 'supported' WHERE record_id = 'r0' AND position = 1",
    )
    breaks = [b.describe() for b in log.verify_chain().breaks]
    assert "record 1 (r0): content does not match its hash: changed or forged" in breaks


def test_removing_the_newest_record_needs_the_head(log: AuditLog) -> None:
    head = log.verify_chain().head
    raw(log, "DROP TRIGGER records_no_delete", "DELETE FROM records WHERE id = 'r2'")
    assert not log.holds_hash(head)


def test_legacy_records_are_sealed_by_the_migration(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, MIGRATIONS[:5])  # before the chain
    for n in range(2):
        conn.execute(
            "INSERT INTO records (id, created_at, created_ts, action) "
            f"VALUES ('old{n}', '2025-01-01T00:00:00+00:00', 1735689600.0, 'pass')"
        )
    conn.close()
    with AuditLog.open(path) as log:
        log.record(*make_pair("new"))
        report = log.verify_chain()
        assert report.intact and report.records == 3


def test_writes_are_refused_when_the_file_is_deleted(log: AuditLog) -> None:
    log.path.unlink()
    with pytest.raises(AuditError, match="deleted or moved while open"):
        log.record(*make_pair("lost"))
    assert log.fault() is not None and "deleted or moved" in str(log.fault())


def test_writes_are_refused_when_the_file_is_replaced(log: AuditLog, tmp_path: Path) -> None:
    AuditLog.open(tmp_path / "other.sqlite3").close()
    (tmp_path / "other.sqlite3").replace(log.path)
    with pytest.raises(AuditError, match="replaced by another file"):
        log.record(*make_pair("lost"))


def test_writes_are_refused_when_the_file_is_read_only(log: AuditLog) -> None:
    log.path.chmod(0o400)
    with pytest.raises(AuditError, match="is read-only"):
        log.record(*make_pair("lost"))
    assert "read-only" in str(log.fault())
    log.path.chmod(0o600)
    log.record(*make_pair("kept"))
    assert log.fault() is None


def test_a_full_log_reports_itself_full(log: AuditLog) -> None:
    assert log.fault() is None
    log.limit_pages(log.page_count())
    assert "is full" in str(log.fault())
    with pytest.raises(AuditError, match="full"):
        log.record(*make_pair("lost"))
    assert log.count() == 3


def test_a_tampered_record_is_reported_not_crashed_on(log: AuditLog) -> None:
    raw(
        log,
        "DROP TRIGGER records_no_replace",
        "REPLACE INTO records (id, kind, created_at, created_ts, response_json, prev_hash,"
        " record_hash) VALUES ('r1', 'verify', 'not a time', 1.0, '[1, 2]', 'x', 'y')",
    )
    with pytest.raises(AuditError, match="record r1 is unreadable"):
        log.get("r1")
