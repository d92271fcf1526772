"""The service never releases an unrecorded answer; `judge audit verify` and `judge replay`
on a log that was tampered with, a judge that changed and a judge that is down."""

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from judge.audit.log import AuditLog
from judge.cli.app import main
from judge.config import Settings
from judge.redteam import audit_faults
from tests.service.test_serve_cli import EVIDENCE, TRUE_POLICY, TRUE_TIMING, serve_requests
from tests.support.fake_judge import (
    FAKE_MODEL,
    FakeJudgeServer,
    connection_refused,
    fake_settings,
    requested_variant,
    run_fake_openai_server,
    verdict_response,
)


def test_audit_faults_family_releases_no_unrecorded_answer() -> None:
    runs = audit_faults.run_all(Settings())
    by_fault = {run.fault: run for run in runs}
    assert set(by_fault) == {fault.name for fault in audit_faults.FAULTS}
    assert sum(run.unrecorded for run in runs) == 0
    assert [run.fault for run in runs if not run.passed] == []
    assert "deleted or moved" in by_fault["deleted"].ready_audit
    assert "replaced by another file" in by_fault["replaced"].ready_audit
    assert "read-only" in by_fault["read-only"].ready_audit
    assert "is full" in by_fault["full"].ready_audit
    assert by_fault["unwritable-shm"].statuses == [200, 200, 200]
    for name in ("tampered-replace", "tampered-delete", "tampered-drop", "tampered-forge"):
        assert by_fault[name].chain.startswith("tampered with"), name


def test_audit_verify_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, bodies = serve_requests(tmp_path, [{"evidence": EVIDENCE, "claims": [TRUE_POLICY]}] * 3)
    assert main(["audit", "verify", "--audit-db", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("audit log intact: 3 records, head ")
    head = out.split()[-1]
    assert main(["audit", "verify", "--audit-db", str(path), "--expect-head", head]) == 0
    capsys.readouterr()

    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP TRIGGER records_no_delete")
    conn.execute("DELETE FROM records WHERE id = ?", (bodies[2]["request_id"],))
    conn.close()
    # Removing the newest record leaves the chain whole: only the kept head shows it.
    assert main(["audit", "verify", "--audit-db", str(path)]) == 1
    assert "records_no_delete missing" in capsys.readouterr().out
    assert main(["audit", "verify", "--audit-db", str(path), "--expect-head", head]) == 1
    assert main(["audit", "verify", "--audit-db", str(tmp_path / "none.sqlite3")]) == 3


def always_unsupported(request: dict[str, Any]) -> dict[str, Any]:
    scores = {"supported": 0.05, "unsupported": 0.9, "contradicted": 0.05}
    return verdict_response("unsupported", variant=requested_variant(request), scores=scores)


def test_replay_asks_the_changed_judge_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path, bodies = serve_requests(
        tmp_path / "log", [{"evidence": EVIDENCE, "claims": [TRUE_POLICY, TRUE_TIMING]}]
    )
    rid = bodies[0]["request_id"]
    monkeypatch.setenv("JUDGE_STATE_DIR", str(tmp_path / "state"))
    base = ["replay", rid, "--audit-db", str(path), "--model", FAKE_MODEL, "--no-record"]
    with run_fake_openai_server(FakeJudgeServer().handler) as url:
        assert main([*base, "--base-url", url, "--cache"]) == 0  # fills the verdict cache
    capsys.readouterr()
    with run_fake_openai_server(FakeJudgeServer(always_unsupported).handler) as url:
        # From the cache the changed judge looks unchanged; asked again it is not.
        assert main([*base, "--base-url", url, "--cache"]) == 0
        assert "no verdict changed" in capsys.readouterr().out
        assert main([*base, "--base-url", url]) == 1
        out = capsys.readouterr().out
        assert "c1: supported -> unsupported" in out and "c2: supported -> unsupported" in out


def test_replay_against_a_dead_judge_exits_4(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path, bodies = serve_requests(
        tmp_path / "log", [{"evidence": EVIDENCE, "claims": [TRUE_POLICY]}]
    )
    monkeypatch.setenv("JUDGE_STATE_DIR", str(tmp_path / "state"))
    down = FakeJudgeServer(lambda _request: connection_refused())
    with run_fake_openai_server(down.handler) as url:
        args = ["replay", bodies[0]["request_id"], "--audit-db", str(path)]
        assert main([*args, "--base-url", url, "--model", FAKE_MODEL]) == 4
    err = capsys.readouterr().err
    assert "got no verdict from the judge" in err
    with AuditLog.open(path, create=False) as audit:
        assert audit.count("replay") == 0  # an outage is not logged as a replay


def test_replay_of_a_tampered_record_is_refused_cleanly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, bodies = serve_requests(tmp_path, [{"evidence": EVIDENCE, "claims": [TRUE_POLICY]}] * 2)
    rid = bodies[0]["request_id"]
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP TRIGGER records_no_replace")
    conn.execute(
        "REPLACE INTO records (id, kind, created_at, created_ts, action, request_json,"
        " response_json, prev_hash, record_hash) SELECT id, kind, created_at, created_ts, 'block',"
        " request_json, replace(response_json, '\"pass\"', '\"block\"'), prev_hash, record_hash"
        " FROM records WHERE id = ?",
        (rid,),
    )
    conn.execute(
        "REPLACE INTO records (id, kind, created_at, created_ts, request_json, response_json,"
        " prev_hash, record_hash) VALUES ('garbage', 'verify', '2026-01-01', 1.0, '{\"x\": 1}',"
        " 'null', 'a', 'b')"
    )
    conn.close()
    assert main(["replay", rid, "--audit-db", str(path), "--no-judge"]) == 3
    assert "content does not match its hash" in capsys.readouterr().err
    assert main(["replay", "garbage", "--audit-db", str(path), "--no-judge"]) == 3
    assert "record garbage is unreadable" in capsys.readouterr().err
    assert main(["audit", "verify", "--audit-db", str(path)]) == 1


def test_service_log_settings_are_private(tmp_path: Path) -> None:
    settings = fake_settings(state_dir=tmp_path / "state", cache_enabled=True)
    from judge.judges.cache import VerdictCache

    cache = VerdictCache.from_settings(settings)
    assert cache is not None
    cache.close()
    path = tmp_path / "fresh" / "audit.sqlite3"
    AuditLog.open(path).close()
    for directory in (settings.state_dir, settings.cache_dir, path.parent):
        assert directory.stat().st_mode & 0o777 == 0o700, directory
    for file in [path, *settings.cache_dir.iterdir()]:
        assert file.stat().st_mode & 0o777 == 0o600, file


def test_redteam_lists_the_audit_faults(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["redteam", "--family", "audit-faults", "--list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in listed] == [
        f"audit-faults/{fault.name}" for fault in audit_faults.FAULTS
    ]
