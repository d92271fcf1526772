"""examples/judge.toml loads as shipped, and each value it sets is the setting's default (the
file documents the defaults; a change to a default must be made there too)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from judge.cli.app import main
from judge.config import Settings, load_settings

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "judge.toml"


def test_example_config_loads_through_judge_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGE_CONFIG", str(EXAMPLE))
    settings = load_settings()
    values = tomllib.loads(EXAMPLE.read_text(encoding="utf-8"))
    assert values, "the example sets nothing"
    defaults = Settings()
    for key, value in values.items():
        assert getattr(settings, key) == getattr(defaults, key) == value, key


def test_judge_verify_runs_with_the_example_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("JUDGE_CONFIG", str(EXAMPLE))
    monkeypatch.setenv("JUDGE_STATE_DIR", str(tmp_path))
    request = EXAMPLE.parent / "refund_policy.json"
    assert main(["verify", str(request), "--no-judge", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["action"] == "block"
