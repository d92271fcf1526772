"""A key given twice in one JSON object is refused wherever the verifier reads input: this
parser would keep the last of the two, others keep the first."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.batch.records import parse_line
from judge.config import load_settings
from judge.errors import ConfigError
from judge.inputs import strict_json
from judge.pipeline.entail.thresholds import load_calibration


def test_unique_keys_load_as_json_does() -> None:
    text = '{"a": [1, {"b": null}], "c": {"a": 2}}'
    assert strict_json.loads(text) == {"a": [1, {"b": None}], "c": {"a": 2}}


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('{"answer": "x", "answer": "y"}', "answer"),
        ('{"evidence": [{"id": "S1", "id": "S2"}]}', "id"),
        ('{"a\\n\\u001b[31m": 1, "a\\n\\u001b[31m": 2}', "a\n\x1b[31m"),
    ],
)
def test_a_key_given_twice_is_refused(text: str, key: str) -> None:
    with pytest.raises(strict_json.DuplicateKeyError) as caught:
        strict_json.loads(text)
    assert caught.value.key == key
    described = caught.value.describe()
    assert "\n" not in described and "\x1b" not in described


def test_a_batch_line_with_a_key_twice_is_malformed() -> None:
    item = parse_line('{"id": "a", "answer": "x", "answer": "y", "evidence": ["x"]}', "in:1")
    assert item.request is None and item.status == "malformed"
    assert item.error is not None and 'duplicate key "answer"' in item.error


def test_settings_and_calibration_files_with_a_key_twice_are_refused(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text('{"timeout_s": 5, "timeout_s": 50}')
    with pytest.raises(ConfigError, match='duplicate key "timeout_s"'):
        load_settings(config_file=settings)
    calibration = tmp_path / "calibration.json"
    calibration.write_text('{"t_entail": 0.9, "t_contra": 0.5, "t_entail": 0.1}')
    with pytest.raises(ConfigError, match='duplicate key "t_entail"'):
        load_calibration(calibration)
