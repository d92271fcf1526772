"""Drafts under the citation grammar: support taken from the setting or probed (and kept), the
fallback to the prompt with a note, a constrained draft passing through, a server that does not
apply what it was sent. Scripted generator endpoints behave as llama.cpp's server, vLLM, or a
server that knows neither field; all behind the real HTTP stack."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import httpx
import pytest

from judge.answer.generator import Generation, build_http_generator
from judge.answer.grammar import CitationGrammar, Dialect
from judge.answer.grammar_support import PROBE_MAX_TOKENS, PROBE_REPLY, probe_fields
from judge.answer.loop import AnswerResult, Outcome, answer
from judge.answer.refusals import RefusalKind
from judge.answer.relevance import REFUSAL_SENTENCE
from judge.cli.app import main
from judge.prompts.rendering import RenderedPrompt
from tests.answer.test_loop import (
    EVIDENCE,
    GIFT_CARD,
    PAYMENT,
    PAYMENT_Q,
    RETURN_Q,
    UNOPENED,
)
from tests.support.fake_judge import (
    FAKE_BASE_URL,
    FakeJudgeServer,
    Spec,
    chat_completion,
    fake_settings,
    http_error,
    run_fake_openai_server,
)

Kind = Literal["llamacpp", "vllm", "plain", "strict", "down"]
FIELD = {"llamacpp": "grammar", "vllm": "structured_outputs"}
GREETING = "Hello! How can I help you today?"


class Endpoint:
    """A generator endpoint that treats the constraint fields as a kind of server does:
    ``llamacpp`` applies ``grammar``, ``vllm`` applies ``structured_outputs``, ``plain``
    ignores both, ``strict`` refuses either with HTTP 400, ``down`` answers HTTP 503 to a
    probe. Drafts are answered from ``drafts`` in order, as written (an endpoint that applies a
    grammar is trusted to have kept to it)."""

    def __init__(self, kind: Kind, drafts: Sequence[str]) -> None:
        self.kind = kind
        self.drafts = list(drafts)
        self.server = FakeJudgeServer(self.respond)

    def respond(self, body: dict[str, Any]) -> Spec:
        sent = [name for name in ("grammar", "structured_outputs") if name in body]
        if sent and self.kind == "strict":
            return http_error(400, f"unknown field: {sent[0]}")
        if is_probe(body):
            if self.kind == "down":
                return http_error(503, "loading model")
            applied = FIELD.get(self.kind) in sent
            return chat_completion(PROBE_REPLY if applied else GREETING)
        return chat_completion(self.drafts.pop(0))

    @property
    def probes(self) -> list[dict[str, Any]]:
        return [r for r in self.server.requests if is_probe(r)]

    @property
    def drafts_sent(self) -> list[dict[str, Any]]:
        return [r for r in self.server.requests if not is_probe(r)]


def is_probe(body: dict[str, Any]) -> bool:
    return body.get("max_tokens") == PROBE_MAX_TOKENS and any(
        body.get(name) == value
        for dialect in Dialect
        for name, value in probe_fields(dialect).items()
    )


async def run(
    endpoint: Endpoint,
    question: str = RETURN_Q,
    *,
    generator_grammar: str = "auto",
    times: int = 1,
    **settings: Any,
) -> list[AnswerResult]:
    config = fake_settings(generator_grammar=generator_grammar, **settings)
    judge_server = FakeJudgeServer()
    generator = build_http_generator(
        config, base_url=FAKE_BASE_URL, model="gen", http_client=endpoint.server.http_client()
    )
    results = []
    async with judge_server.judge(config) as judge, generator:
        for _ in range(times):
            results.append(
                await answer(question, EVIDENCE, config, generator=generator, judge=judge)
            )
    return results


async def test_a_llamacpp_endpoint_is_probed_and_the_draft_written_under_its_grammar() -> None:
    endpoint = Endpoint("llamacpp", [UNOPENED])
    (result,) = await run(endpoint)
    assert result.outcome is Outcome.PASSED and result.text == UNOPENED
    assert result.drafting.grammar is Dialect.LLAMACPP
    assert result.drafting.source == "probe" and result.drafting.probe_calls == 1
    assert result.drafting.note is None
    (probe,) = endpoint.probes
    assert probe["grammar"] == 'root ::= "[7]"\n' and probe["temperature"] == 0
    (draft,) = endpoint.drafts_sent
    expected = CitationGrammar.for_ids(["S1", "S2"], max_sentences=5, max_citations=4)
    assert draft["grammar"] == expected.gbnf()
    assert 'id ::= "S1" | "S2"' in draft["grammar"]
    assert "structured_outputs" not in draft
    step = result.steps[0]
    assert step.constrained is True and step.cites_every_sentence is True
    assert result.generator_calls == 1  # drafts; the probe is counted in drafting


async def test_a_vllm_endpoint_gets_structured_outputs_with_the_regex() -> None:
    endpoint = Endpoint("vllm", [PAYMENT])
    (result,) = await run(endpoint, PAYMENT_Q)
    assert result.outcome is Outcome.PASSED
    assert result.drafting.grammar is Dialect.VLLM and result.drafting.probe_calls == 2
    (draft,) = endpoint.drafts_sent
    assert "grammar" not in draft
    regex = draft["structured_outputs"]["regex"]
    assert regex == CitationGrammar.for_ids(["S1", "S2"]).regex()


@pytest.mark.parametrize(
    ("kind", "finding"),
    [
        (
            "plain",
            "the generator endpoint does not constrain decoding (llama.cpp grammar: ignored; "
            "vLLM structured outputs: ignored)",
        ),
        (
            "strict",
            "the generator endpoint does not constrain decoding (llama.cpp grammar: refused "
            "(HTTP 400); vLLM structured outputs: refused (HTTP 400))",
        ),
        (
            "down",
            "the generator endpoint could not be probed for constrained decoding (llama.cpp "
            "grammar: HTTP 503; vLLM structured outputs: HTTP 503)",
        ),
    ],
)
async def test_without_support_the_prompt_stands_alone_with_a_note(
    kind: Kind, finding: str
) -> None:
    endpoint = Endpoint(kind, [UNOPENED])
    (result,) = await run(endpoint)
    assert result.outcome is Outcome.PASSED
    assert result.drafting.grammar is None and result.drafting.source == "probe"
    assert result.drafting.note == f"{finding}: drafts follow the prompt's citation rule only"
    (draft,) = endpoint.drafts_sent
    assert "grammar" not in draft and "structured_outputs" not in draft
    assert result.steps[0].constrained is False
    assert result.steps[0].cites_every_sentence is True


async def test_the_setting_off_probes_nothing() -> None:
    endpoint = Endpoint("llamacpp", [f"{GIFT_CARD.removesuffix(' [S2].')}.", PAYMENT])
    (result,) = await run(endpoint, PAYMENT_Q, generator_grammar="off")
    assert endpoint.probes == []
    assert result.drafting.source == "setting"
    assert result.drafting.note == (
        "constrained decoding is off (generator_grammar = off): drafts follow the prompt's "
        "citation rule only"
    )
    # Measured all the same: the uncited draft does not cite every sentence.
    assert [s.cites_every_sentence for s in result.steps if s.stage != "final"] == [False, True]


async def test_a_named_dialect_is_taken_without_a_probe() -> None:
    endpoint = Endpoint("llamacpp", [UNOPENED])
    (result,) = await run(endpoint, generator_grammar="llamacpp")
    assert endpoint.probes == []
    assert result.drafting.grammar is Dialect.LLAMACPP and result.drafting.source == "setting"
    assert "grammar" in endpoint.drafts_sent[0]


async def test_a_reply_outside_the_grammar_stops_the_grammar_being_trusted() -> None:
    # Named llamacpp, but the server ignores the field: its uncited draft is still verified
    # (and regenerated), and the regeneration goes without the grammar, with a note.
    uncited = "Refunds go back to the original payment method."
    endpoint = Endpoint("plain", [uncited, PAYMENT])
    (result,) = await run(endpoint, PAYMENT_Q, generator_grammar="llamacpp")
    assert result.outcome is Outcome.REGENERATED and result.text == PAYMENT
    first, second = endpoint.drafts_sent
    assert "grammar" in first and "grammar" not in second
    assert result.drafting.grammar is None and result.drafting.source == "check"
    assert result.drafting.note == (
        "a reply came back outside the llamacpp grammar it was sent (the endpoint did not apply "
        "it): drafts follow the prompt's citation rule only"
    )
    steps = [s for s in result.steps if s.stage in ("draft", "regeneration")]
    assert [(s.constrained, s.cites_every_sentence) for s in steps] == [
        (True, False),
        (False, True),
    ]


async def test_the_probe_is_made_once_per_generator() -> None:
    endpoint = Endpoint("llamacpp", [UNOPENED, UNOPENED])
    results = await run(endpoint, times=2)
    assert len(endpoint.probes) == 1
    assert all(r.drafting.grammar is Dialect.LLAMACPP for r in results)
    assert all("grammar" in d for d in endpoint.drafts_sent)


async def test_a_refusal_under_the_grammar_is_a_refusal_of_the_right_kind() -> None:
    endpoint = Endpoint("llamacpp", [REFUSAL_SENTENCE])
    (result,) = await run(endpoint, "What is the warranty period for laptops?")
    assert result.outcome is Outcome.REFUSED
    assert result.refusal is RefusalKind.NO_ANSWER
    assert result.text == (
        "No verified answer can be given: no passage of the evidence bears on the question "
        "(none mentions: warranty, period, laptops)."
    )
    assert result.steps[0].constrained is True and result.steps[0].cites_every_sentence


class PromptOnlyGenerator:
    """A generator of one's own that knows nothing of grammars."""

    def __init__(self, text: str) -> None:
        self.text = text

    async def generate(self, prompt: RenderedPrompt) -> Generation:
        return Generation(self.text, "own", "stop", 1, 1, 0.0)


async def test_a_generator_of_ones_own_gets_no_grammar_and_a_note() -> None:
    config = fake_settings(generator_grammar="llamacpp")
    async with FakeJudgeServer().judge(config) as judge:
        result = await answer(
            RETURN_Q, EVIDENCE, config, generator=PromptOnlyGenerator(UNOPENED), judge=judge
        )
    assert result.outcome is Outcome.PASSED
    assert result.drafting.grammar is None
    assert result.drafting.note == (
        "the generator given takes no grammar: drafts follow the prompt's citation rule only"
    )


def test_cli_drafts_under_the_probed_grammar(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("JUDGE_STATE_DIR", str(tmp_path))
    monkeypatch.setenv("JUDGE_HTTP_RETRIES", "0")
    endpoint = Endpoint("llamacpp", [UNOPENED])
    judge_server = FakeJudgeServer()

    def handler(request: httpx.Request) -> httpx.Response:
        # One endpoint for both roles: judge requests carry a response_format.
        if request.method == "POST" and b"response_format" not in request.content:
            return endpoint.server.handler(request)
        return judge_server.handler(request)

    evidence = tmp_path / "evidence.json"
    evidence.write_text(json.dumps({"question": RETURN_Q, "evidence": EVIDENCE}))
    with run_fake_openai_server(handler) as url:
        args = ["answer", "-e", str(evidence), "--json", "--quiet", "--no-record", "--no-cache"]
        assert main([*args, "--base-url", url, "--model", "fake-judge"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["drafting"] == {
        "grammar": "llamacpp",
        "source": "probe",
        "note": None,
        "probe_calls": 1,
    }
    assert result["steps"][0]["constrained"] is True
    assert "grammar" in endpoint.drafts_sent[0]


async def test_the_embedded_server_is_known_by_its_backend_and_not_probed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from judge.answer import generator as generator_module
    from judge.local_models import server as local_server
    from judge.pipeline.entail import connect as runtime

    url = "http://127.0.0.1:9/v1"  # never reached: nothing is probed

    async def embedded(_settings: Any) -> tuple[str, str | None]:
        return url, "embedded-model"

    def record(_settings: Any) -> local_server.ServerInfo:
        return local_server.ServerInfo(
            base_url=url, model_id="embedded-model", model="m", backend="llamacpp", pid=1,
            port=9, log_path=tmp_path / "log", started_at=0.0,
        )  # fmt: skip

    monkeypatch.setattr(runtime, "resolve_endpoint", embedded)
    monkeypatch.setattr(local_server, "recorded_server", record)
    config = fake_settings(base_url=None, generator_grammar="auto", state_dir=tmp_path)
    async with generator_module.open_generator(config) as generator:
        support = await generator.grammar_support(config.generator_grammar)
    assert support.dialect is Dialect.LLAMACPP and support.source == "server"
    assert support.probe_calls == 0

    # Another server at that address (a restart on a new port, or none): probed as any other.
    monkeypatch.setattr(local_server, "recorded_server", lambda _settings: None)
    async with generator_module.open_generator(config) as generator:
        assert generator._known_dialect is None
