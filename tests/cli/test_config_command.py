"""`judge config`: every setting's effective value and where it came from, secrets masked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judge.cli.app import EXIT_INPUT_ERROR, main
from judge.config import Settings


def _config(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["config", "--json", *args]) == 0
    shown: dict[str, Any] = json.loads(capsys.readouterr().out)
    return shown


def test_each_source_is_named_and_the_highest_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "judge.toml"
    config.write_text("timeout_s = 50.0\nconcurrency = 3\nmax_claims = 20\n", encoding="utf-8")
    monkeypatch.setenv("JUDGE_CONFIG", str(config))
    monkeypatch.setenv("JUDGE_CONCURRENCY", "5")
    monkeypatch.setenv("JUDGE_MAX_CLAIMS", "30")
    settings = _config(capsys, "--concurrency", "7")["settings"]
    assert settings["timeout_s"] == {"value": 50.0, "from": f"config file {config}"}
    assert settings["max_claims"] == {"value": 30, "from": "JUDGE_MAX_CLAIMS"}
    assert settings["concurrency"] == {"value": 7, "from": "command line"}
    assert settings["t_entail"] == {"value": Settings().t_entail, "from": "default"}
    assert list(settings) == list(Settings.model_fields)  # every setting, in the model's order


def test_secrets_are_masked_wherever_they_come_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "judge.json"
    config.write_text(json.dumps({"generator_api_key": "gen-secret-123"}), encoding="utf-8")
    monkeypatch.setenv("JUDGE_SERVE_TOKEN", "serve-secret-456")
    shown = _config(capsys, "--config", str(config), "--api-key", "sk-secret-789")
    text = json.dumps(shown)
    for secret in ("gen-secret-123", "serve-secret-456", "sk-secret-789"):
        assert secret not in text
    assert shown["settings"]["api_key"]["from"] == "command line"
    assert shown["settings"]["generator_api_key"]["from"] == f"config file {config}"
    assert shown["variables"]["JUDGE_SERVE_TOKEN"] != "serve-secret-456"

    assert main(["config", "--config", str(config), "--api-key", "sk-secret-789"]) == 0
    table = capsys.readouterr().out
    assert "sk-secret-789" not in table and "gen-secret-123" not in table
    assert "serve-secret-456" not in table


def test_a_calibration_file_overrides_the_thresholds_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    calibration = tmp_path / "calibration.json"
    calibration.write_text(json.dumps({"t_entail": 0.61, "t_contra": 0.7}), encoding="utf-8")
    settings = _config(capsys, "--calibration", str(calibration))["settings"]
    source = f"calibration file {calibration}"
    assert settings["t_entail"] == {"value": 0.61, "from": source}
    assert settings["t_contra"] == {"value": 0.7, "from": source}
    assert settings["calibration_file"] == {"value": str(calibration), "from": "command line"}
    assert settings["length_slope"]["from"] == "default"  # the file does not set it


def test_the_table_lists_every_setting_with_its_source(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("JUDGE_TIMEOUT_S", "12")
    assert main(["config"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = {
        line.split()[0]: line.split() for line in lines if line.split()[0] in Settings.model_fields
    }
    assert set(rows) == set(Settings.model_fields)
    assert rows["timeout_s"][1:] == ["12.0", "JUDGE_TIMEOUT_S"]
    assert rows["logprobs"][1:] == ["true", "default"]


def test_control_characters_in_a_value_are_shown_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "judge.json"
    config.write_text(json.dumps({"generator_model": "m\x1b[31mred"}), encoding="utf-8")
    assert main(["config", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "m\\x1b[31mred" in out


def test_bad_settings_are_refused_as_by_every_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("JUDGE_TIMOUT_S", "5")
    assert main(["config"]) == EXIT_INPUT_ERROR
    assert "JUDGE_TIMEOUT_S" in capsys.readouterr().err
    monkeypatch.delenv("JUDGE_TIMOUT_S")
    monkeypatch.setenv("JUDGE_TIMEOUT_S", "-1")
    assert main(["config"]) == EXIT_INPUT_ERROR
    assert "invalid environment variable JUDGE_TIMEOUT_S" in capsys.readouterr().err
