"""`judge verify` through the real embedded judge server and the real HTTP path.

The tiny SmolLM2 model checks the plumbing (it judges at chance); one test runs the default
Qwen2.5-Coder-1.5B judge on the refund example. A server killed mid-run must leave every
affected claim as verifier_error and the answer blocked.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from judge.api import verify
from judge.cli.app import main
from judge.config import Settings, load_settings
from judge.local_models import server
from judge.local_models.registry import SMOLLM2_135M
from judge.schemas import Action, Label

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
JUDGE_LABELS = {Label.SUPPORTED, Label.UNSUPPORTED, Label.CONTRADICTED}

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        importlib.util.find_spec("xllamacpp") is None, reason="needs xllamacpp (extra 'local')"
    ),
]


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("JUDGE_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("JUDGE_BASE_URL", raising=False)
    monkeypatch.delenv("JUDGE_MODEL", raising=False)
    return tmp_path / "state"


@pytest.fixture
def tiny(state: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("JUDGE_LOCAL_MODEL", SMOLLM2_135M.name)
    yield load_settings()
    server.stop_server(load_settings())


def test_verify_auto_starts_the_embedded_judge_and_returns_schema_valid_verdicts(
    tiny: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["verify", str(EXAMPLES / "multi_hop.json"), "--json"])
    response = json.loads(capsys.readouterr().out)
    assert code in (0, 1)  # pass or not passed; never an input or verifier error
    judged = [v for v in response["verdicts"] if v["judge"] is not None]
    assert judged, "no claim reached the judge"
    for verdict in judged:
        assert verdict["label"] in {label.value for label in JUDGE_LABELS}
        assert verdict["judge"]["model"] == SMOLLM2_135M.name
        assert verdict["judge"]["template_hash"].startswith("sha256:")
        assert 0.0 <= verdict["score"] <= 1.0
        assert verdict["evidence"], "a verdict must point at the evidence it was judged on"
    # The server outlives the command and is reused by the next one.
    info = server.server_status(tiny)
    assert info is not None
    main(["verify", str(EXAMPLES / "multi_hop.json"), "--json", "--no-cache"])
    capsys.readouterr()
    again = server.server_status(tiny)
    assert again is not None and again.pid == info.pid


async def test_server_killed_mid_run_blocks_with_verifier_errors(tiny: Settings) -> None:
    info = server.ensure_server(tiny)
    passages = [
        {"id": f"P{i}", "text": f"Warehouse {i} ships {i * 10} parcels every weekday morning."}
        for i in range(1, 7)
    ]
    answer = " ".join(
        f"Warehouse {i} ships parcels every weekday morning [P{i}]." for i in range(1, 7)
    )
    request = {"evidence": passages, "answer": answer}
    settings = tiny.model_copy(update={"concurrency": 1, "cache_enabled": False})

    async def kill_after_first_verdict() -> None:
        log = info.log_path
        start = log.stat().st_size
        for _ in range(600):
            await asyncio.sleep(0.05)
            if b"print_timing" in log.read_bytes()[start:]:
                break
        os.kill(info.pid, signal.SIGKILL)

    killer = asyncio.create_task(kill_after_first_verdict())
    response = await verify(request, settings)
    await killer
    labels = [v.label for v in response.verdicts if v.claim.id != "conclusion"]
    assert Label.VERIFIER_ERROR in labels
    assert all(label in JUDGE_LABELS | {Label.VERIFIER_ERROR} for label in labels)
    assert response.action is Action.BLOCK
    errors = [v for v in response.verdicts if v.label is Label.VERIFIER_ERROR]
    assert all(v.error for v in errors)


def test_default_judge_on_the_refund_example(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The default 1.5B judge, a few claims: the wrong number and the flipped polarity are
    caught before the model, the judge decides the rest."""
    settings = load_settings()
    try:
        code = main(["verify", str(EXAMPLES / "refund_policy.json"), "--json"])
        response = json.loads(capsys.readouterr().out)
    finally:
        server.stop_server(settings)
    assert code == 1
    assert response["action"] == "block"
    by_id = {v["claim"]["id"]: v for v in response["verdicts"]}
    assert by_id["c1"]["label"] == "number_mismatch" and by_id["c1"]["judge"] is None
    # "Shipping fees are refunded as well" against "Shipping fees are non-refundable".
    assert by_id["c4"]["label"] == "contradicted" and by_id["c4"]["judge"] is None
    for claim_id in ("c2", "c3"):
        assert by_id[claim_id]["label"] in {label.value for label in JUDGE_LABELS}
        assert by_id[claim_id]["judge"]["model"].startswith("qwen2.5-coder-1.5b")
