"""The guard's verified stream under faults: every stream ends, closed, whatever the generator,
the judge or the client does; errors name the party at fault and quote nothing the generator
sent; every stream that does not complete is recorded with its reason. Scripted generator and
judge on loopback; the time bounds are short so the faults show at once (no timed
assertions: each wait has a generous deadline)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any, Literal

import httpx
import openai
import pytest
from fastapi.testclient import TestClient

from judge.audit.log import AuditLog
from judge.service.app import ServeOptions, create_app
from judge.service.redaction import WITHHELD_TEXT
from tests.service.test_chat_guard import GOOD, MESSAGES, SECOND, WRONG, client, grounding
from tests.service.test_chat_stream import (
    WAIT_S,
    grounding_of,
    only_record,
    served_judge,
    stream,
    streaming_guard,
    text_of,
    wait_for_record,
)
from tests.support.fake_judge import FakeJudgeServer, fake_settings, rule_based_judge
from tests.support.fake_stream import StreamingGenerator, StreamReply

FAST: dict[str, Any] = {"stream_first_text_timeout_s": 2.0, "stream_text_gap_timeout_s": 1.0}
REPLY_TEXT = "The kettle costs 40 euros and ships free [S1]."
Fault = Literal["drop", "error_event", "keep_alive", "empty_deltas", "bad_json", "not_a_string"]


def post(url: str, **more: Any) -> httpx.Response:
    body = {"model": "gen", "messages": MESSAGES, "stream": True, **grounding(**more)}
    return httpx.post(f"{url}/chat/completions", json=body, timeout=WAIT_S)


@pytest.mark.parametrize("beat", ["keep_alive", "empty_deltas"])
def test_a_generator_that_sends_no_text_is_a_502_and_is_hung_up_on(
    tmp_path: Path, beat: Fault
) -> None:
    reply = StreamReply.of(GOOD, fault_after=0, fault=beat)
    generator = StreamingGenerator(reply)
    with streaming_guard(tmp_path, generator, **FAST) as (url, audit, _app):
        response = post(url)
        record = only_record(audit)
        assert generator.requests and reply.hung_up.wait(WAIT_S)
    assert response.status_code == 502
    error = response.json()["error"]
    assert error["type"] == "generator_error" and "sent no text within 2 s" in error["message"]
    assert record.action == "block" and record.extra is not None
    assert record.extra["ended"] == "generator_fault" and record.extra["sentences"] == []


@pytest.mark.parametrize("beat", ["keep_alive", "empty_deltas"])
def test_a_generator_that_stalls_mid_sentence_ends_the_stream_closed(
    tmp_path: Path, beat: Fault
) -> None:
    stall = StreamReply.of(f"{GOOD} Refunds are issued", fault_after=18, fault=beat)
    with streaming_guard(tmp_path, StreamingGenerator(stall), **FAST) as (url, audit, _app):
        chunks = stream(url)
        record = only_record(audit)
        assert stall.hung_up.wait(WAIT_S)
    field = grounding_of(chunks[-1])
    assert field["outcome"] == "verifier_error" and field["stream"]["ended"] == "generator_fault"
    assert "Refunds" not in text_of(chunks)  # the sentence under way never goes out
    assert record.extra is not None and "sent no text for 1 s" in record.extra["stop_reason"]


@pytest.mark.parametrize(
    ("fault", "words"),
    [("bad_json", "malformed output (JSONDecodeError)"), ("not_a_string", "delta content")],
)
def test_a_malformed_first_chunk_is_a_502_in_openai_form(
    tmp_path: Path, fault: Fault, words: str
) -> None:
    reply = StreamReply.of(GOOD, fault_after=0, fault=fault)
    with streaming_guard(tmp_path, StreamingGenerator(reply)) as (url, audit, _app):
        with pytest.raises(openai.APIStatusError) as caught:
            stream(url)
        record = only_record(audit)
    assert caught.value.status_code == 502
    body: Any = caught.value.body
    assert body["type"] == "generator_error" and words in body["message"]
    assert "kettle" not in body["message"]
    assert record.extra is not None and record.extra["ended"] == "generator_fault"


def test_a_malformed_later_chunk_ends_the_stream_as_a_generator_fault(tmp_path: Path) -> None:
    reply = StreamReply.of(f"{GOOD} {SECOND}", fault_after=20, fault="not_a_string")
    with streaming_guard(tmp_path, StreamingGenerator(reply)) as (url, _audit, _app):
        chunks = stream(url)
    assert grounding_of(chunks[-1])["stream"]["ended"] == "generator_fault"
    assert SECOND not in text_of(chunks)


def test_the_generators_error_text_never_reaches_the_client(tmp_path: Path) -> None:
    pieces = StreamReply.of(f"{GOOD} {SECOND}").pieces
    mid = StreamReply(pieces, fault_after=18, fault="error_event", message=REPLY_TEXT)
    first = StreamReply([], status=500, message=REPLY_TEXT)
    with streaming_guard(tmp_path, StreamingGenerator(mid, first)) as (url, audit, _app):
        body = post(url).content
        refused = post(url)
        records = list(audit.iter_since(kind="chat"))
    for sent in (body, refused.content):
        assert b"40 euros" not in sent and b"ships free" not in sent
    assert refused.status_code == 502
    message = refused.json()["error"]["message"]
    assert "the generator answered HTTP 500" in message and "judge" not in message
    reasons = [str((r.extra or {}).get("stop_reason")) for r in records]
    assert len(records) == 2 and not any("40 euros" in reason for reason in reasons)
    assert "error event" in reasons[0]


def test_a_client_gone_before_the_first_text_hangs_up_on_the_generator(tmp_path: Path) -> None:
    reply = StreamReply.of(GOOD, fault_after=0, fault="keep_alive")
    slow: dict[str, Any] = {"stream_first_text_timeout_s": 60.0}
    with streaming_guard(tmp_path, StreamingGenerator(reply), **slow) as (url, audit, _app):
        with pytest.raises(httpx.ReadTimeout):
            body = {"model": "gen", "messages": MESSAGES, "stream": True, **grounding()}
            httpx.post(f"{url}/chat/completions", json=body, timeout=0.5)
        assert reply.hung_up.wait(WAIT_S)
        record = wait_for_record(audit)
    assert record.extra is not None and record.extra["ended"] == "abandoned"
    assert "before the first text" in record.extra["stop_reason"]


def test_grounding_quotes_withheld_text_only_when_asked(tmp_path: Path) -> None:
    unknown = "Refunds are also paid in Zanzibar shillings [S2]."
    replies = [StreamReply.of(f"{GOOD} {unknown} {WRONG}") for _ in range(2)]
    with streaming_guard(tmp_path, StreamingGenerator(*replies)) as (url, audit, _app):
        quiet = post(url)
        asked = stream(url, include_withheld=True)
        records = list(audit.iter_since(kind="chat"))
    assert quiet.status_code == 200
    for secret in (b"Zanzibar", b"60 days"):
        assert secret not in quiet.content
    last = json.loads(quiet.text.split("data: ")[-2])
    verdicts = last["grounding"]["verification"]["verdicts"]
    assert [v["claim"]["text"] for v in verdicts][1:] == [WITHHELD_TEXT, WITHHELD_TEXT]
    assert [v["label"] for v in verdicts] == ["supported", "unsupported", "number_mismatch"]
    shown = json.dumps(grounding_of(asked[-1]))
    assert "Zanzibar" in shown and "60" in shown  # asked for: the reviewer's material
    assert all("Zanzibar" in (r.verify_request().answer or "") for r in records)  # the log has all


def test_a_stream_past_its_deadline_ends_closed(tmp_path: Path) -> None:
    release = threading.Event()

    def judge_script(request: dict[str, Any]) -> Any:
        if "5 to 7" in json.dumps(request):
            release.wait(WAIT_S)
        return rule_based_judge(request)

    generator = StreamingGenerator(StreamReply.of(f"{GOOD} {SECOND}"))
    with (
        served_judge(FakeJudgeServer(judge_script)) as judge,
        streaming_guard(tmp_path, generator, judge, stream_deadline_s=1.0) as (url, audit, _),
    ):
        chunks = stream(url)
        release.set()
        record = only_record(audit)
    field = grounding_of(chunks[-1])
    assert field["outcome"] == "verifier_error" and field["stream"]["ended"] == "deadline"
    assert (
        text_of(chunks) == f"{GOOD}\n\nThe reply was cut off here: it was not finished within 1 s."
    )
    assert record.extra is not None and record.extra["ended"] == "deadline"


def test_shutting_down_stops_open_streams_and_refuses_new_ones(tmp_path: Path) -> None:
    reply = StreamReply.of(f"{GOOD} Refunds are issued", fault_after=18, fault="keep_alive")
    generator = StreamingGenerator(reply)
    received: list[Any] = []
    grace = ServeOptions(shutdown_grace_s=0.2)
    with streaming_guard(tmp_path, generator, options=grace) as (url, audit, app):
        service = app.state.service
        for chunk in client(url).chat.completions.create(
            model="gen", messages=MESSAGES, stream=True, extra_body=grounding()
        ):
            received.append(chunk)
            if text_of(received) == GOOD and not service.shutting_down:
                service.request_shutdown()  # what SIGTERM does in `judge serve`
        refused = post(url)
        ready = httpx.get(url.removesuffix("/v1") + "/readyz", timeout=WAIT_S)
        record = only_record(audit)
        assert reply.hung_up.wait(WAIT_S)
    field = grounding_of(received[-1])
    assert field["outcome"] == "verifier_error" and field["stream"]["ended"] == "shutdown"
    assert text_of(received).endswith("The reply was cut off here: the service is shutting down.")
    assert refused.status_code == 503 and ready.status_code == 503
    assert record.extra is not None and record.extra["ended"] == "shutdown"


def test_readiness_waits_for_the_warm_up(tmp_path: Path) -> None:
    settings = fake_settings(state_dir=tmp_path)
    app = create_app(settings, ServeOptions(), judge=FakeJudgeServer().judge(settings),
                     audit=AuditLog.open(tmp_path / "audit.sqlite3"))  # fmt: skip
    with TestClient(app) as probe:
        assert probe.get("/healthz").status_code == 200
        deadline = time.monotonic() + WAIT_S
        ready = probe.get("/readyz")
        while ready.status_code != 200 and time.monotonic() < deadline:
            assert ready.json()["checks"]["warm"] == "warming up"
            time.sleep(0.05)
            ready = probe.get("/readyz")
    assert ready.json()["checks"] == {"warm": "ok", "judge": "ok", "audit": "ok"}
