"""Bad input and bad settings are one-line errors naming the field or setting (CLI exit 3),
never internal errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.cli.app import EXIT_INPUT_ERROR, main
from judge.config import load_settings
from judge.errors import ConfigError, InputError
from judge.inputs.request import load_request, parse_json, parse_request

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
REQUEST = json.loads((EXAMPLES / "refund_policy.json").read_text())


@pytest.mark.parametrize("field", ["answer", "question"])
def test_lone_surrogates_are_refused_naming_the_field(field: str) -> None:
    with pytest.raises(InputError, match="lone surrogate U\\+D800") as caught:
        parse_request({**REQUEST, field: "text \ud800"})
    assert caught.value.field == field


def test_lone_surrogate_in_a_passage_names_the_passage() -> None:
    evidence = [{**REQUEST["evidence"][0], "text": "a \udfff b"}]
    with pytest.raises(InputError) as caught:
        parse_request({**REQUEST, "evidence": evidence})
    assert caught.value.field == "evidence[0].text"


def test_a_5000_digit_integer_is_an_input_error() -> None:
    with pytest.raises(InputError, match="4300 digits") as caught:
        parse_json(b'{"x": ' + b"7" * 5000 + b"}", field="request", source="the body")
    assert caught.value.field == "request"


@pytest.mark.parametrize(
    ("encode", "readable"),
    [
        (lambda t: t.encode("utf-8"), True),
        (lambda t: b"\xef\xbb\xbf" + t.encode("utf-8"), True),
        (lambda t: t.encode("utf-16"), True),  # with its byte-order mark
        (lambda t: t.encode("utf-16-le"), False),  # no mark: not UTF-8
        (lambda t: t.encode("latin-1"), False),
    ],
)
def test_request_file_encodings(tmp_path: Path, encode: object, readable: bool) -> None:
    text = json.dumps({**REQUEST, "question": "Größe café?"}, ensure_ascii=False)
    path = tmp_path / "request.json"
    path.write_bytes(encode(text))  # type: ignore[operator]
    if readable:
        assert load_request(path).question == "Größe café?"
        return
    with pytest.raises(InputError, match=f"{path} is not UTF-8 text"):
        load_request(path)


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    return code, capsys.readouterr().err.strip()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\xff\xfe\xfa\x00garbage", "is not"),
        (b'{"answer": "\\ud800", "evidence": []}', "answer: lone surrogate"),
        (b'{"evidence": [], "answer": ' + b"1" * 5000 + b"}", "unreadable value"),
        # Read as the last of the two by this parser and as the first by others: refused.
        (b'{"answer": "a [S1].", "answer": "b", "evidence": ["a"]}', 'duplicate key "answer"'),
        (b'{"answer": "a", "evidence": [{"id": "S1", "text": "a", "text": "b"}]}', "duplicate"),
    ],
)
def test_cli_bad_request_files_exit_3_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, message: str
) -> None:
    path = tmp_path / "request.json"
    path.write_bytes(content)
    code, err = _run(["verify", str(path), "--no-judge"], capsys)
    assert code == EXIT_INPUT_ERROR
    assert message in err and "internal error" not in err and "\n" not in err


def test_cli_negative_timeout_exits_3_naming_the_setting(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, err = _run(["verify", str(EXAMPLES / "multi_hop.json"), "--timeout", "-5"], capsys)
    assert code == EXIT_INPUT_ERROR
    assert "setting timeout_s" in err and "the command line" in err and "\n" not in err


def test_bad_environment_value_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGE_TIMEOUT_S", "abc")
    with pytest.raises(ConfigError, match="environment variable JUDGE_TIMEOUT_S = 'abc'"):
        load_settings()


def test_unknown_environment_variable_is_refused_with_the_closest_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("JUDGE_TIMEOUT", "5")
    with pytest.raises(ConfigError, match="JUDGE_TIMEOUT \\(did you mean JUDGE_TIMEOUT_S\\?\\)"):
        load_settings()


@pytest.mark.parametrize(
    "name", ["JUDGE_CONFIG", "JUDGE_DEBUG", "JUDGE_SERVE_TOKEN", "JUDGE_VLLM_ARGS"]
)
def test_variables_read_elsewhere_are_not_settings_but_allowed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str
) -> None:
    config = tmp_path / "judge.toml"
    config.write_text("timeout_s = 9\n")
    monkeypatch.setenv(name, str(config) if name == "JUDGE_CONFIG" else "1")
    assert load_settings().timeout_s == (9 if name == "JUDGE_CONFIG" else 120)


def test_negative_value_in_a_config_file_names_the_file(tmp_path: Path) -> None:
    config = tmp_path / "judge.toml"
    config.write_text("concurrency = -1\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(config)
    assert f"setting concurrency (from config file {config}) = -1" in str(caught.value)
