"""The guard endpoint's verified stream (``stream: true``) through the official openai SDK and
raw HTTP, against the app served by uvicorn on loopback, with the scripted streaming generator
and the scripted fake judge. Waits are on events with generous deadlines, never on timings."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Iterator, MutableMapping
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from fastapi import FastAPI

from judge.audit.log import AuditLog, AuditRecord
from judge.errors import AuditError
from judge.pipeline.entail.llm_judge import build_http_judge
from judge.protocols import Judge
from judge.schemas import Action, VerifyResponse
from judge.service.app import ServeOptions, create_app
from tests.service.test_chat_guard import (
    EVIDENCE,
    GOOD,
    MESSAGES,
    SECOND,
    UNSUPPORTED,
    WRONG,
    client,
    grounding,
    uvicorn_serving,
)
from tests.support.fake_judge import (
    FAKE_MODEL,
    FakeJudgeServer,
    fake_settings,
    read_timeout,
    rule_based_judge,
    run_fake_openai_server,
)
from tests.support.fake_stream import StreamingGenerator, StreamReply, serve_streaming_generator

WAIT_S = 20.0  # a deadline for things that happen at once; never reached when the code works
MORE = " ".join(
    "Refunds are issued to the original payment method within 5 to 7 business days [S2]."
    for _ in range(12)
)


@contextlib.contextmanager
def streaming_guard(
    tmp_path: Path,
    generator: StreamingGenerator,
    judge: Judge | None = None,
    options: ServeOptions | None = None,
    **settings: Any,
) -> Iterator[tuple[str, AuditLog, FastAPI]]:
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(serve_streaming_generator(generator))
        config = fake_settings(state_dir=tmp_path, generator_base_url=url, **settings)
        audit = stack.enter_context(AuditLog.open(tmp_path / "audit.sqlite3"))
        judge = judge or FakeJudgeServer().judge(config)
        app = create_app(config, options or ServeOptions(), judge=judge, audit=audit)
        yield stack.enter_context(uvicorn_serving(app)), audit, app


@contextlib.contextmanager
def served_judge(server: FakeJudgeServer) -> Iterator[Judge]:
    """A judge on a real loopback server, so its script may block without stalling the app."""
    with run_fake_openai_server(server.handler) as url:
        yield build_http_judge(fake_settings(base_url=url), base_url=url, model=FAKE_MODEL)


def stream(url: str, **more: Any) -> list[Any]:
    return list(
        client(url).chat.completions.create(
            model="gen", messages=MESSAGES, stream=True, extra_body=grounding(**more)
        )
    )


def text_of(chunks: list[Any]) -> str:
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


def grounding_of(chunk: Any) -> dict[str, Any]:
    field: dict[str, Any] = chunk.model_extra["grounding"]
    return field


def only_record(audit: AuditLog) -> AuditRecord:
    records = list(audit.iter_since(kind="chat"))
    assert len(records) == 1
    return records[0]


def wait_for_record(audit: AuditLog) -> AuditRecord:
    done = threading.Event()
    for _ in range(int(WAIT_S / 0.05)):
        if audit.count(kind="chat"):
            break
        done.wait(0.05)
    return only_record(audit)


def test_each_sentence_is_sent_once_verified_and_the_last_chunk_carries_grounding(
    tmp_path: Path,
) -> None:
    generator = StreamingGenerator(StreamReply.of(f"{GOOD} {SECOND}"))
    with streaming_guard(tmp_path, generator) as (url, audit, app):
        chunks = stream(url)
        record = only_record(audit)
        metrics = app.state.service.metrics.registry.get_sample_value
    assert generator.requests[0]["stream"] is True
    contents = [c.choices[0].delta.content for c in chunks if c.choices]
    assert contents[0] == ""  # the role chunk: no text
    assert [c for c in contents if c] == [GOOD, f" {SECOND}"]  # one chunk per sentence
    assert text_of(chunks) == f"{GOOD} {SECOND}"
    last = chunks[-1]
    assert last.choices[0].finish_reason == "stop"
    assert last.usage is not None and last.usage.total_tokens == 120
    field = grounding_of(last)
    assert field["outcome"] == "passed"
    result = VerifyResponse.model_validate(field["verification"])
    # The main conclusion is judged too once every sentence passed, as for a buffered reply.
    assert result.action is Action.PASS
    assert [v.claim.id for v in result.verdicts] == ["c1", "c2", "conclusion"]
    assert [s["release"] for s in field["stream"]["sentences"]] == ["released", "released"]
    assert last.id == f"chatcmpl-{result.request_id}" == chunks[0].id
    # Recorded before the last chunk, with each sentence's release and labels.
    assert record.id == result.request_id and record.extra is not None
    assert record.extra["stream"] is True and record.extra["ended"] == "completed"
    assert [s["labels"] for s in record.extra["sentences"]] == [["supported"], ["supported"]]
    assert record.verify_request().answer == f"{GOOD} {SECOND}"
    assert metrics("judge_stream_first_sentence_seconds_count") == 1
    assert metrics("judge_stream_sentence_delay_seconds_count") == 2
    assert metrics("judge_stream_sentences_total", {"release": "released"}) == 2
    assert metrics("judge_streams_total", {"ended": "completed"}) == 1
    assert metrics("judge_answers_total", {"action": "pass"}) == 1


def test_no_byte_of_a_sentence_goes_out_before_its_verdict(tmp_path: Path) -> None:
    # The judge holds its verdict on the second sentence until the test has read the stream
    # so far: by then the first sentence is out, and not one character of the second.
    asked = threading.Event()
    answer = threading.Event()

    def judge_script(request: dict[str, Any]) -> Any:
        if "carrier pigeon" in json.dumps(request):
            asked.set()
            answer.wait(WAIT_S)
        return rule_based_judge(request)

    generator = StreamingGenerator(StreamReply.of(f"{GOOD} {UNSUPPORTED} {SECOND}"))
    with (
        served_judge(FakeJudgeServer(judge_script)) as judge,
        streaming_guard(tmp_path, generator, judge) as (url, _audit, _app),
        httpx.stream(
            "POST",
            f"{url}/chat/completions",
            json={"model": "gen", "messages": MESSAGES, "stream": True, **grounding()},
            timeout=WAIT_S,
        ) as response,
    ):
        lines = response.iter_lines()
        received = ""
        while not received.endswith("[S1]."):
            line = next(lines)
            if line.startswith("data: {"):
                received += _content(line)
        assert asked.wait(WAIT_S)
        assert received == GOOD  # the held sentence and the one after it: nothing yet
        answer.set()
        for line in lines:
            if line.startswith("data: {"):
                received += _content(line)
    assert received == f"{GOOD} {SECOND}"  # the unsupported sentence withheld, in order


def _content(line: str) -> str:
    choices = json.loads(line.removeprefix("data: ")).get("choices") or [{}]
    text: str = choices[0].get("delta", {}).get("content") or ""
    return text


def test_an_unsupported_sentence_is_withheld_and_the_stream_goes_on(tmp_path: Path) -> None:
    generator = StreamingGenerator(StreamReply.of(f"{GOOD} {UNSUPPORTED} {SECOND}"))
    with streaming_guard(tmp_path, generator) as (url, audit, _app):
        chunks = stream(url)
        record = only_record(audit)
    assert text_of(chunks) == f"{GOOD} {SECOND}"
    field = grounding_of(chunks[-1])
    assert field["outcome"] == "repaired"
    assert field["verification"]["action"] == "repair"
    releases = [s["release"] for s in field["stream"]["sentences"]]
    assert releases == ["released", "withheld", "released"]
    assert record.extra is not None
    assert [s["labels"] for s in record.extra["sentences"]][1] == ["unsupported"]


def test_a_blocking_failure_stops_the_stream_and_cancels_the_generator(tmp_path: Path) -> None:
    # Plenty more to come after the wrong sentence, sent slowly: the generator must be hung up on.
    reply = StreamReply.of(f"{GOOD} {WRONG} {MORE}", gate_before=40)
    generator = StreamingGenerator(reply)
    with streaming_guard(tmp_path, generator) as (url, audit, _app):
        chunks = stream(url)
        assert reply.hung_up.wait(WAIT_S)
        record = only_record(audit)
    text = text_of(chunks)
    notice = (
        "No further verified answer can be given: the next statement states a number the cited "
        "passage does not give, so the reply was stopped there."
    )
    assert text == f"{GOOD}\n\n{notice}"
    assert "60" not in text
    field = grounding_of(chunks[-1])
    assert field["outcome"] == "refused" and field["verification"]["action"] == "block"
    assert field["stream"]["ended"] == "stopped"
    assert reply.sent < len(reply.pieces)
    assert record.extra is not None and record.extra["ended"] == "stopped"
    assert [s["release"] for s in record.extra["sentences"]] == ["released", "stopped"]


def test_a_generator_that_fails_mid_stream_ends_it_as_a_verifier_error(tmp_path: Path) -> None:
    pieces = StreamReply.of(f"{GOOD} {SECOND}").pieces
    # The fault waits until the client has the first sentence, which is complete by then.
    reply = StreamReply(pieces, fault_after=len(pieces) - 3, gate_before=len(pieces) - 4)
    generator = StreamingGenerator(reply)
    with streaming_guard(tmp_path, generator) as (url, audit, _app):
        chunks = []
        for chunk in client(url).chat.completions.create(
            model="gen", messages=MESSAGES, stream=True, extra_body=grounding()
        ):
            chunks.append(chunk)
            if text_of(chunks) == GOOD:
                reply.gate.set()
        record = only_record(audit)
    field = grounding_of(chunks[-1])
    assert field["outcome"] == "verifier_error"
    assert field["verification"]["action"] == "block"
    assert field["stream"]["ended"] == "generator_fault"
    # The complete first sentence was verified and sent; nothing of the cut-off second one.
    assert text_of(chunks) == (f"{GOOD}\n\nThe reply was cut off here: the generator failed.")
    assert record.extra is not None and record.extra["ended"] == "generator_fault"


def test_an_error_event_from_the_generator_is_a_fault_too(tmp_path: Path) -> None:
    pieces = StreamReply.of(GOOD).pieces
    generator = StreamingGenerator(StreamReply(pieces, fault_after=3, fault="error_event"))
    with streaming_guard(tmp_path, generator) as (url, _audit, _app):
        chunks = stream(url)
    assert grounding_of(chunks[-1])["outcome"] == "verifier_error"
    assert text_of(chunks) == "No verified answer can be given: the generator failed."


def test_a_generator_that_fails_before_its_first_chunk_is_a_502(tmp_path: Path) -> None:
    generator = StreamingGenerator(StreamReply([], status=500))
    with streaming_guard(tmp_path, generator) as (url, audit, _app):
        with pytest.raises(openai.InternalServerError) as caught:
            stream(url)
        record = only_record(audit)  # a failed stream is recorded too, with its reason
    assert caught.value.status_code == 502
    assert "the generator answered HTTP 500" in caught.value.message
    assert record.action == "block" and record.extra is not None
    assert record.extra["ended"] == "generator_fault" and record.extra["sentences"] == []
    assert "HTTP 500" in (record.extra["stop_reason"] or "")


def test_a_judge_timeout_mid_stream_stops_it_as_a_verifier_error(tmp_path: Path) -> None:
    def judge_script(request: dict[str, Any]) -> Any:
        return read_timeout() if "5 to 7" in json.dumps(request) else rule_based_judge(request)

    generator = StreamingGenerator(StreamReply.of(f"{GOOD} {SECOND} {GOOD}"))
    judge = FakeJudgeServer(judge_script)
    with streaming_guard(tmp_path, generator, judge.judge(fake_settings())) as (url, audit, _):
        chunks = stream(url)
        record = only_record(audit)
    field = grounding_of(chunks[-1])
    assert field["outcome"] == "verifier_error"
    assert [s["labels"] for s in field["stream"]["sentences"]] == [
        ["supported"],
        ["verifier_error"],
    ]
    assert text_of(chunks) == (
        f"{GOOD}\n\nThe reply was cut off here: the rest could not be verified (verifier error)."
    )
    assert record.action == "block"


def test_a_client_that_goes_away_cancels_the_generator_and_the_judge(tmp_path: Path) -> None:
    held = threading.Event()
    release = threading.Event()

    def judge_script(request: dict[str, Any]) -> Any:
        if "5 to 7" in json.dumps(request):
            held.set()
            release.wait(WAIT_S)
        return rule_based_judge(request)

    reply = StreamReply.of(f"{GOOD} {SECOND} {MORE}", gate_before=60)
    generator = StreamingGenerator(reply)
    server = FakeJudgeServer(judge_script)
    with (
        served_judge(server) as judge,
        streaming_guard(tmp_path, generator, judge) as (url, audit, app),
    ):
        with httpx.stream(
            "POST",
            f"{url}/chat/completions",
            json={"model": "gen", "messages": MESSAGES, "stream": True, **grounding()},
            timeout=WAIT_S,
        ) as response:
            for line in response.iter_lines():
                if GOOD[:20] in line:
                    break
            assert held.wait(WAIT_S)
        # The client is gone while the second sentence is being judged.
        assert reply.hung_up.wait(WAIT_S)
        record = wait_for_record(audit)
        release.set()
        metrics = app.state.service.metrics.registry.get_sample_value
        assert metrics("judge_streams_total", {"ended": "abandoned"}) == 1
    assert record.action == "block" and record.extra is not None
    assert record.extra["ended"] == "abandoned"
    assert "disconnected" in (record.extra["stop_reason"] or "")
    assert [s["release"] for s in record.extra["sentences"]] == ["released"]


def test_an_audit_log_that_fails_mid_stream_releases_nothing_further(tmp_path: Path) -> None:
    audit_path = tmp_path / "audit.sqlite3"
    # The generator holds the second sentence until the first is out; then the log turns
    # read-only and the second sentence, verified, must not follow.
    reply = StreamReply.of(f"{GOOD} {SECOND}", gate_before=len(StreamReply.of(GOOD).pieces) + 2)
    generator = StreamingGenerator(reply)
    received: list[Any] = []
    try:
        with (
            streaming_guard(tmp_path, generator) as (url, _audit, _app),
            pytest.raises(openai.APIError) as caught,
        ):
            for chunk in client(url).chat.completions.create(
                model="gen", messages=MESSAGES, stream=True, extra_body=grounding()
            ):
                received.append(chunk)
                if text_of(received) == GOOD:
                    audit_path.chmod(0o400)
                    reply.gate.set()
    finally:
        audit_path.chmod(0o600)
    assert "audit log unavailable" in caught.value.message
    assert text_of(received) == GOOD  # the second sentence never went out


def test_an_audit_write_that_fails_at_the_end_withholds_the_last_chunk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    generator = StreamingGenerator(StreamReply.of(GOOD))
    received: list[Any] = []
    with streaming_guard(tmp_path, generator) as (url, audit, _app):

        def refuse(*_args: Any, **_kwargs: Any) -> str:
            raise AuditError("disk full")

        monkeypatch.setattr(audit, "record", refuse)
        with pytest.raises(openai.APIError) as caught:
            for chunk in client(url).chat.completions.create(
                model="gen", messages=MESSAGES, stream=True, extra_body=grounding()
            ):
                received.append(chunk)
    assert "disk full" in caught.value.message
    assert all(c.choices[0].finish_reason is None for c in received if c.choices)
    assert not any("grounding" in (c.model_extra or {}) for c in received)


def test_a_long_run_on_sentence_is_verified_whole(tmp_path: Path) -> None:
    run_on = ", ".join(["Customers may return any unopened item within 30 days [S1]"] * 4) + "."
    generator = StreamingGenerator(StreamReply.of(run_on))
    with streaming_guard(tmp_path, generator, stream_max_sentence_chars=400) as (url, _a, _app):
        chunks = stream(url)
    sentences = grounding_of(chunks[-1])["stream"]["sentences"]
    assert len(sentences) == 1 and text_of(chunks) == run_on


def test_a_run_past_the_sentence_limit_is_refused_none_of_it_sent(tmp_path: Path) -> None:
    run_on = ", ".join(["Customers may return any unopened item within 60 days [S1]"] * 4) + "."
    generator = StreamingGenerator(StreamReply.of(f"{GOOD} {run_on}"))
    with streaming_guard(tmp_path, generator, stream_max_sentence_chars=120) as (url, _a, _app):
        chunks = stream(url)
    field = grounding_of(chunks[-1])
    assert field["outcome"] == "refused" and field["stream"]["ended"] == "invalid"
    assert "within 60" not in text_of(chunks)
    assert "characters without a sentence end" in field["stream"]["notice"]


def test_a_run_without_a_blank_is_refused_as_unreadable(tmp_path: Path) -> None:
    generator = StreamingGenerator(StreamReply(["x" * 50] * 4))
    with streaming_guard(tmp_path, generator, stream_max_sentence_chars=120) as (url, _a, _app):
        chunks = stream(url)
    field = grounding_of(chunks[-1])
    assert field["outcome"] == "refused" and field["stream"]["ended"] == "invalid"
    assert "x" * 10 not in text_of(chunks)
    assert text_of(chunks).startswith("No verified answer can be given: the rest could not be read")


def test_stream_mode_buffered_keeps_verify_then_send(tmp_path: Path) -> None:
    generator = StreamingGenerator(StreamReply.of(f"{GOOD} {UNSUPPORTED} {SECOND}"))
    with streaming_guard(tmp_path, generator) as (url, _audit, _app):
        chunks = stream(url, stream_mode="buffered")
    assert "stream" not in generator.requests[0] or not generator.requests[0]["stream"]
    assert text_of(chunks) == f"{GOOD} {SECOND}"
    assert grounding_of(chunks[-1])["outcome"] == "repaired"
    assert "stream" not in grounding_of(chunks[-1])


async def test_langchain_astream_reads_the_verified_stream(tmp_path: Path) -> None:
    from langchain_openai import ChatOpenAI

    generator = StreamingGenerator(
        StreamReply.of(f"{GOOD} {UNSUPPORTED} {SECOND}"), StreamReply.of(WRONG)
    )
    with streaming_guard(tmp_path, generator) as (url, _audit, _app):
        model = ChatOpenAI(
            base_url=url, api_key="unused", model="gen", max_retries=0,  # type: ignore[arg-type]
            extra_body={"grounding": {"evidence": EVIDENCE}},
        )  # fmt: skip
        pieces = [chunk.content async for chunk in model.astream(MESSAGES)]
        refused = [chunk.content async for chunk in model.astream(MESSAGES)]
    assert "".join(str(p) for p in pieces) == f"{GOOD} {SECOND}"
    assert len([p for p in pieces if p]) >= 2  # sentence by sentence, not one block
    refusal = "".join(str(p) for p in refused)
    assert refusal.startswith("No verified answer can be given") and "60" not in refusal


async def test_a_client_that_stops_reading_is_cut_off_and_the_generator_with_it(
    tmp_path: Path,
) -> None:
    # The app called as ASGI, with a client whose socket takes one chunk and then nothing more.
    from judge.answer.generator import build_http_generator

    reply = StreamReply.of(f"{GOOD} {SECOND} {MORE}", gate_before=80)
    generator = StreamingGenerator(reply)
    with serve_streaming_generator(generator) as url, AuditLog.open(tmp_path / "a.db") as audit:
        settings = fake_settings(
            state_dir=tmp_path, stream_send_timeout_s=0.2, stream_max_pending_sentences=1
        )
        chat_generator = build_http_generator(settings, base_url=url, model="gen")
        app = create_app(
            settings,
            ServeOptions(),
            judge=FakeJudgeServer().judge(settings),
            audit=audit,
            generator=chat_generator,
        )
        body = json.dumps({"model": "gen", "messages": MESSAGES, "stream": True, **grounding()})
        sent: list[MutableMapping[str, Any]] = []
        stuck = asyncio.Event()
        received: list[bool] = []

        async def receive() -> MutableMapping[str, Any]:
            if not received:
                received.append(True)
                return {"type": "http.request", "body": body.encode(), "more_body": False}
            await asyncio.Event().wait()  # the client never hangs up
            return {}

        async def send(message: MutableMapping[str, Any]) -> None:
            sent.append(message)
            if message["type"] == "http.response.body" and len(sent) > 2:
                stuck.set()
                await asyncio.Event().wait()  # its socket buffer is full: the send never ends

        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
            "scheme": "http", "path": "/v1/chat/completions", "raw_path": b"/v1/chat/completions",
            "query_string": b"", "root_path": "", "server": ("127.0.0.1", 80),
            "client": ("127.0.0.1", 5000),
            "headers": [(b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode())],
        }  # fmt: skip
        async with asyncio.timeout(WAIT_S):
            await app(scope, receive, send)
        await chat_generator.aclose()
        assert stuck.is_set()
        assert await asyncio.to_thread(reply.hung_up.wait, WAIT_S)
        record = only_record(audit)
    assert record.extra is not None and record.extra["ended"] == "abandoned"
    assert "too slow" in (record.extra["stop_reason"] or "")
    # Bounded: with the client stuck, no more than the pending bound was verified behind it.
    assert len(record.extra["sentences"]) <= 3
