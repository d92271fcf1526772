"""`judge batch` end to end against loopback fake judges: every line answered once, errors
named by file:line or field, resumable after a kill, and never a pass without a verdict."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from judge.cli.app import EXIT_INPUT_ERROR, EXIT_PASS, EXIT_VERIFIER_ERROR, main
from tests.support.fake_judge import FakeJudgeServer, http_error, run_fake_openai_server

ROOT = Path(__file__).resolve().parents[2]
EVIDENCE = [
    {"id": "S1", "text": "Unopened items can be returned within 30 days of delivery."},
    {"id": "S2", "text": "Refunds are issued to the original payment method."},
]


def record(record_id: str, answer: str) -> dict[str, Any]:
    return {"id": record_id, "evidence": EVIDENCE, "answer": answer}


GOOD = "Unopened items can be returned within 30 days of delivery [S1]."
UNSUPPORTED = "Refunds arrive by cheque within two weeks [S2]."


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def read_rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


class CountingJudge:
    """The rule-based fake, optionally slowed down, counting chat calls."""

    def __init__(self, delay_s: float = 0.0) -> None:
        self.fake = FakeJudgeServer()
        self.delay_s = delay_s
        self.calls = 0
        self.down = False
        self._lock = threading.Lock()

    def handler(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/chat/completions"):
            with self._lock:
                self.calls += 1
            if self.down:
                return http_error(503, "replica down")
            time.sleep(self.delay_s)
        return self.fake.handler(request)


@pytest.fixture
def judge_url() -> Iterator[str]:
    with run_fake_openai_server(CountingJudge().handler) as url:
        yield url


@pytest.fixture(autouse=True)
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    state = tmp_path / "state"
    monkeypatch.setenv("JUDGE_STATE_DIR", str(state))
    monkeypatch.delenv("JUDGE_BASE_URL", raising=False)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    return state


def batch(*args: str) -> int:
    return main(["batch", *args, "--model", "fake-judge", "--no-cache"])


def test_every_line_gets_one_row_and_bad_lines_are_named(
    tmp_path: Path, judge_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write_lines(
        tmp_path / "in.jsonl",
        [
            json.dumps(record("good", GOOD)),
            json.dumps(record("bad", UNSUPPORTED)),
            '{"id": "cut", "evidence": [',
            json.dumps({"id": "no-text", "evidence": [{"id": "S1"}], "answer": GOOD}),
            json.dumps({"evidence": EVIDENCE, "answer": GOOD}),
            json.dumps(record("good", GOOD)),
        ],
    )
    out = tmp_path / "out.jsonl"
    code = batch(str(source), "--out", str(out), "--base-url", judge_url, "--json")
    captured = capsys.readouterr()
    assert code == EXIT_INPUT_ERROR, captured.err
    rows = {row["source"]: row for row in read_rows(out)}
    assert len(rows) == 5  # the repeated id is skipped, every other line answered
    assert rows[f"{source}:1"]["status"] == "ok"
    assert rows[f"{source}:1"]["action"] == "pass"
    assert rows[f"{source}:2"]["action"] != "pass"
    assert rows[f"{source}:3"]["status"] == "malformed"
    assert rows[f"{source}:4"]["status"] == "invalid"
    assert rows[f"{source}:4"]["errors"] == ["evidence[0].text: Field required"]
    assert rows[f"{source}:5"]["errors"] == ["id: missing"]
    assert all(row["action"] == "block" for row in rows.values() if row["status"] != "ok")
    stderr = captured.err
    assert f"{source}:3: malformed record: malformed JSON" in stderr
    assert f"{source}:4: invalid record: evidence[0].text: Field required" in stderr
    assert f"{source}:6: duplicate id 'good' (first at {source}:1), skipped" in stderr
    summary = json.loads(captured.out)
    assert summary["records"] == 5 and summary["duplicates"] == 1
    assert summary["statuses"] == {"ok": 2, "malformed": 1, "invalid": 2}
    assert summary["actions"]["block"] >= 3
    assert summary["judge_calls"] >= 1 and summary["prompt_tokens"] > 0


def test_folder_and_stdin_inputs(
    tmp_path: Path, judge_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    write_lines(folder / "a.jsonl", [json.dumps(record("a1", GOOD))])
    write_lines(folder / "b.jsonl", [json.dumps(record("b1", GOOD))])
    (folder / "notes.txt").write_text("not input\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert batch(str(folder), "--out", str(out), "--base-url", judge_url) == EXIT_PASS
    assert sorted(row["id"] for row in read_rows(out)) == ["a1", "b1"]

    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(record("s1", GOOD)) + "\n"))
    assert batch("-", "--out", str(out), "--base-url", judge_url) == EXIT_PASS
    rows = read_rows(out)
    assert [row["id"] for row in rows] == ["a1", "b1", "s1"] or len(rows) == 3
    assert rows[-1]["source"] == "<stdin>:1"


def test_a_dead_judge_gives_error_rows_and_retry_errors_redoes_only_them(
    tmp_path: Path, judge_url: str
) -> None:
    source = write_lines(
        tmp_path / "in.jsonl", [json.dumps(record(f"r{i}", GOOD)) for i in range(3)]
    )
    out = tmp_path / "out.jsonl"
    dead = "http://127.0.0.1:9/v1"
    assert batch(str(source), "--out", str(out), "--base-url", dead) == EXIT_VERIFIER_ERROR
    rows = read_rows(out)
    assert [row["status"] for row in rows] == ["verifier_error"] * 3
    assert all(row["action"] == "block" for row in rows)
    # A plain rerun keeps the error lines; --retry-errors verifies those records again.
    assert batch(str(source), "--out", str(out), "--base-url", judge_url) == EXIT_PASS
    assert len(read_rows(out)) == 3
    assert (
        batch(str(source), "--out", str(out), "--base-url", judge_url, "--retry-errors")
        == EXIT_PASS
    )
    rows = read_rows(out)
    assert sorted(row["id"] for row in rows) == ["r0", "r1", "r2"]
    assert {row["status"] for row in rows} == {"ok"}


def test_a_line_cut_by_a_kill_is_dropped_and_redone(tmp_path: Path, judge_url: str) -> None:
    source = write_lines(
        tmp_path / "in.jsonl", [json.dumps(record(f"r{i}", GOOD)) for i in range(3)]
    )
    out = tmp_path / "out.jsonl"
    assert batch(str(source), "--out", str(out), "--base-url", judge_url) == EXIT_PASS
    lines = out.read_text(encoding="utf-8").splitlines()
    out.write_text(lines[0] + "\n" + lines[1][:40], encoding="utf-8")  # killed mid-write
    assert batch(str(source), "--out", str(out), "--base-url", judge_url) == EXIT_PASS
    rows = read_rows(out)
    assert sorted(row["id"] for row in rows) == ["r0", "r1", "r2"]


def test_killed_run_resumes_without_duplicates(tmp_path: Path) -> None:
    total = 12
    source = write_lines(
        tmp_path / "in.jsonl", [json.dumps(record(f"r{i:02d}", GOOD)) for i in range(total)]
    )
    out = tmp_path / "out.jsonl"
    slow = CountingJudge(delay_s=0.15)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with run_fake_openai_server(slow.handler) as url:
        command = [
            sys.executable, "-m", "judge", "batch", str(source), "--out", str(out),
            "--base-url", url, "--model", "fake-judge", "--no-cache", "--concurrency", "1",
        ]  # fmt: skip
        process = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if out.exists() and len(out.read_text(encoding="utf-8").splitlines()) >= 3:
                break
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        before = read_rows(out)
        assert 3 <= len(before) < total
        calls_before = slow.calls
        resumed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == EXIT_PASS, resumed.stderr
    after = read_rows(out)
    ids = [row["id"] for row in after]
    assert len(ids) == len(set(ids)) == total
    assert after[: len(before)] == before  # earlier lines untouched
    assert f"{len(before)} already done" in resumed.stderr
    # Only the records without a line were judged again (one claim each).
    assert slow.calls - calls_before <= total - len(before) + 1


def test_parquet_output_resumes(tmp_path: Path, judge_url: str) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    source = write_lines(
        tmp_path / "in.jsonl",
        [json.dumps(record("p1", GOOD)), json.dumps(record("p2", UNSUPPORTED)), "{oops"],
    )
    out = tmp_path / "out.parquet"
    args = ("--out", str(out), "--base-url", judge_url, "--format", "parquet")
    assert batch(str(source), *args) == EXIT_INPUT_ERROR
    assert batch(str(source), *args) == EXIT_PASS  # nothing left to do
    table = pq.read_table(out)
    rows = table.to_pylist()
    assert sorted(str(row["id"]) for row in rows) == ["None", "p1", "p2"]
    by_id = {row["id"]: row for row in rows}
    assert by_id["p1"]["action"] == "pass"
    assert json.loads(by_id["p1"]["verdicts"])[0]["label"] == "supported"


def test_a_replica_dying_mid_run_passes_nothing_undecided(tmp_path: Path) -> None:
    total = 16
    source = write_lines(
        tmp_path / "in.jsonl", [json.dumps(record(f"r{i:02d}", GOOD)) for i in range(total)]
    )
    out = tmp_path / "out.jsonl"
    steady, dying = CountingJudge(delay_s=0.02), CountingJudge(delay_s=0.02)
    original = dying.handler

    def dies_after_four(request: httpx.Request) -> httpx.Response:
        if dying.calls >= 4:
            dying.down = True
        return original(request)

    with (
        run_fake_openai_server(steady.handler) as a,
        run_fake_openai_server(dies_after_four) as b,
    ):
        code = batch(str(source), "--out", str(out), "--base-url", f"{a},{b}")
    rows = read_rows(out)
    assert sorted(row["id"] for row in rows) == [f"r{i:02d}" for i in range(total)]
    for row in rows:
        if row["action"] == "pass":
            assert row["status"] == "ok"
            assert all(v["label"] == "supported" for v in row["verdicts"])
    # Failover to the steady replica decides every record.
    assert code == EXIT_PASS
    assert dying.down and steady.calls >= total - 4


def test_unreachable_ray_address_names_the_setting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("ray")
    source = write_lines(tmp_path / "in.jsonl", [json.dumps(record("r1", GOOD))])
    code = batch(
        str(source), "--out", str(tmp_path / "o.jsonl"), "--engine", "ray",
        "--ray-address", "127.0.0.1:9", "--no-judge",
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == EXIT_INPUT_ERROR
    assert "--ray-address (RAY_ADDRESS): cannot reach the Ray cluster at 127.0.0.1:9" in err
    assert len(err.strip().splitlines()) == 1


def test_missing_input_is_an_input_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = batch(str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "o.jsonl"), "--no-judge")
    assert code == EXIT_INPUT_ERROR
    assert "IN: no such file or folder" in capsys.readouterr().err
