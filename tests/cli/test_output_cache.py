"""`judge verify` run again on the same inputs prints the earlier output without the pipeline,
and only while everything that output was built from is unchanged."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import diskcache
import pytest

from judge.cli.app import main
from judge.cli.output_cache import StoredOutput, run_key
from judge.judges.cache_store import STORE_SETTINGS
from tests.support.fake_judge import (
    FAKE_MODEL,
    FakeJudgeServer,
    invalid_json_response,
    rule_based_judge,
    run_fake_openai_server,
)
from tests.support.fresh_process import verify_in_fresh_process

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _request() -> dict[str, Any]:
    """The refund example with both of its claims true: judged, and passed."""
    data: dict[str, Any] = json.loads((EXAMPLES / "refund_policy.json").read_text("utf-8"))
    data["answer"] = (
        "You can return an unopened item within 30 days of delivery for a full refund [S1]. "
        "Refunds are issued to the original payment method within 5 to 7 business days [S2]."
    )
    return data


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeJudgeServer]:
    server = FakeJudgeServer()
    with run_fake_openai_server(server.handler) as base_url:
        monkeypatch.setenv("JUDGE_BASE_URL", base_url)
        monkeypatch.setenv("JUDGE_MODEL", FAKE_MODEL)
        yield server


@pytest.fixture
def request_file(tmp_path: Path) -> Path:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(_request()), encoding="utf-8")
    return path


def _verify(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["verify", *argv])
    return code, capsys.readouterr().out


def _store(state: Path) -> diskcache.Cache:
    return diskcache.Cache(str(state / "cache"), **STORE_SETTINGS)


def _verdict_keys(store: diskcache.Cache) -> list[str]:
    return [k for k in store if not k.startswith("output:")]


def _outputs(state: Path) -> dict[str, StoredOutput]:
    with _store(state) as store:
        found = {k: StoredOutput.from_json(store[k]) for k in store if k.startswith("output:")}
    return {k: v for k, v in found.items() if v is not None}


def _without_run(text: str) -> str:
    """What two runs of one request share: all but the request id and the time."""
    text = re.sub(r"[0-9a-f]{32}", "ID", text)
    text = re.sub(r'"seconds": [0-9.e-]+', '"seconds": T', text)
    return re.sub(r"  [0-9]+\.[0-9]{2} s", "  T s", text)


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "table"])
def test_a_repeat_prints_what_the_pipeline_prints_from_the_cache(
    fake: FakeJudgeServer,
    request_file: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    as_json: bool,
) -> None:
    argv = ["--json", str(request_file)] if as_json else [str(request_file)]
    first_code, _ = _verify(capsys, *argv)
    asked = len(fake.requests)
    replay_code, replayed = _verify(capsys, *argv)
    assert asked >= 2 and len(fake.requests) == asked
    # The same run through the pipeline, its verdicts from the verdict cache: another
    # environment is another output key.
    monkeypatch.setenv("UNRELATED_SETTING", "1")
    piped_code, piped = _verify(capsys, *argv)
    assert len(fake.requests) == asked
    assert first_code == replay_code == piped_code == 0
    assert _without_run(replayed) == _without_run(piped)
    assert "judge calls 0" in replayed or '"judge_calls": 0' in replayed


def test_a_repeat_has_its_own_request_id_and_time(
    fake: FakeJudgeServer, request_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, first = _verify(capsys, "--json", str(request_file))
    _, second = _verify(capsys, "--json", str(request_file))
    _, third = _verify(capsys, "--json", str(request_file))
    ids = {json.loads(text)["request_id"] for text in (first, second, third)}
    assert len(ids) == 3
    replayed = json.loads(third)
    assert replayed["seconds"] < json.loads(first)["seconds"] + 1
    assert all(v["judge"]["cached"] for v in replayed["verdicts"] if v["judge"])


def test_a_judge_that_is_down_stops_a_repeat_as_it_stops_the_pipeline(
    request_file: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeJudgeServer()
    monkeypatch.setenv("JUDGE_MODEL", FAKE_MODEL)
    with run_fake_openai_server(fake.handler) as base_url:
        monkeypatch.setenv("JUDGE_BASE_URL", base_url)
        assert _verify(capsys, "--json", str(request_file))[0] == 0
        assert _verify(capsys, "--json", str(request_file))[0] == 0  # replayed
    code = main(["verify", "--json", str(request_file)])
    assert code == 3  # "cannot reach the judge", the preflight's answer: no pass
    assert "cannot reach the judge" in capsys.readouterr().err


def test_a_repeat_without_the_judge_needs_no_judge(
    request_file: Path, capsys: pytest.CaptureFixture[str], isolated_state: Path
) -> None:
    first = _verify(capsys, "--json", "--no-judge", str(request_file))
    assert first[0] == 1 and len(_outputs(isolated_state)) == 1
    assert _verify(capsys, "--json", "--no-judge", str(request_file))[0] == 1


def test_a_changed_request_is_judged(
    fake: FakeJudgeServer, request_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _verify(capsys, "--json", str(request_file))[0] == 0
    changed = _request()
    changed["answer"] = changed["answer"].replace("5 to 7 business days", "14 days")
    request_file.write_text(json.dumps(changed), encoding="utf-8")
    code, out = _verify(capsys, "--json", str(request_file))
    assert code == 1 and json.loads(out)["action"] != "pass"


def test_a_changed_verdict_entry_is_not_replayed_and_fails_closed(
    fake: FakeJudgeServer,
    request_file: Path,
    capsys: pytest.CaptureFixture[str],
    isolated_state: Path,
) -> None:
    assert _verify(capsys, "--json", str(request_file))[0] == 0
    with _store(isolated_state) as store:
        for key in _verdict_keys(store):
            store[key] = '{"format": 1}'
    code, out = _verify(capsys, "--json", str(request_file))
    assert code == 4
    assert all(v["label"] == "verifier_error" for v in json.loads(out)["verdicts"])


def test_a_cleared_verdict_cache_sends_the_request_to_the_judge(
    fake: FakeJudgeServer,
    request_file: Path,
    capsys: pytest.CaptureFixture[str],
    isolated_state: Path,
) -> None:
    _verify(capsys, "--json", str(request_file))
    asked = len(fake.requests)
    with _store(isolated_state) as store:
        for key in _verdict_keys(store):
            del store[key]
    assert _verify(capsys, "--json", str(request_file))[0] == 0
    assert len(fake.requests) == 2 * asked


def test_a_calibration_file_written_since_is_applied(
    fake: FakeJudgeServer,
    request_file: Path,
    capsys: pytest.CaptureFixture[str],
    isolated_state: Path,
) -> None:
    assert _verify(capsys, "--json", str(request_file))[0] == 0
    (isolated_state / "calibration.json").write_text(
        json.dumps({"t_entail": 0.999, "t_contra": 0.5}), encoding="utf-8"
    )
    code, out = _verify(capsys, "--json", str(request_file))
    assert code == 1 and json.loads(out)["calibration_hash"] is not None


def test_a_corrupt_stored_output_is_a_miss(
    fake: FakeJudgeServer,
    request_file: Path,
    capsys: pytest.CaptureFixture[str],
    isolated_state: Path,
) -> None:
    _verify(capsys, "--json", str(request_file))
    with _store(isolated_state) as store:
        for key in [k for k in store if k.startswith("output:")]:
            store[key] = json.dumps({"format": 1, "head": "pass\n"})
    code, out = _verify(capsys, "--json", str(request_file))
    assert code == 0 and json.loads(out)["action"] == "pass"


def test_verifier_errors_audited_runs_and_reports_are_not_kept(
    request_file: Path,
    capsys: pytest.CaptureFixture[str],
    isolated_state: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    broken = [True]

    def script(body: dict[str, Any]) -> Any:
        return invalid_json_response() if broken[0] else rule_based_judge(body)

    fake = FakeJudgeServer(script)
    with run_fake_openai_server(fake.handler) as base_url:
        monkeypatch.setenv("JUDGE_BASE_URL", base_url)
        monkeypatch.setenv("JUDGE_MODEL", FAKE_MODEL)
        assert _verify(capsys, "--json", str(request_file))[0] == 4
        broken[0] = False
        assert _verify(capsys, "--json", "--audit", str(request_file))[0] == 0
        assert _verify(capsys, "--html", str(tmp_path / "r.html"), str(request_file))[0] == 0
        assert _verify(capsys, "--json", "--no-cache", str(request_file))[0] == 0
        assert _outputs(isolated_state) == {}
        asked = len(fake.requests)
        assert _verify(capsys, "--json", str(request_file))[0] == 0
        assert len(_outputs(isolated_state)) == 1 and len(fake.requests) == asked


def test_the_key_is_everything_a_run_reads_before_it_runs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    key = run_key(["verify", "r.json"], sys.stdout)
    assert run_key(["verify", "r.json"], sys.stdout) == key
    assert run_key(["verify", "--json", "r.json"], sys.stdout) != key
    monkeypatch.setenv("JUDGE_T_ENTAIL", "0.5")
    assert run_key(["verify", "r.json"], sys.stdout) != key
    monkeypatch.delenv("JUDGE_T_ENTAIL")
    monkeypatch.setenv("OLDPWD", "/elsewhere")  # set by the shell on every cd
    assert run_key(["verify", "r.json"], sys.stdout) == key
    monkeypatch.chdir(tmp_path)
    assert run_key(["verify", "r.json"], sys.stdout) != key


def test_a_model_looked_up_on_the_server_is_not_kept(
    fake: FakeJudgeServer,
    request_file: Path,
    capsys: pytest.CaptureFixture[str],
    isolated_state: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("JUDGE_MODEL")
    assert _verify(capsys, "--json", str(request_file))[0] == 0
    assert _verify(capsys, "--json", str(request_file))[0] == 0
    assert _outputs(isolated_state) == {}
    assert fake.model_list_calls >= 2  # each run asked which model the server serves


def test_the_kept_output_is_owner_only(
    fake: FakeJudgeServer,
    request_file: Path,
    capsys: pytest.CaptureFixture[str],
    isolated_state: Path,
) -> None:
    previous = os.umask(0o022)
    try:
        _verify(capsys, "--json", "--no-judge", str(request_file))
    finally:
        os.umask(previous)
    assert _outputs(isolated_state)
    for path in [isolated_state / "cache", *(isolated_state / "cache").iterdir()]:
        assert path.stat().st_mode & 0o077 == 0, path


def test_a_request_read_from_a_pipe_is_not_kept(
    fake: FakeJudgeServer, capsys: pytest.CaptureFixture[str], isolated_state: Path
) -> None:
    read, write = os.pipe()
    os.write(write, json.dumps(_request()).encode())
    os.close(write)
    try:
        assert _verify(capsys, "--json", f"/dev/fd/{read}")[0] == 0
    finally:
        os.close(read)
    assert _outputs(isolated_state) == {}


def test_a_replay_loads_neither_pydantic_nor_the_pipeline(request_file: Path) -> None:
    fake = FakeJudgeServer()
    watched = ("pydantic", "judge.pipeline.runner", "openai")
    with run_fake_openai_server(fake.handler) as base_url:
        env = {**os.environ, "JUDGE_BASE_URL": base_url, "JUDGE_MODEL": FAKE_MODEL}
        first = verify_in_fresh_process(request_file, env, watched)
        second = verify_in_fresh_process(request_file, env, watched)
    assert first.code == second.code == 0
    assert "judge.pipeline.runner" in first.loaded
    assert second.loaded == []
