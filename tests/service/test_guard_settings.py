"""The guard endpoint's generator is configured like everything else: environment or file."""

from pathlib import Path

import pytest

from judge.config import load_settings
from judge.errors import InputError
from judge.service.chat import guarded_reply, parse_chat


def test_generator_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGE_GENERATOR_BASE_URL", "http://127.0.0.1:8000/v1")
    monkeypatch.setenv("JUDGE_GENERATOR_MODEL", "writer")
    settings = load_settings()
    assert settings.generator_base_url == "http://127.0.0.1:8000/v1"
    assert settings.generator_model == "writer" and settings.generator_api_key is None


def test_generator_settings_from_the_config_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("JUDGE_GENERATOR_BASE_URL", raising=False)
    path = tmp_path / "judge.toml"
    path.write_text('generator_base_url = "http://gen:9000/v1"\ngenerator_api_key = "k"\n')
    settings = load_settings(path)
    assert settings.generator_base_url == "http://gen:9000/v1"
    assert settings.generator_api_key == "k"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (b"{not json", "request"),
        (b"[]", "request"),
        (b'{"model": "m", "messages": []}', "messages"),
        (b'{"model": "m", "messages": [{"role": "user", "content": "q"}]}', "grounding"),
        (b'{"model": "m", "messages": [{"role": "user"}], "grounding": {"evidence": ["e"],'
         b' "extra": 1}}', "grounding.extra"),
        (b'{"model": "m", "messages": [{"role": "user"}], "grounding": {"evidence": ["e"]},'
         b' "response_format": {"type": "json_object"}}', "response_format"),
    ],
)  # fmt: skip
def test_parse_chat_names_the_field(body: bytes, field: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_chat(body)
    assert caught.value.field == field


def test_parse_chat_takes_the_sdk_fields_it_does_not_use() -> None:
    body = (
        b'{"model": "m", "messages": [{"role": "user", "content": "q"}], "user": "u1",'
        b' "stream_options": {"include_usage": true}, "grounding": {"evidence": ["e"]}}'
    )
    chat = parse_chat(body)
    assert chat.grounding.evidence == ["e"] and chat.model_extra == {
        "user": "u1",
        "stream_options": {"include_usage": True},
    }


def test_guarded_reply_is_never_the_reply_unless_it_passed() -> None:
    from judge.schemas import Action, Claim, ClaimVerdict, Label, VerifyResponse

    def response(action: Action, label: Label, repaired: str | None = None) -> VerifyResponse:
        verdict = ClaimVerdict(claim=Claim(id="c1", text="t"), label=label)
        return VerifyResponse(
            request_id="r", action=action, ledger_hash="h", verdicts=[verdict],
            repaired_answer=repaired, failing_claims=[] if label is Label.SUPPORTED else ["c1"],
        )  # fmt: skip

    assert guarded_reply(response(Action.PASS, Label.SUPPORTED), "DRAFT") == ("passed", "DRAFT")
    assert guarded_reply(response(Action.REPAIR, Label.UNSUPPORTED, "fixed"), "DRAFT") == (
        "repaired",
        "fixed",
    )
    outcome, text = guarded_reply(response(Action.REGENERATE, Label.UNSUPPORTED), "DRAFT")
    assert outcome == "refused" and "DRAFT" not in text
    assert "(1 statement is not supported by the evidence)" in text
    # A verifier error wins over whatever the policy said.
    outcome, text = guarded_reply(response(Action.PASS, Label.VERIFIER_ERROR), "DRAFT")
    assert outcome == "verifier_error" and "DRAFT" not in text
