"""The command line against the scripted fake judge: one up-front error for an unreachable
judge, progress on stderr only, `judge verify --audit` then `judge replay`, and `judge eval`'s
error-rate gate and stratified sample."""

from __future__ import annotations

import io
import json
import socket
from pathlib import Path

import pytest

from judge.cli.app import EXIT_INPUT_ERROR, EXIT_PASS, EXIT_VERIFIER_ERROR, main
from judge.errors import LocalServerError
from judge.eval.records import read_predictions
from tests.support.fake_judge import FAKE_MODEL, FakeJudgeServer, http_error, run_fake_openai_server

ROOT = Path(__file__).resolve().parents[2]
REQUEST = {
    "question": "When did the bridge open?",
    "evidence": [{"id": "S1", "text": "The bridge opened in 1932. It carries six lanes."}],
    "answer": "The bridge opened in 1932 [S1]. It carries six lanes [S1].",
}


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGE_STATE_DIR", str(tmp_path / "state"))
    for name in ("JUDGE_BASE_URL", "JUDGE_MODEL", "JUDGE_CONFIG", "JUDGE_AUDIT_CLI"):
        monkeypatch.delenv(name, raising=False)


def _request(tmp_path: Path) -> Path:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(REQUEST), encoding="utf-8")
    return path


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_unreachable_judge_is_one_error_naming_the_endpoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    code = main(["verify", str(_request(tmp_path)), "--base-url", url, "--model", FAKE_MODEL])
    captured = capsys.readouterr()
    assert code == EXIT_INPUT_ERROR
    assert captured.out == ""
    [line] = captured.err.strip().splitlines()
    assert line.startswith(f"judge: error: cannot reach the judge at {url}")
    assert "JUDGE_BASE_URL" in line


def test_unreachable_judge_stops_eval_and_answer_before_any_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps(_record("a", "toy", "supported")) + "\n", encoding="utf-8")
    out = tmp_path / "pred.jsonl"
    assert main(["eval", str(data), "--out", str(out), "--base-url", url, "--no-progress"]) == 3
    assert not out.exists() or read_predictions(out) == []
    evidence = tmp_path / "evidence.json"
    evidence.write_text(json.dumps(REQUEST), encoding="utf-8")
    assert main(["answer", "-e", str(evidence), "--base-url", url, "--no-record"]) == 3
    err = capsys.readouterr().err
    assert err.count(f"cannot reach the judge at {url}") == 2


def test_a_wrong_api_key_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def refuse(request: object) -> object:
        return http_error(401, "bad key")

    with run_fake_openai_server(refuse) as url:  # type: ignore[arg-type]
        code = main(["verify", str(_request(tmp_path)), "--base-url", url, "--model", FAKE_MODEL])
    assert code == EXIT_INPUT_ERROR
    assert "HTTP 401: check --api-key" in capsys.readouterr().err


def test_embedded_judge_that_cannot_start_names_the_install_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from judge.pipeline.entail import connect

    async def fail(settings: object) -> tuple[str, str | None]:
        raise LocalServerError("the llamacpp server exited with code 1 while starting\nlog tail")

    monkeypatch.setattr(connect, "resolve_endpoint", fail)
    assert main(["verify", str(_request(tmp_path))]) == EXIT_INPUT_ERROR
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "the embedded judge did not start" in line
    assert "pip install 'grounding-judge[local]'" in line


def test_a_fault_during_the_run_stays_a_verifier_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = FakeJudgeServer([http_error(500)] * 20)
    with run_fake_openai_server(fake.handler) as url:
        code = main(
            [
                "verify",
                str(_request(tmp_path)),
                "--base-url",
                url,
                "--model",
                FAKE_MODEL,
                "--no-cache",
                "--json",
            ]
        )
    response = json.loads(capsys.readouterr().out)
    assert code == EXIT_VERIFIER_ERROR
    assert response["action"] == "block"
    assert {v["label"] for v in response["verdicts"]} == {"verifier_error"}


def test_progress_goes_to_stderr_and_json_stays_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = FakeJudgeServer()
    with run_fake_openai_server(fake.handler) as url:
        code = main(
            [
                "verify",
                str(_request(tmp_path)),
                "--base-url",
                url,
                "--model",
                FAKE_MODEL,
                "--no-cache",
                "--json",
                "--progress",
            ]
        )
    captured = capsys.readouterr()
    assert code == EXIT_PASS
    json.loads(captured.out)  # nothing but the response
    lines = captured.err.strip().splitlines()
    judged = [line for line in lines if "claims judged" in line]
    # The two sentences, then (they passed) the main conclusion, judged on its own.
    conclusion = next(
        n
        for n, line in enumerate(lines)
        if line.startswith("judge: extracting the main conclusion, ")
    )
    assert any(line.startswith("judge: 2/2 claims judged, ") for line in lines[:conclusion])
    assert lines[-1].startswith("judge: 1/1 claims judged, ")
    assert judged[-1].endswith(" s")


def test_no_progress_when_stderr_is_not_a_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = FakeJudgeServer()
    with run_fake_openai_server(fake.handler) as url:
        main(["verify", str(_request(tmp_path)), "--base-url", url, "--model", FAKE_MODEL])
    assert "claims judged" not in capsys.readouterr().err


def test_html_report_says_where_it_was_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    request = _request(tmp_path)
    assert main(["verify", str(request), "--no-judge", "--json", "--html", "report.html"]) == 1
    captured = capsys.readouterr()
    written = tmp_path / "report.html"
    assert written.is_file()
    assert f"HTML report written to {written}" in captured.err
    assert json.loads(captured.out)["action"]  # standard output stays the JSON alone


def test_verify_audit_then_replay_finds_the_request_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = FakeJudgeServer()
    with run_fake_openai_server(fake.handler) as url:
        judge = ["--base-url", url, "--model", FAKE_MODEL, "--no-cache"]
        assert main(["verify", str(_request(tmp_path)), "--json", "--audit", *judge]) == 0
        request_id = json.loads(capsys.readouterr().out)["request_id"]
        assert main(["replay", request_id, *judge]) == EXIT_PASS
    assert f"{request_id}: no verdict changed" in capsys.readouterr().out


def test_audit_cli_setting_records_without_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("JUDGE_AUDIT_CLI", "true")
    assert main(["verify", str(_request(tmp_path)), "--no-judge", "--json"]) == 1
    request_id = json.loads(capsys.readouterr().out)["request_id"]
    assert main(["audit", "show", request_id]) == 0
    assert json.loads(capsys.readouterr().out)["id"] == request_id


def test_without_audit_nothing_is_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["verify", str(_request(tmp_path)), "--no-judge", "--json"])
    request_id = json.loads(capsys.readouterr().out)["request_id"]
    assert main(["replay", request_id, "--no-judge"]) == EXIT_INPUT_ERROR


def test_an_audit_log_that_cannot_be_written_withholds_the_result(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("", encoding="utf-8")
    code = main(
        [
            "verify",
            str(_request(tmp_path)),
            "--no-judge",
            "--audit",
            "--audit-db",
            str(blocker / "audit.sqlite3"),
        ]
    )
    captured = capsys.readouterr()
    assert code == EXIT_VERIFIER_ERROR
    assert captured.out == ""
    assert "audit log unavailable, result withheld" in captured.err


def _record(record_id: str, dataset: str, label: str) -> dict[str, object]:
    claim = "The bridge opened in 1932." if label == "supported" else "The bridge opened in 1936."
    return {
        "id": record_id,
        "dataset": dataset,
        "evidence": [{"id": "a", "text": "The bridge opened in 1932 and carries six lanes."}],
        "claim": claim,
        "label": label,
    }


def _dataset(tmp_path: Path) -> Path:
    records = [_record(f"a{i}", "first", "supported") for i in range(6)]
    records += [_record(f"b{i}", "second", "unsupported") for i in range(6)]
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_eval_sample_is_stratified_and_limit_is_the_first_n(tmp_path: Path) -> None:
    data = _dataset(tmp_path)
    sampled, first = tmp_path / "sampled.jsonl", tmp_path / "first.jsonl"
    common = ["--no-judge", "--no-progress"]
    assert main(["eval", str(data), "--out", str(sampled), "--sample", "4", *common]) == 0
    assert main(["eval", str(data), "--out", str(first), "--limit", "4", *common]) == 0
    assert sorted(p["dataset"] for p in read_predictions(sampled)) == ["first"] * 2 + ["second"] * 2
    assert {p["dataset"] for p in read_predictions(first)} == {"first"}


def test_eval_fails_above_the_error_rate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _dataset(tmp_path)
    fake = FakeJudgeServer([http_error(500)] * 200)
    with run_fake_openai_server(fake.handler) as url:
        judge = ["--base-url", url, "--model", FAKE_MODEL, "--no-cache", "--no-progress"]
        out = tmp_path / "pred.jsonl"
        code = main(["eval", str(data), "--out", str(out), "--sample", "4", *judge])
    assert code == EXIT_VERIFIER_ERROR
    # The two wrong dates are decided by the exact checks; the two others needed the judge.
    assert "2 of 4 records (50%) ended in an error, above --max-error-rate 0.05" in (
        capsys.readouterr().err
    )
    assert main(["eval", "--report", str(out)]) == 0  # reporting alone gates nothing
    assert (
        main(
            [
                "eval",
                str(data),
                "--out",
                str(out),
                "--sample",
                "4",
                "--no-judge",
                "--max-error-rate",
                "1",
            ]
        )
        == 0
    )


def test_progress_on_a_terminal_redraws_one_line_and_clears_it() -> None:
    from judge.cli.progress import claims_progress
    from judge.pipeline.progress import claims_judged, stage

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = Terminal()
    with claims_progress(True, out):
        stage("extracting the main conclusion")
        claims_judged(0, 2)
        claims_judged(1, 2)
        claims_judged(2, 2)
    text = out.getvalue()
    assert "\n" not in text  # redrawn in place, never scrolled
    assert "\r\x1b[2Kjudge: 2/2 claims judged, " in text
    assert text.endswith("\r\x1b[2K")  # cleared before the table is printed


def test_observer_faults_never_touch_the_run() -> None:
    from judge.pipeline.progress import claims_judged, observe

    def broken(name: str, done: int, total: int) -> None:
        raise RuntimeError("display gone")

    with observe(broken):
        claims_judged(1, 2)  # no exception
