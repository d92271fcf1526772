"""`judge verify - --evidence FILE`: an answer read from standard input as it arrives; only
verified sentences on standard output, verdicts and the action on standard error."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from judge.cli.app import EXIT_INPUT_ERROR, EXIT_NOT_PASSED, EXIT_PASS, main
from tests.support.fake_judge import FAKE_MODEL, FakeJudgeServer, run_fake_openai_server

EVIDENCE = [
    {"id": "S1", "text": "Customers may return any unopened item within 30 days of delivery."},
    {"id": "S2", "text": "Refunds are issued to the original payment method within 5 days."},
]
GOOD = "Customers may return any unopened item within 30 days of delivery [S1]."
SECOND = "Refunds are issued to the original payment method within 5 days [S2]."
WRONG = "Refunds are issued to the original payment method within 9 days [S2]."


def evidence_file(tmp_path: Path) -> Path:
    path = tmp_path / "evidence.json"
    path.write_text(json.dumps({"question": "How do refunds work?", "evidence": EVIDENCE}))
    return path


def with_stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", SimpleNamespace(buffer=io.BytesIO(data)))


def run(tmp_path: Path, *more: str) -> int:
    with run_fake_openai_server(FakeJudgeServer().handler) as url:
        judge = ["--base-url", url, "--model", FAKE_MODEL, "--no-cache"]
        return main(["verify", "-", "-e", str(evidence_file(tmp_path)), *judge, *more])


def test_verified_sentences_go_to_stdout_and_verdicts_to_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with_stdin(monkeypatch, f"{GOOD} {SECOND}".encode())
    assert run(tmp_path) == EXIT_PASS
    out, err = capsys.readouterr()
    assert out == f"{GOOD} {SECOND}\n"
    assert "[sentence 1: ok; c1 supported" in err and "action: PASS" in err


def test_a_blocking_sentence_stops_and_is_never_printed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with_stdin(monkeypatch, f"{GOOD} {WRONG} {SECOND}".encode())
    assert run(tmp_path) == EXIT_NOT_PASSED
    out, err = capsys.readouterr()
    assert out == f"{GOOD}\n" and "9 days" not in out
    assert "STOPPED; c2 number_mismatch" in err and "action: BLOCK" in err


def test_json_lines_give_each_sentence_then_the_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with_stdin(monkeypatch, f"{GOOD} {SECOND}".encode())
    assert run(tmp_path, "--json") == EXIT_PASS
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line.get("release") for line in lines[:2]] == ["released", "released"]
    assert lines[-1]["result"]["outcome"] == "passed"
    assert lines[-1]["result"]["response"]["action"] == "pass"


def test_input_that_is_not_utf8_is_an_input_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with_stdin(monkeypatch, b"Refunds \xff\xfe take days.")
    assert run(tmp_path) == EXIT_INPUT_ERROR
    assert "not UTF-8" in capsys.readouterr().err


def test_without_evidence_the_error_names_the_option(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with_stdin(monkeypatch, GOOD.encode())
    assert main(["verify", "-", "--no-judge"]) == EXIT_INPUT_ERROR
    assert "evidence: give --evidence FILE" in capsys.readouterr().err


def test_the_stream_is_recorded_with_audit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from judge.audit.log import AuditLog

    with_stdin(monkeypatch, f"{GOOD} {SECOND}".encode())
    db = tmp_path / "audit.sqlite3"
    assert run(tmp_path, "--audit", "--audit-db", str(db)) == EXIT_PASS
    with AuditLog.open(db) as audit:
        [record] = list(audit.iter_since())
    assert record.extra is not None and record.extra["stream"] is True
    assert record.verify_request().answer == f"{GOOD} {SECOND}"
