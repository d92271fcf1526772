"""`judge batch --engine ray` on a small local Ray instance (one actor) against a loopback
fake judge: the same rows as the local engine, ids already in the output skipped. Starting Ray
takes most of the time; the test stays one run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.cli.app import EXIT_INPUT_ERROR, main
from tests.batch.test_local import GOOD, UNSUPPORTED, read_rows, record, write_lines
from tests.support.fake_judge import FakeJudgeServer, run_fake_openai_server

pytest.importorskip("ray")
pytestmark = pytest.mark.ray


def test_ray_engine_verifies_like_the_local_one_and_skips_done_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("JUDGE_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    folder = tmp_path / "traffic"
    folder.mkdir()
    write_lines(
        folder / "day1.jsonl",
        [json.dumps(record(f"ok{i}", GOOD)) for i in range(4)] + ["{not json"],
    )
    write_lines(
        folder / "day2.jsonl",
        [
            json.dumps(record("unsupported", UNSUPPORTED)),
            json.dumps({"id": "no-text", "evidence": [{"id": "S1"}], "answer": GOOD}),
        ],
    )
    out = tmp_path / "out.jsonl"
    fake = FakeJudgeServer()
    with run_fake_openai_server(fake.handler) as url:
        common = ["--base-url", url, "--model", "fake-judge", "--no-cache"]
        assert main(["batch", str(folder / "day1.jsonl"), "--out", str(out), *common]) in (
            EXIT_INPUT_ERROR,
        )
        local_rows = {row["source"]: row for row in read_rows(out)}
        calls_before = len(fake.requests)
        code = main(
            ["batch", str(folder), "--out", str(out), *common, "--engine", "ray",
             "--workers", "1", "--batch-size", "2", "--concurrency", "2"]
        )  # fmt: skip
    err = capsys.readouterr().err
    assert code == EXIT_INPUT_ERROR
    rows = read_rows(out)
    keys = [row["id"] or row["source"] for row in rows]
    assert len(keys) == len(set(keys)) == 7
    by_source = {row["source"]: row for row in rows}
    for source, row in local_rows.items():
        assert by_source[source] == row  # day1 was done by the local engine: not redone
    ray_rows = [by_source[s] for s in by_source if s not in local_rows]
    assert {row["id"]: row["status"] for row in ray_rows} == {
        "unsupported": "ok",
        "no-text": "invalid",
    }
    assert by_source[f"{folder / 'day2.jsonl'}:1"]["action"] != "pass"
    assert f"{folder / 'day2.jsonl'}:2: invalid record: evidence[0].text: Field required" in err
    assert "5 already done" in err
    assert len(fake.requests) - calls_before <= 2  # only the unsupported record's claim
