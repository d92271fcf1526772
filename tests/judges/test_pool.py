"""The pool of judge endpoints against real loopback fake judges: balancing, ejection,
re-admission, failover, and all endpoints down failing closed."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from judge.config import load_settings
from judge.errors import ConfigError
from judge.judges.pool import POOL_ROOT, EndpointPool, PoolTransport
from judge.pipeline.entail.llm_judge import build_http_judge
from judge.pipeline.runner import verify
from judge.schemas import Action, Label
from tests.support.fake_judge import (
    FakeJudgeServer,
    fake_settings,
    http_error,
    run_fake_openai_server,
)

REQUEST = {
    "evidence": [{"id": "S1", "text": "Unopened items can be returned within 30 days."}],
    "answer": "Unopened items can be returned within 30 days [S1].",
}


def refused_url() -> str:
    """A loopback URL nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


class Replica:
    """A fake judge that can be slowed down or switched to answering 503."""

    def __init__(self, delay_s: float = 0.0) -> None:
        self.fake = FakeJudgeServer()
        self.delay_s = delay_s
        self.down = False
        self.chat_calls = 0
        self.probes = 0
        self._lock = threading.Lock()

    def handler(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            with self._lock:
                self.probes += 1
        elif request.url.path.endswith("/chat/completions"):
            with self._lock:
                self.chat_calls += 1
        if self.down:
            return http_error(503, "replica down")
        time.sleep(self.delay_s)
        return self.fake.handler(request)


def pool_client(
    urls: list[str], *, backoff_s: float = 30.0
) -> tuple[httpx.AsyncClient, EndpointPool]:
    pool = EndpointPool(urls, backoff_s=backoff_s)
    client = httpx.AsyncClient(transport=PoolTransport(pool), base_url=POOL_ROOT, timeout=5.0)
    return client, pool


async def wait_for(condition: Callable[[], bool], timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.02)


async def test_concurrent_calls_spread_by_least_outstanding() -> None:
    replicas = [Replica(delay_s=0.2) for _ in range(3)]
    with (
        run_fake_openai_server(replicas[0].handler) as a,
        run_fake_openai_server(replicas[1].handler) as b,
        run_fake_openai_server(replicas[2].handler) as c,
    ):
        client, pool = pool_client([a, b, c])
        async with client:
            body = {"model": "fake-judge", "messages": [{"role": "user", "content": "x"}]}
            answers = await asyncio.gather(
                *(client.post("/chat/completions", json=body) for _ in range(12))
            )
    assert all(r.status_code == 400 for r in answers)  # the fake refuses a schema-less call
    assert [r.chat_calls for r in replicas] == [4, 4, 4]
    assert [e.in_flight for e in pool.endpoints] == [0, 0, 0]


async def test_sequential_calls_take_turns() -> None:
    replicas = [Replica(), Replica()]
    with (
        run_fake_openai_server(replicas[0].handler) as a,
        run_fake_openai_server(replicas[1].handler) as b,
    ):
        client, pool = pool_client([a, b])
        async with client:
            for _ in range(6):
                assert (await client.get("/models")).status_code == 200
    assert [r.probes for r in replicas] == [3, 3]
    assert [e.stats.calls for e in pool.endpoints] == [3, 3]


async def test_refused_endpoint_is_ejected_and_the_call_fails_over() -> None:
    live = Replica()
    dead = refused_url()
    with run_fake_openai_server(live.handler) as good:
        client, pool = pool_client([dead, good])
        async with client:
            answers = [await client.get("/models") for _ in range(4)]
    assert all(r.status_code == 200 for r in answers)
    assert live.probes == 4
    dead_endpoint, good_endpoint = pool.endpoints
    assert not dead_endpoint.admitted
    # Tried once (the first call, then failed over); ejected for the rest.
    assert dead_endpoint.stats.calls == 1 and dead_endpoint.stats.errors == 1
    assert good_endpoint.stats.calls == 4 and good_endpoint.admitted


async def test_5xx_ejects_and_a_probe_readmits_after_the_backoff() -> None:
    flaky, steady = Replica(), Replica()
    flaky.down = True
    with (
        run_fake_openai_server(flaky.handler) as a,
        run_fake_openai_server(steady.handler) as b,
    ):
        client, pool = pool_client([a, b], backoff_s=0.2)
        async with client:
            first = await client.get("/models")
            assert first.status_code == 200  # answered by the steady replica
            assert not pool.endpoints[0].admitted
            flaky.down = False
            await asyncio.sleep(0.25)
            await client.get("/models")  # past the backoff: starts the re-admission probe
            await wait_for(lambda: pool.endpoints[0].admitted)
            for _ in range(4):
                await client.get("/models")
    assert pool.endpoints[0].stats.calls >= 3  # back in the rotation


async def test_failed_probe_keeps_the_endpoint_out_with_a_longer_backoff() -> None:
    flaky, steady = Replica(), Replica()
    flaky.down = True
    with (
        run_fake_openai_server(flaky.handler) as a,
        run_fake_openai_server(steady.handler) as b,
    ):
        client, pool = pool_client([a, b], backoff_s=0.1)
        async with client:
            await client.get("/models")
            await asyncio.sleep(0.15)
            await client.get("/models")
            await wait_for(lambda: pool.endpoints[0].failures >= 2)
    assert not pool.endpoints[0].admitted
    assert flaky.probes == 2  # the failed call, then the probe


async def test_verify_over_a_pool_with_one_dead_replica_decides_every_claim() -> None:
    live = Replica()
    with run_fake_openai_server(live.handler) as good:
        settings = fake_settings(base_url=f"{refused_url()},{good}")
        async with build_http_judge(settings, model="fake-judge") as judge:
            assert judge.pool is not None and len(judge.pool.endpoints) == 2
            responses = [await verify(REQUEST, settings, judge=judge) for _ in range(3)]
    assert all(r.action is Action.PASS for r in responses)
    assert all(v.label is Label.SUPPORTED for r in responses for v in r.verdicts)


async def test_all_endpoints_down_blocks_the_answer() -> None:
    settings = fake_settings(base_url=f"{refused_url()},{refused_url()}")
    async with build_http_judge(settings, model="fake-judge") as judge:
        response = await verify(REQUEST, settings, judge=judge)
    assert response.action is Action.BLOCK
    assert response.verdicts and all(v.label is Label.VERIFIER_ERROR for v in response.verdicts)
    assert "connect" in (response.verdicts[0].error or "")


async def test_all_5xx_keeps_the_openai_retry_count() -> None:
    replicas = [Replica(), Replica()]
    for replica in replicas:
        replica.down = True
    with (
        run_fake_openai_server(replicas[0].handler) as a,
        run_fake_openai_server(replicas[1].handler) as b,
    ):
        settings = fake_settings(base_url=f"{a},{b}", http_retries=1)
        async with build_http_judge(settings, model="fake-judge") as judge:
            response = await verify(REQUEST, settings, judge=judge)
    assert response.action is Action.BLOCK
    assert all(v.label is Label.VERIFIER_ERROR for v in response.verdicts)
    assert "503" in (response.verdicts[0].error or "")
    # One call and one openai retry, each with at most one failover: never more than four.
    assert 2 <= sum(r.chat_calls for r in replicas) <= 4 * len(response.verdicts)


def test_base_url_accepts_a_comma_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGE_BASE_URL", "http://a:8000/v1, http://b:8000/v1")
    settings = load_settings()
    assert settings.base_urls == ["http://a:8000/v1", "http://b:8000/v1"]
    assert settings.base_url == "http://a:8000/v1,http://b:8000/v1"


def test_base_url_accepts_a_toml_array(tmp_path: Path) -> None:
    config = tmp_path / "judge.toml"
    config.write_text('base_url = ["http://a:8000", "http://b:8000"]\n', encoding="utf-8")
    assert load_settings(config).base_urls == ["http://a:8000", "http://b:8000"]


def test_one_base_url_still_works() -> None:
    settings = load_settings(base_url="http://a:8000/v1")
    assert settings.base_url == "http://a:8000/v1"
    assert settings.base_urls == ["http://a:8000/v1"]


@pytest.mark.parametrize("bad", ["http://a:8000,ftp://b", "not a url", "http://a:1,http://a:1"])
def test_a_bad_base_url_names_the_setting(monkeypatch: pytest.MonkeyPatch, bad: str) -> None:
    monkeypatch.setenv("JUDGE_BASE_URL", bad)
    with pytest.raises(ConfigError, match=r"JUDGE_BASE_URL = .*(not an http|listed twice)"):
        load_settings()


async def test_metrics_report_each_endpoint(tmp_path: Path) -> None:
    from judge.audit.log import AuditLog
    from judge.service.app import ServeOptions, create_app

    live = Replica()
    dead = refused_url()
    with run_fake_openai_server(live.handler) as good:
        settings = fake_settings(base_url=f"{dead},{good}", state_dir=tmp_path)
        judge = build_http_judge(settings, model="fake-judge")
        audit = AuditLog.open(tmp_path / "audit.sqlite3")
        app = create_app(settings, ServeOptions(), judge=judge, audit=audit)
        transport = httpx.ASGITransport(app=app)
        try:
            async with httpx.AsyncClient(transport=transport, base_url="http://service") as client:
                assert (await client.post("/v1/verify", json=REQUEST)).status_code == 200
                text = (await client.get("/metrics")).text
        finally:
            audit.close()
            await judge.aclose()
    registry = app.state.service.metrics.registry

    def sample(name: str, endpoint: str) -> float | None:
        value = registry.get_sample_value(name, {"endpoint": endpoint})
        return None if value is None else float(value)

    assert sample("judge_endpoint_calls_total", dead) == 1.0
    assert sample("judge_endpoint_errors_total", dead) == 1.0
    assert sample("judge_endpoint_admitted", dead) == 0.0
    assert (sample("judge_endpoint_calls_total", good) or 0) >= 1
    assert sample("judge_endpoint_errors_total", good) == 0.0
    assert sample("judge_endpoint_latency_seconds_count", good) == sample(
        "judge_endpoint_calls_total", good
    )
    assert f'judge_endpoint_calls_total{{endpoint="{good}"}}' in text


async def test_a_cancelled_call_does_not_eject_the_endpoint() -> None:
    slow = Replica(delay_s=1.0)
    with run_fake_openai_server(slow.handler) as url:
        client, pool = pool_client([url])
        async with client:
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(client.get("/models"), timeout=0.1)
    assert pool.endpoints[0].admitted
    assert pool.endpoints[0].in_flight == 0
