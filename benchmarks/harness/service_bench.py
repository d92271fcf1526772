"""Throughput and latency of `judge serve` over loopback HTTP.

With the fake judge (a scripted OpenAI-compatible server answering at once) the numbers are the
verifier's own overhead: parsing, exact checks, the judge client, policy, the audit write.
With ``--embedded`` a second run uses the embedded local judge (few requests: it is slow).

Each part runs the service as its own process, with the fake judge in another, so the client
here does not share an interpreter with either.

    python -m benchmarks.harness.service_bench [--requests 200] [--concurrency 16] [--embedded]

Judge: none for the default run (the scripted fake judge of :mod:`judge.testing`); the embedded
judge for ``--embedded``. Time on the 2-core development machine: 27-40 requests/s with the
fake judge (seconds for 200 requests); with the embedded judge, two concurrent requests took
177-188 s (RESULTS.md; history/results-by-round-to-2026-12-04.md, "Service").
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import Any

import httpx

from benchmarks.common import ROOT
from judge.audit.stats import percentile

EXAMPLE = ROOT / "examples" / "refund_policy.json"
# The fake judge's ThreadingHTTPServer gets a deeper listen backlog than its default 5, which
# resets connections under concurrent load and would turn the run into verifier errors.
FAKE_JUDGE = (
    "import http.server, time\n"
    "http.server.ThreadingHTTPServer.request_queue_size = 256\n"
    "from judge.testing import FakeJudgeServer, run_fake_openai_server\n"
    "with run_fake_openai_server(FakeJudgeServer().handler) as url:\n"
    "    print(url, flush=True)\n"
    "    time.sleep(3600)\n"
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def child(args: list[str], env: dict[str, str]) -> Iterator[subprocess.Popen[str]]:
    process = subprocess.Popen(
        args, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=20)


def wait_live(url: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return
        time.sleep(0.1)
    raise RuntimeError(f"service at {url} did not come up within {seconds:g} s")


async def load(url: str, body: dict[str, Any], requests: int, concurrency: int) -> dict[str, Any]:
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    actions: dict[str, int] = {}
    labels: dict[str, int] = {}
    semaphore = asyncio.Semaphore(concurrency)
    limits = httpx.Limits(max_connections=concurrency)
    async with httpx.AsyncClient(base_url=url, timeout=600, limits=limits) as client:

        async def one() -> None:
            async with semaphore:
                started = time.perf_counter()
                reply = await client.post("/v1/verify", json=body)
                latencies.append(time.perf_counter() - started)
                statuses[reply.status_code] = statuses.get(reply.status_code, 0) + 1
                if reply.status_code == 200:
                    answer = reply.json()
                    actions[answer["action"]] = actions.get(answer["action"], 0) + 1
                    for verdict in answer["verdicts"]:
                        labels[verdict["label"]] = labels.get(verdict["label"], 0) + 1

        started = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(requests)))
        elapsed = time.perf_counter() - started
    p50, p99 = percentile(latencies, 50) or 0.0, percentile(latencies, 99) or 0.0
    return {
        "requests": requests,
        "concurrency": concurrency,
        "seconds": round(elapsed, 3),
        "rps": round(requests / elapsed, 1),
        "p50_ms": round(1000 * p50, 1),
        "p99_ms": round(1000 * p99, 1),
        "mean_ms": round(1000 * statistics.fmean(latencies), 1),
        "statuses": statuses,
        "actions": actions,
        "labels": labels,
    }


def run_part(
    name: str,
    serve_args: list[str],
    env: dict[str, str],
    requests: int,
    concurrency: int,
    start_s: float,
    warm_up: int,
) -> dict[str, Any]:
    body = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "judge.cli", "serve", "--port", str(port), *serve_args]
    with child(command, env):
        wait_live(url, start_s)
        ready = httpx.get(f"{url}/readyz", timeout=start_s)
        if ready.status_code != 200:
            return {"part": name, "skipped": f"judge not ready: {ready.json().get('checks')}"}
        asyncio.run(load(url, body, warm_up, concurrency))  # connections, imports, caches
        result = asyncio.run(load(url, body, requests, concurrency))
    return {"part": name, **result}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--embedded", action="store_true", help="also run the embedded judge")
    parser.add_argument("--embedded-requests", type=int, default=4)
    parser.add_argument(
        "--embedded-timeout", type=float, default=1800, help="request budget, embedded judge"
    )
    parser.add_argument("--json", action="store_true", help="print results as JSON")
    args = parser.parse_args(argv)

    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as state:
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "JUDGE_STATE_DIR": state,
            "JUDGE_CACHE_ENABLED": "false",  # every request reaches the judge
        }
        env.pop("JUDGE_BASE_URL", None)
        with child([sys.executable, "-c", FAKE_JUDGE], env) as fake:
            judge_url = fake.stdout.readline().strip() if fake.stdout else ""
            if not judge_url.startswith("http://127.0.0.1:"):
                raise RuntimeError("the fake judge did not start")
            fake_args = ["--base-url", judge_url, "--model", "fake-judge"]
            fake_part = run_part(
                "fake judge", fake_args, env, args.requests, args.concurrency,
                start_s=60, warm_up=args.concurrency,
            )  # fmt: skip
            results.append(fake_part)
        if args.embedded:
            # The request budget is raised so the run measures the judge, not the timeout.
            serve_args = ["--request-timeout", str(args.embedded_timeout)]
            try:
                embedded_part = run_part(
                    "embedded judge", serve_args, env, args.embedded_requests, 2,
                    start_s=900, warm_up=1,
                )  # fmt: skip
                results.append(embedded_part)
            finally:
                # The embedded server outlives the service by design; stop the one started here.
                subprocess.run(
                    [sys.executable, "-m", "judge.cli", "local", "down"],
                    cwd=ROOT, env=env, capture_output=True, timeout=60, check=False,
                )  # fmt: skip

    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for r in results:
            if "skipped" in r:
                print(f"{r['part']}: skipped ({r['skipped']})")
                continue
            print(
                f"{r['part']}: {r['requests']} requests, concurrency {r['concurrency']}: "
                f"{r['rps']} req/s, p50 {r['p50_ms']} ms, p99 {r['p99_ms']} ms, "
                f"statuses {r['statuses']}, actions {r['actions']}, labels {r['labels']}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
