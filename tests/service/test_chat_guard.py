"""The guard endpoint through the official openai SDK, unchanged, against the app served by a real
uvicorn on loopback, with a fake generator (a loopback OpenAI-compatible server) and the scripted
fake judge."""

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
import uvicorn
from fastapi import FastAPI

from judge.audit.log import AuditLog
from judge.schemas import Action, Label, VerifyResponse
from judge.service.app import ServeOptions, create_app
from tests.support.fake_judge import (
    FakeJudgeServer,
    chat_completion,
    connection_refused,
    fake_settings,
    http_error,
    run_fake_openai_server,
)

EVIDENCE = [
    "Customers may return any unopened item within 30 days of delivery for a full refund.",
    "Refunds are issued to the original payment method within 5 to 7 business days.",
]
GOOD = "Customers may return any unopened item within 30 days of delivery for a full refund [S1]."
SECOND = "Refunds are issued to the original payment method within 5 to 7 business days [S2]."
WRONG = "Customers may return any unopened item within 60 days of delivery for a full refund [S1]."
UNSUPPORTED = "Refund requests are also accepted by carrier pigeon [S2]."
MESSAGES: list[Any] = [
    {"role": "system", "content": "Answer from the passages; cite them as [S1], [S2]."},
    {"role": "user", "content": "How long do I have to return an unopened item?"},
]
TOKEN = "guard-token-for-the-tests"


class FakeGenerator:
    """An OpenAI-compatible chat endpoint that answers with the scripted replies in order."""

    def __init__(self, *replies: str | httpx.Response | BaseException) -> None:
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []

    def handler(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            return httpx.Response(200, json={"object": "list", "data": [{"id": "gen"}]})
        self.requests.append(json.loads(request.content))
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, httpx.Response):
            return reply
        return httpx.Response(200, json=chat_completion(reply, model="generator-model"))


@contextlib.contextmanager
def uvicorn_serving(app: FastAPI) -> Iterator[str]:
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, name="guard-under-test", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.should_exit = True
        thread.join(timeout=20)


@contextlib.contextmanager
def guard(
    tmp_path: Path,
    generator: FakeGenerator | None,
    judge: FakeJudgeServer | None = None,
    **options: Any,
) -> Iterator[tuple[str, AuditLog, FastAPI]]:
    with contextlib.ExitStack() as stack:
        extra: dict[str, Any] = {}
        if generator is not None:
            extra["generator_base_url"] = stack.enter_context(
                run_fake_openai_server(generator.handler)
            )
        settings = fake_settings(state_dir=tmp_path, **extra)
        audit = stack.enter_context(AuditLog.open(tmp_path / "audit.sqlite3"))
        fake_judge = (judge or FakeJudgeServer()).judge(settings)
        app = create_app(settings, ServeOptions(**options), judge=fake_judge, audit=audit)
        yield stack.enter_context(uvicorn_serving(app)), audit, app


def client(url: str, api_key: str = "unused") -> openai.OpenAI:
    return openai.OpenAI(base_url=url, api_key=api_key, max_retries=0)


def grounding(evidence: Any = EVIDENCE, **more: Any) -> dict[str, Any]:
    return {"grounding": {"evidence": evidence, **more}}


def verification(completion: Any) -> tuple[str, VerifyResponse]:
    field = completion.model_extra["grounding"]
    return field["outcome"], VerifyResponse.model_validate(field["verification"])


def test_a_supported_reply_comes_back_as_it_is(tmp_path: Path) -> None:
    generator = FakeGenerator(f"{GOOD} {SECOND}")
    with guard(tmp_path, generator) as (url, audit, app):
        completion = client(url).chat.completions.create(
            model="gen", messages=MESSAGES, temperature=0.2, seed=7, extra_body=grounding()
        )
        assert completion.choices[0].message.content == f"{GOOD} {SECOND}"
        assert completion.choices[0].finish_reason == "stop"
        assert completion.model == "generator-model"
        assert completion.usage is not None and completion.usage.total_tokens == 150
        outcome, result = verification(completion)
        assert outcome == "passed" and result.passed
        assert completion.id == f"chatcmpl-{result.request_id}"
        # The generator saw the chat as sent, without the extension field.
        sent = generator.requests[0]
        assert sent["messages"] == MESSAGES and sent["model"] == "gen"
        assert sent["temperature"] == 0.2 and sent["seed"] == 7 and "grounding" not in sent
        record = audit.get(result.request_id)
        assert record is not None and record.kind == "chat"
        assert record.verify_request().answer == f"{GOOD} {SECOND}"
        samples = app.state.service.metrics.registry.get_sample_value
        assert samples("judge_answers_total", {"action": "pass"}) == 1


def test_an_unsupported_sentence_is_cut_out(tmp_path: Path) -> None:
    with guard(tmp_path, FakeGenerator(f"{GOOD} {UNSUPPORTED} {SECOND}")) as (url, _, _app):
        completion = client(url).chat.completions.create(
            model="gen", messages=MESSAGES, extra_body=grounding()
        )
    outcome, result = verification(completion)
    assert outcome == "repaired" and result.action is Action.REPAIR
    assert completion.choices[0].message.content == f"{GOOD} {SECOND}"


def test_a_contradicted_reply_is_refused_without_its_text(tmp_path: Path) -> None:
    with guard(tmp_path, FakeGenerator(WRONG)) as (url, _, _app):
        completion = client(url).chat.completions.create(
            model="gen", messages=MESSAGES, extra_body=grounding()
        )
    text = completion.choices[0].message.content or ""
    outcome, result = verification(completion)
    assert outcome == "refused" and result.action is Action.BLOCK
    assert "60" not in text
    # The reply failed verification: the refusal says so, naming the failure by kind only.
    assert text == (
        "No verified answer can be given: the reply failed verification against the evidence "
        "(1 statement states a number the cited passage does not give)."
    )


def test_a_dead_judge_never_releases_the_reply(tmp_path: Path) -> None:
    judge = FakeJudgeServer(lambda _request: connection_refused())
    with guard(tmp_path, FakeGenerator(f"{GOOD} {SECOND}"), judge) as (url, audit, _app):
        completion = client(url).chat.completions.create(
            model="gen", messages=MESSAGES, extra_body=grounding()
        )
        outcome, result = verification(completion)
        assert audit.count(kind="chat") == 1
    assert outcome == "verifier_error"
    assert {v.label for v in result.verdicts} == {Label.VERIFIER_ERROR}
    assert completion.choices[0].message.content == (
        "No verified answer can be given: the reply could not be verified."
    )


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        # The error body may carry reply text: it is never passed on, and the party is named.
        (http_error(500, "The kettle costs 40 euros [S1]."), "the generator answered HTTP 500"),
        (connection_refused(), "GeneratorFault: cannot reach the generator"),
    ],
)
def test_a_generator_failure_is_a_502_in_openai_form(
    tmp_path: Path, reply: httpx.Response | BaseException, message: str
) -> None:
    with guard(tmp_path, FakeGenerator(reply)) as (url, audit, _app):
        with pytest.raises(openai.InternalServerError) as caught:
            client(url).chat.completions.create(
                model="gen", messages=MESSAGES, extra_body=grounding()
            )
        assert audit.count() == 0
    assert caught.value.status_code == 502
    body: Any = caught.value.body
    assert body["type"] == "generator_error" and message in body["message"]
    assert "kettle" not in body["message"] and "judge" not in body["message"]


def test_a_buffered_stream_is_verified_before_anything_is_sent(tmp_path: Path) -> None:
    generator = FakeGenerator(f"{GOOD} {SECOND}", WRONG)
    buffered = grounding(stream_mode="buffered")
    with guard(tmp_path, generator) as (url, _, _app):
        chunks = list(
            client(url).chat.completions.create(
                model="gen", messages=MESSAGES, stream=True, extra_body=buffered
            )
        )
        refused = list(
            client(url).chat.completions.create(
                model="gen", messages=MESSAGES, stream=True, extra_body=buffered
            )
        )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == f"{GOOD} {SECOND}"
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert verification(chunks[-1])[0] == "passed"
    assert all("stream" not in request for request in generator.requests)
    refusal = "".join(c.choices[0].delta.content or "" for c in refused if c.choices)
    assert refusal.startswith("No verified answer") and "60" not in refusal
    assert verification(refused[-1])[0] == "refused"


@pytest.mark.parametrize(
    ("extra_body", "param"),
    [
        ({}, "grounding"),
        (grounding([]), "grounding.evidence"),
        (grounding(["fine", {"id": "P2"}]), "grounding.evidence[1].text"),
        (grounding(["fine", 3]), "grounding.evidence[1]"),
        (grounding(citation_policy="lenient"), "grounding.citation_policy"),
        (grounding(stream_mode="tokens"), "grounding.stream_mode"),
        ({**grounding(), "tools": [{"type": "function", "function": {"name": "f"}}]}, "tools"),
        ({**grounding(), "n": 2}, "n"),
    ],
)
def test_a_bad_request_is_a_422_naming_the_field(
    tmp_path: Path, extra_body: dict[str, Any], param: str
) -> None:
    generator = FakeGenerator()
    with (
        guard(tmp_path, generator) as (url, _, _app),
        pytest.raises(openai.UnprocessableEntityError) as caught,
    ):
        client(url).chat.completions.create(model="gen", messages=MESSAGES, extra_body=extra_body)
    body: Any = caught.value.body
    assert body["param"] == param and body["message"].startswith(f"{param}: ")
    assert generator.requests == []


def test_a_body_that_gives_a_key_twice_is_a_422(tmp_path: Path) -> None:
    # Two "grounding" keys: this parser would keep the last, a proxy in front the first.
    body = json.dumps({"model": "gen", "messages": MESSAGES, **grounding()})
    body = body[:-1] + ', "grounding": {"evidence": ["other"]}}'
    generator = FakeGenerator()
    with guard(tmp_path, generator) as (url, _, _app):
        reply = httpx.post(
            f"{url}/chat/completions", content=body, headers={"content-type": "application/json"}
        )
    assert reply.status_code == 422
    assert 'duplicate key \\"grounding\\"' in reply.text
    assert generator.requests == []


def test_search_policy_aligns_a_reply_without_citations(tmp_path: Path) -> None:
    uncited = GOOD.removesuffix(" [S1].") + "."
    with guard(tmp_path, FakeGenerator(uncited, uncited)) as (url, _, _app):
        strict = client(url).chat.completions.create(
            model="gen", messages=MESSAGES, extra_body=grounding()
        )
        search = client(url).chat.completions.create(
            model="gen", messages=MESSAGES, extra_body=grounding(citation_policy="search")
        )
    assert verification(strict)[0] == "refused"
    assert verification(search)[0] == "passed"
    assert search.choices[0].message.content == uncited


def test_the_bearer_token_and_body_limit_apply(tmp_path: Path) -> None:
    generator = FakeGenerator(GOOD)
    with guard(tmp_path, generator, token=TOKEN, max_body_bytes=4000) as (url, _, _app):
        with pytest.raises(openai.AuthenticationError):
            client(url, api_key="wrong-token-of-enough-length").chat.completions.create(
                model="gen", messages=MESSAGES, extra_body=grounding()
            )
        with pytest.raises(openai.APIStatusError) as caught:
            client(url, api_key=TOKEN).chat.completions.create(
                model="gen", messages=MESSAGES, extra_body=grounding(["x" * 5000])
            )
        assert caught.value.status_code == 413
        completion = client(url, api_key=TOKEN).chat.completions.create(
            model="gen", messages=MESSAGES, extra_body=grounding()
        )
    assert verification(completion)[0] == "passed"
    assert len(generator.requests) == 1


def test_without_a_generator_the_endpoint_says_what_to_set(tmp_path: Path) -> None:
    with guard(tmp_path, None) as (url, _, _app), pytest.raises(openai.APIStatusError) as caught:
        client(url).chat.completions.create(model="gen", messages=MESSAGES, extra_body=grounding())
    assert caught.value.status_code == 503
    assert "JUDGE_GENERATOR_BASE_URL" in caught.value.message


def test_an_audit_failure_withholds_the_reply(tmp_path: Path) -> None:
    with guard(tmp_path, FakeGenerator(GOOD)) as (url, audit, _app):
        audit.close()
        with pytest.raises(openai.APIStatusError) as caught:
            client(url).chat.completions.create(
                model="gen", messages=MESSAGES, extra_body=grounding()
            )
    assert caught.value.status_code == 503
    assert "withheld" in caught.value.message and GOOD not in str(caught.value.body)


def test_the_openapi_schema_describes_the_guard() -> None:
    from judge.service.openapi import OPENAPI_PATH

    schema = json.loads(OPENAPI_PATH.read_text(encoding="utf-8"))
    operation = schema["paths"]["/v1/chat/completions"]["post"]
    body = operation["requestBody"]["content"]["application/json"]["schema"]
    assert body == {"$ref": "#/components/schemas/ChatCompletionRequest"}
    assert operation["security"] == [{"bearer": []}]
    assert {"422", "502", "503"} <= set(operation["responses"])
    request = schema["components"]["schemas"]["ChatCompletionRequest"]
    assert {"model", "messages", "grounding"} <= set(request["required"])
    assert "grounding" in schema["components"]["schemas"]["ChatCompletion"]["properties"]
