"""The judge's own HTTP client against a real loopback server (the CLI and service path)."""

from __future__ import annotations

import socket
import time
from typing import Any

import pytest

from judge.errors import JudgeOutputInvalid, JudgeUnavailable
from judge.judges.endpoint_urls import api_base
from judge.pipeline.entail.llm_judge import build_http_judge
from judge.pipeline.entail.windows import build_premises
from judge.schemas import Claim, Passage
from tests.support.fake_judge import (
    FakeJudgeServer,
    connection_refused,
    fake_settings,
    rule_based_judge,
    run_fake_openai_server,
    truncated_response,
)

PASSAGE = Passage(id="S1", text="Unopened items can be returned within 30 days for a full refund.")
PREMISE = build_premises([PASSAGE], window_tokens=700, overlap_tokens=0)[0]
CLAIM = Claim(id="c1", text="Unopened items can be returned within 30 days.", citations=("S1",))


async def test_default_client_judges_over_loopback() -> None:
    fake = FakeJudgeServer()
    with run_fake_openai_server(fake.handler) as base_url:
        async with build_http_judge(fake_settings(), base_url=base_url, model=None) as judge:
            assert await judge.ping() == ["fake-judge"]
            result = await judge.entail(CLAIM, PREMISE, "Can I return it?")
    assert result.label == "supported"
    assert result.p_supported == pytest.approx(0.9)
    assert result.trace.model == "fake-judge"
    assert len(fake.requests) == 1


async def test_bare_host_gets_the_v1_root() -> None:
    assert api_base("http://127.0.0.1:8080") == "http://127.0.0.1:8080/v1"
    assert api_base("http://127.0.0.1:8080/") == "http://127.0.0.1:8080/v1"
    assert api_base("http://gw.internal/openai/v1/") == "http://gw.internal/openai/v1"
    fake = FakeJudgeServer()
    with run_fake_openai_server(fake.handler) as base_url:
        root = base_url.removesuffix("/v1")
        async with build_http_judge(fake_settings(), base_url=root) as judge:
            assert await judge.ping() == ["fake-judge"]


async def test_errors_over_loopback() -> None:
    fake = FakeJudgeServer([truncated_response(), connection_refused()])
    with run_fake_openai_server(fake.handler) as base_url:
        async with build_http_judge(fake_settings(), base_url=base_url) as judge:
            with pytest.raises(JudgeOutputInvalid):
                await judge.entail(CLAIM, PREMISE)
            # A handler that raises drops the connection unanswered.
            with pytest.raises(JudgeUnavailable):
                await judge.entail(CLAIM, PREMISE)


async def test_refused_port_is_unavailable_at_once() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = fake_settings(http_retries=3, connect_timeout_s=2.0)
    async with build_http_judge(settings, base_url=f"http://127.0.0.1:{port}/v1") as judge:
        with pytest.raises(JudgeUnavailable, match="connect"):
            await judge.ping()
        with pytest.raises(JudgeUnavailable, match="connect"):
            await judge.entail(CLAIM, PREMISE)


async def test_slow_server_times_out_at_the_configured_timeout() -> None:
    def slow(request_json: dict[str, Any]) -> Any:
        time.sleep(0.8)
        return rule_based_judge(request_json)

    fake = FakeJudgeServer(slow)
    settings = fake_settings(timeout_s=0.2, http_retries=2)
    with run_fake_openai_server(fake.handler) as base_url:
        async with build_http_judge(settings, base_url=base_url) as judge:
            started = time.perf_counter()
            with pytest.raises(JudgeUnavailable, match="timed out"):
                await judge.entail(CLAIM, PREMISE)
            assert time.perf_counter() - started < 0.7
    assert len(fake.requests) == 1
