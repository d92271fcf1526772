import sqlite3
import stat
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from judge.audit import log as audit_module
from judge.audit.log import AuditLog, parse_since
from judge.audit.migrations import MIGRATIONS, migrate
from judge.errors import AuditError, InputError
from judge.schemas import (
    Action,
    Claim,
    ClaimVerdict,
    JudgeTrace,
    Label,
    Passage,
    VerifyRequest,
    VerifyResponse,
)


def make_pair(request_id: str = "r1") -> tuple[VerifyRequest, VerifyResponse]:
    request = VerifyRequest(
        evidence=[
            Passage(id="S1", text="Unopened items may be returned within 30 days.", source="a.md"),
            Passage(id="S2", text="Refunds take 5 to 7 business days.", source="b.md"),
        ],
        answer="Unopened items can be returned within 30 days [S1]. Refunds take a week [S2].",
    )
    trace = JudgeTrace(
        model="fake-judge",
        template="entail.j2",
        template_hash="sha256:" + "a" * 64,
        calibration_hash="sha256:" + "c" * 64,
        cached=True,
        calls=1,
        latency_s=0.25,
    )
    response = VerifyResponse(
        request_id=request_id,
        action=Action.BLOCK,
        ledger_hash="sha256:" + "b" * 64,
        verdicts=[
            ClaimVerdict(
                claim=Claim(id="c1", text="Unopened items can be returned within 30 days.",
                            citations=("S1",)),
                label=Label.SUPPORTED,
                score=0.93,
                judge=trace,
                first_tier_score=0.2,
                agrees_with_first_tier=False,
            ),
            ClaimVerdict(
                claim=Claim(id="c2", text="Refunds take a week.", citations=("S2",)),
                label=Label.VERIFIER_ERROR,
                error="JudgeUnavailable: connection refused",
                reason="JudgeUnavailable: connection refused",
            ),
        ],
        seconds=0.5,
        calibration_hash="sha256:" + "c" * 64,
    )  # fmt: skip
    return request, response


@pytest.fixture
def log(tmp_path: Path) -> Iterator[AuditLog]:
    opened = AuditLog.open(tmp_path / "audit.sqlite3")
    yield opened
    opened.close()


def test_record_round_trips_request_and_response(log: AuditLog) -> None:
    request, response = make_pair()
    assert log.record(request, response, latency_s=0.6) == "r1"
    record = log.get("r1")
    assert record is not None
    assert record.kind == "verify"
    assert record.action == "block"
    assert record.latency_s == 0.6
    assert record.verify_request() == request
    assert record.verify_response() == response
    assert record.created_at.tzinfo is not None
    assert log.get("missing") is None


def test_ledger_and_verdict_rows_hold_what_an_auditor_needs(log: AuditLog) -> None:
    request, response = make_pair()
    log.record(request, response)
    conn = sqlite3.connect(log.path)
    passages = conn.execute(
        "SELECT passage_id, hash, source, text FROM passages"
        " WHERE record_id = 'r1' ORDER BY position"
    ).fetchall()
    assert passages == [(p.id, p.hash, p.source, p.text) for p in request.evidence]
    verdicts = conn.execute(
        "SELECT claim_id, label, score, template_hash, model, calibration_hash, cached,"
        " judge_latency_s, error, agrees_with_first_tier FROM verdicts ORDER BY position"
    ).fetchall()
    assert verdicts[0] == (
        "c1", "supported", 0.93, "sha256:" + "a" * 64, "fake-judge", "sha256:" + "c" * 64, 1,
        0.25, None, 0,
    )  # fmt: skip
    assert verdicts[1][1] == "verifier_error"
    assert verdicts[1][8] == "JudgeUnavailable: connection refused"
    conn.close()


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE records SET action = 'pass'",
        "DELETE FROM records",
        "UPDATE verdicts SET label = 'supported'",
        "DELETE FROM verdicts",
        "UPDATE passages SET text = 'forged'",
        "DELETE FROM passages",
        "DELETE FROM migrations",
    ],
)
def test_records_cannot_be_changed_or_removed(log: AuditLog, statement: str) -> None:
    log.record(*make_pair())
    conn = sqlite3.connect(log.path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute(statement)
    conn.close()
    record = log.get("r1")
    assert record is not None and record.action == "block"


def test_duplicate_id_is_refused(log: AuditLog) -> None:
    log.record(*make_pair())
    with pytest.raises(AuditError, match="already exists"):
        log.record(*make_pair())
    assert log.count() == 1


def test_general_records_for_other_kinds(log: AuditLog) -> None:
    request, response = make_pair()
    rid = log.record(request, None, kind="answer_step", extra={"step": "draft", "n": 1})
    assert rid and rid != "r1"
    log.record(request, response, kind="answer_step", extra={"step": "verdicts"})
    record = log.get(rid)
    assert record is not None
    assert record.response is None and record.action is None
    assert record.extra == {"n": 1, "step": "draft"}
    with pytest.raises(AuditError, match="holds no response"):
        record.verify_response()
    assert log.count("answer_step") == 2
    assert log.count("verify") == 0


def test_pragmas_no_shared_memory_full_and_owner_only_permissions(log: AuditLog) -> None:
    conn = log._conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert conn.execute("PRAGMA mmap_size").fetchone()[0] == 0
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert stat.S_IMODE(log.path.stat().st_mode) == 0o600


def test_migrations_are_named_and_listed_in_order(log: AuditLog) -> None:
    assert log.migrations() == [m.name for m in MIGRATIONS]
    assert len({m.name for m in MIGRATIONS}) == len(MIGRATIONS)


def test_old_database_is_migrated_and_keeps_its_records(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, MIGRATIONS[:1])  # a log written by the first release
    conn.execute(
        "INSERT INTO records (id, created_at, created_ts, action, ledger_hash, request_json,"
        " response_json) VALUES ('old', '2025-01-01T00:00:00+00:00', 1735689600.0, 'pass',"
        " 'sha256:x', NULL, NULL)"
    )
    conn.close()

    with AuditLog.open(path) as log:
        assert log.migrations() == [m.name for m in MIGRATIONS]
        old = log.get("old")
        assert old is not None and old.kind == "verify" and old.action == "pass"
        log.record(*make_pair("new"))
        assert [r.id for r in log.iter_since(None)] == ["old", "new"]
        assert log.integrity_check() == "ok"
    with AuditLog.open(path) as again:  # reopening applies nothing twice
        assert again.count() == 2


def test_log_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "newer.sqlite3"
    AuditLog.open(path).close()
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO migrations VALUES ('m999_future', '2030-01-01')")
    conn.commit()
    conn.close()
    with pytest.raises(AuditError, match="newer than this version"):
        AuditLog.open(path)


def test_readers_do_not_create_a_log(tmp_path: Path) -> None:
    with pytest.raises(AuditError, match="no audit log"):
        AuditLog.open(tmp_path / "absent.sqlite3", create=False)
    assert not (tmp_path / "absent.sqlite3").exists()


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "audit.sqlite3"
    first, second = AuditLog.open(path), AuditLog.open(path)  # two "processes" on one file
    request, response = make_pair()
    errors: list[BaseException] = []

    def write(log: AuditLog, worker: int) -> None:
        try:
            for i in range(10):
                rid = f"w{worker}-{i}"
                log.record(request, response.model_copy(update={"request_id": rid}))
        except BaseException as exc:
            errors.append(exc)

    threads = [
        threading.Thread(target=write, args=(first if n % 2 else second, n)) for n in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors
    assert first.count() == 80
    assert first.integrity_check() == "ok"
    first.close()
    second.close()


def test_iter_since_filters_by_time_and_kind_across_pages(
    log: AuditLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(audit_module, "_PAGE", 3)
    request, response = make_pair()
    for i in range(7):
        log.record(request, response.model_copy(update={"request_id": f"v{i}"}))
    log.record(request, response.model_copy(update={"request_id": "other"}), kind="replay")
    assert [r.id for r in log.iter_since(None, kind="verify")] == [f"v{i}" for i in range(7)]
    assert len(list(log.iter_since(None))) == 8
    future = datetime.now(UTC) + timedelta(hours=1)
    assert list(log.iter_since(future)) == []
    past = datetime.now(UTC) - timedelta(hours=1)
    assert len(list(log.iter_since(past, kind="replay"))) == 1


def test_parse_since() -> None:
    now = datetime(2026, 1, 10, 12, 0, tzinfo=UTC)
    assert parse_since("1h", now) == now - timedelta(hours=1)
    assert parse_since("7d", now) == now - timedelta(days=7)
    assert parse_since("90s", now) == now - timedelta(seconds=90)
    assert parse_since("2026-01-01T00:00:00") == datetime(2026, 1, 1, tzinfo=UTC)
    offset = parse_since("2026-01-01T00:00:00+02:00")
    assert offset.utcoffset() == timedelta(hours=2)
    with pytest.raises(InputError, match="since"):
        parse_since("yesterday")
