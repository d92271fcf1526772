"""Settings precedence and refusal of keys the tool does not know."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.config import EvidenceMode, load_settings
from judge.errors import ConfigError


def test_config_file_sets_values_and_overrides_win(tmp_path: Path) -> None:
    path = tmp_path / "judge.toml"
    path.write_text('evidence_mode = "whole"\nt_entail = 0.6\n', encoding="utf-8")
    settings = load_settings(path, t_entail=0.7)
    assert settings.evidence_mode is EvidenceMode.WHOLE
    assert settings.t_entail == 0.7


def test_environment_sits_between_file_and_overrides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "judge.json"
    path.write_text(json.dumps({"t_entail": 0.6, "t_contra": 0.6}), encoding="utf-8")
    monkeypatch.setenv("JUDGE_T_ENTAIL", "0.65")
    settings = load_settings(path)
    assert (settings.t_entail, settings.t_contra) == (0.65, 0.6)


def test_a_retired_key_in_the_config_file_is_refused_with_a_hint(tmp_path: Path) -> None:
    path = tmp_path / "judge.toml"
    path.write_text('evidence_selection = "bm25"\n', encoding="utf-8")
    hint = r"'evidence_selection' \(did you mean 'evidence_mode'\?\)"
    with pytest.raises(ConfigError, match=hint):
        load_settings(path)


def test_a_misspelt_override_is_refused() -> None:
    with pytest.raises(ConfigError, match="unknown setting 't_entailment'"):
        load_settings(t_entailment=0.5)


def test_unrelated_judge_variables_in_the_environment_are_not_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # JUDGE_CONFIG and JUDGE_STATE_DIR are read elsewhere; they must not break loading.
    monkeypatch.setenv("JUDGE_STATE_DIR", "/tmp/judge-state")
    assert load_settings().state_dir == Path("/tmp/judge-state")


def test_the_old_name_of_the_stream_sentence_limit_is_read_as_the_new_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "judge.json"
    path.write_text(json.dumps({"stream_flush_chars": 120}))
    assert load_settings(path).stream_max_sentence_chars == 120
    both = {"stream_flush_chars": 120, "stream_max_sentence_chars": 300}
    path.write_text(json.dumps(both))
    assert load_settings(path).stream_max_sentence_chars == 300  # the new name wins
    monkeypatch.setenv("JUDGE_STREAM_FLUSH_CHARS", "120")
    with pytest.raises(ConfigError, match="JUDGE_STREAM_FLUSH_CHARS"):
        load_settings()
