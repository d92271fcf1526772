"""Load and fault tests of the service over real loopback HTTP, with the fake judge server.

Bounded: a fixed number of requests, every wait under a timeout, nothing left running.
"""

import asyncio
import gc
import http.server
import json
import resource
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from judge.audit.log import AuditLog
from tests.load.service_process import service_in_thread, service_process
from tests.support.fake_judge import FakeJudgeServer, run_fake_openai_server

pytestmark = pytest.mark.load


@pytest.fixture(autouse=True)
def deep_listen_backlog(monkeypatch: pytest.MonkeyPatch) -> None:
    # The fake judge is a ThreadingHTTPServer, whose listen backlog of 5 resets connections
    # under a burst of new ones; the service would then (rightly) block those answers.
    monkeypatch.setattr(http.server.ThreadingHTTPServer, "request_queue_size", 256)


EVIDENCE = [
    {"id": "S1", "source": "help-center/refunds.md",
     "text": "Customers may return any unopened item within 30 days of delivery for a full "
             "refund. Opened items can be returned within 14 days and receive store credit."},
    {"id": "S2", "source": "help-center/refund-timing.md",
     "text": "Refunds are issued to the original payment method within 5 to 7 business days "
             "after the returned item is received at our warehouse."},
]  # fmt: skip
ANSWER = (
    "Customers may return any unopened item within 30 days of delivery for a full refund [S1]. "
    "Refunds are issued to the original payment method within 5 to 7 business days [S2]."
)
CLIENTS = 50
REQUESTS = 100
WARM_UP = 20
# Peak RSS may grow by at most this much over a full load run after warm-up (a leak of even
# 100 KiB per request would exceed it).
RSS_BOUND_MIB = 64


def request_body(i: int) -> dict[str, Any]:
    # Vary the question so no two requests are byte-identical.
    return {"evidence": EVIDENCE, "answer": ANSWER, "question": f"Refund rules? ({i})"}


async def fire(base_url: str, count: int, clients: int, start: int = 0) -> list[httpx.Response]:
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    semaphore = asyncio.Semaphore(clients)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=30) as client:

        async def one(i: int) -> httpx.Response:
            async with semaphore:
                return await client.post("/v1/verify", json=request_body(start + i))

        async with asyncio.timeout(45):
            return await asyncio.gather(*(one(i) for i in range(count)))


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def test_concurrent_clients_lose_no_record_and_get_no_5xx(tmp_path: Path) -> None:
    fake = FakeJudgeServer()
    with (
        run_fake_openai_server(fake.handler) as judge_url,
        service_in_thread(tmp_path, judge_url) as service,
    ):
        warm = asyncio.run(fire(service.base_url, WARM_UP, WARM_UP))
        assert {r.status_code for r in warm} == {200}
        gc.collect()
        rss_before = peak_rss_mib()
        started = time.perf_counter()
        replies = asyncio.run(fire(service.base_url, REQUESTS, CLIENTS, start=WARM_UP))
        elapsed = time.perf_counter() - started
        gc.collect()
        rss_growth = peak_rss_mib() - rss_before
        metrics = httpx.get(f"{service.base_url}/metrics").text

    statuses = [r.status_code for r in replies]
    assert statuses.count(200) == REQUESTS, sorted(set(statuses))
    bodies = [r.json() for r in replies]
    assert {b["action"] for b in bodies} == {"pass"}
    ids = [b["request_id"] for b in bodies]
    assert len(set(ids)) == REQUESTS
    with AuditLog.open(tmp_path / "audit.sqlite3", create=False) as audit:
        assert audit.count() == REQUESTS + WARM_UP
        assert all(audit.get(rid) is not None for rid in ids)
        assert audit.integrity_check() == "ok"
    answers = [line for line in metrics.splitlines() if line.startswith("judge_answers_total")]
    assert answers == [f'judge_answers_total{{action="pass"}} {float(REQUESTS + WARM_UP)}']
    assert rss_growth < RSS_BOUND_MIB, f"peak RSS grew {rss_growth:.1f} MiB"
    print(f"\n{REQUESTS} requests, {CLIENTS} clients: {REQUESTS / elapsed:.0f} req/s, "
          f"peak RSS +{rss_growth:.1f} MiB")  # fmt: skip


class KillableJudge:
    """The fake judge behind a gate: calls wait until the test kills it, then all fail."""

    def __init__(self) -> None:
        self.fake = FakeJudgeServer()
        self.release = threading.Event()
        self.dead = False
        self.waiting = 0
        self._lock = threading.Lock()

    def handler(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/chat/completions"):
            with self._lock:
                self.waiting += 1
            self.release.wait(timeout=30)
            if self.dead:
                raise ConnectionResetError("judge killed")  # the connection drops unanswered
        return self.fake.handler(request)

    def kill(self) -> None:
        self.dead = True
        self.release.set()


def test_judge_killed_mid_load_blocks_every_in_flight_answer(tmp_path: Path) -> None:
    judge = KillableJudge()
    count = 40

    async def scenario(base_url: str) -> list[httpx.Response]:
        load = asyncio.create_task(fire(base_url, count, count))
        async with asyncio.timeout(30):
            while judge.waiting < count:  # every request is waiting on the judge
                await asyncio.sleep(0.02)
        judge.kill()
        return await load

    with (
        run_fake_openai_server(judge.handler) as judge_url,
        service_in_thread(tmp_path, judge_url) as service,
    ):
        replies = asyncio.run(scenario(service.base_url))
        metrics = httpx.get(f"{service.base_url}/metrics").text

    assert [r.status_code for r in replies] == [200] * count
    bodies = [r.json() for r in replies]
    assert {b["action"] for b in bodies} == {"block"}
    for body in bodies:
        labels = [v["label"] for v in body["verdicts"]]
        assert "verifier_error" in labels
        assert "supported" not in labels  # nothing was judged before the judge died
    assert 'judge_verifier_errors_total{error_class="JudgeUnavailable"}' in metrics
    assert 'judge_answers_total{action="pass"}' not in metrics
    with AuditLog.open(tmp_path / "audit.sqlite3", create=False) as audit:
        assert audit.count() == count


def test_service_killed_and_restarted_keeps_an_intact_audit_log(tmp_path: Path) -> None:
    audit_path = tmp_path / "audit.sqlite3"
    fake = FakeJudgeServer()
    received: list[str] = []

    async def load_then_kill(base_url: str, kill: Any) -> None:
        async with httpx.AsyncClient(base_url=base_url, timeout=30) as client:

            async def one(i: int) -> None:
                try:
                    reply = await client.post("/v1/verify", json=request_body(i))
                except httpx.HTTPError:
                    return  # in flight when the process died
                if reply.status_code == 200:
                    received.append(reply.json()["request_id"])

            tasks = [asyncio.create_task(one(i)) for i in range(40)]
            async with asyncio.timeout(30):
                while len(received) < 10:
                    await asyncio.sleep(0.01)
            kill()
            async with asyncio.timeout(30):
                await asyncio.gather(*tasks)

    with run_fake_openai_server(fake.handler) as judge_url:
        with service_process(tmp_path, judge_url, audit_path) as first:
            asyncio.run(load_then_kill(first.base_url, first.kill))
        assert first.process.returncode == -9
        with service_process(tmp_path, judge_url, audit_path) as second:
            after = httpx.post(f"{second.base_url}/v1/verify", json=request_body(999), timeout=30)
            assert after.status_code == 200
            ready = httpx.get(f"{second.base_url}/readyz", timeout=10)
            deadline = time.monotonic() + 60  # the warm-up may still run on a loaded machine
            while ready.status_code != 200 and time.monotonic() < deadline:
                time.sleep(0.1)
                ready = httpx.get(f"{second.base_url}/readyz", timeout=10)
            assert ready.json()["checks"] == {"warm": "ok", "judge": "ok", "audit": "ok"}

    with AuditLog.open(audit_path, create=False) as audit:
        assert audit.integrity_check() == "ok"
        missing = [rid for rid in received if audit.get(rid) is None]
        assert not missing, f"{len(missing)} answered requests have no audit record"
        assert audit.get(after.json()["request_id"]) is not None
        assert audit.count() >= len(received) + 1
        for record in audit.iter_since(None):
            assert record.verify_response().request_id == record.id
            assert json.loads(json.dumps(record.to_json()))["id"] == record.id
