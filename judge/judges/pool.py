"""A pool of judge endpoints behind one HTTP client: several replicas of the same model.

:class:`PoolTransport` is an ``httpx`` transport, so the one ``AsyncOpenAI`` client (and
``instructor`` above it) is unchanged: the client talks to :data:`POOL_ROOT`, and each request
is sent to one real endpoint, rewritten onto its base URL.

* Balancing: the admitted endpoint with the fewest requests in flight (ties in turn).
* Ejection: a refused connection, a timeout or a 5xx answer ejects the endpoint for a backoff
  that doubles with each consecutive failure (up to ``max_backoff_s``).
* Re-admission: once its backoff has passed, an ejected endpoint is probed (``GET {base}/models``)
  in the background while others serve; a probe that answers 200 admits it again.
* Failover: a request that failed in one of those ways (so no verdict came back) is sent once
  more, to another admitted endpoint. The last failure is passed on unchanged, so the layers
  above apply their usual rules: the openai client retries a 5xx ``http_retries`` times, a
  refused connection or a timeout fails at once
  (:class:`~judge.judges.transport.FailFastTransport`).
* All endpoints ejected: the request goes to the one due back soonest rather than failing
  untried; if it fails, the claim is a ``verifier_error`` and the answer is blocked.
"""

from __future__ import annotations

import asyncio
import bisect
import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import httpx

# The base URL the client is given; never resolved, every request is rewritten off it.
POOL_ROOT = "http://judge-pool.invalid/v1"
LATENCY_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)

Clock = Callable[[], float]


@dataclass
class EndpointStats:
    """Calls, failures and latency of one endpoint, for ``/metrics`` and benchmarks."""

    calls: int = 0
    errors: int = 0
    latency_sum_s: float = 0.0
    # Cumulative counts per bucket of LATENCY_BUCKETS (Prometheus histogram layout).
    latency_buckets: list[int] = field(default_factory=lambda: [0] * len(LATENCY_BUCKETS))

    def observe(self, latency_s: float, *, failed: bool) -> None:
        self.calls += 1
        self.errors += int(failed)
        self.latency_sum_s += latency_s
        for i in range(bisect.bisect_left(LATENCY_BUCKETS, latency_s), len(LATENCY_BUCKETS)):
            self.latency_buckets[i] += 1


@dataclass
class Endpoint:
    """One replica: its API root (``.../v1``), load and health."""

    root: httpx.URL
    in_flight: int = 0
    failures: int = 0  # consecutive; 0 means admitted
    readmit_at: float = 0.0
    probing: bool = False
    stats: EndpointStats = field(default_factory=EndpointStats)

    @property
    def label(self) -> str:
        """The endpoint as it may be shown (metrics, errors): no credentials."""
        return str(self.root.copy_with(username=None, password=None))

    @property
    def admitted(self) -> bool:
        return self.failures == 0


# No verdict can have come back: the request may go to another endpoint.
_FAILOVER_ERRORS = (httpx.TimeoutException, httpx.ConnectError, httpx.RemoteProtocolError)


def _is_failure(response: httpx.Response) -> bool:
    return response.status_code >= 500


class EndpointPool:
    """Endpoint choice and health bookkeeping; no I/O (the transport does it)."""

    def __init__(
        self,
        roots: Sequence[str],
        *,
        backoff_s: float = 2.0,
        max_backoff_s: float = 60.0,
        clock: Clock = time.monotonic,
    ) -> None:
        if not roots:
            raise ValueError("an endpoint pool needs at least one endpoint")
        self.endpoints = [Endpoint(httpx.URL(root.rstrip("/"))) for root in roots]
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self._clock = clock
        self._turn = itertools.count()

    def choose(self, exclude: Sequence[Endpoint] = ()) -> Endpoint | None:
        """The admitted endpoint with the fewest requests in flight, none excluded; or None."""
        admitted = [e for e in self.endpoints if e.admitted and e not in exclude]
        if not admitted:
            return None
        least = min(e.in_flight for e in admitted)
        tied = [e for e in admitted if e.in_flight == least]
        return tied[next(self._turn) % len(tied)]

    def fallback(self, exclude: Sequence[Endpoint] = ()) -> Endpoint | None:
        """With every endpoint ejected: the one due back soonest (tried rather than refused)."""
        ejected = [e for e in self.endpoints if not e.admitted and e not in exclude]
        return min(ejected, key=lambda e: e.readmit_at) if ejected else None

    def due_for_probe(self) -> list[Endpoint]:
        now = self._clock()
        return [
            e for e in self.endpoints if not e.admitted and not e.probing and e.readmit_at <= now
        ]

    def eject(self, endpoint: Endpoint) -> None:
        endpoint.failures += 1
        backoff = min(self.backoff_s * 2 ** (endpoint.failures - 1), self.max_backoff_s)
        endpoint.readmit_at = self._clock() + backoff

    def admit(self, endpoint: Endpoint) -> None:
        endpoint.failures = 0
        endpoint.readmit_at = 0.0


class PoolTransport(httpx.AsyncBaseTransport):
    """Sends each request to one endpoint of ``pool`` through ``inner`` (one connection pool
    for all endpoints), with ejection, re-admission probes and one failover."""

    def __init__(
        self,
        pool: EndpointPool,
        inner: httpx.AsyncBaseTransport | None = None,
        *,
        probe_timeout_s: float = 5.0,
    ) -> None:
        self.pool = pool
        self._inner = inner if inner is not None else httpx.AsyncHTTPTransport(retries=0)
        self._root_path = httpx.URL(POOL_ROOT).path.rstrip("/")
        self._probe_timeout_s = probe_timeout_s
        self._probes: set[asyncio.Task[None]] = set()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self._start_probes()
        body = await request.aread()
        first = self.pool.choose() or self.pool.fallback()
        if first is None:  # an EndpointPool is never empty
            raise httpx.ConnectError("the judge endpoint pool is empty", request=request)
        try:
            response = await self._send(first, request, body)
        except _FAILOVER_ERRORS:
            second = self.pool.choose([first])
            if second is None:
                raise
            return await self._send(second, request, body)
        if _is_failure(response):
            second = self.pool.choose([first])
            if second is not None:
                await response.aclose()
                return await self._send(second, request, body)
        return response

    async def _send(
        self, endpoint: Endpoint, request: httpx.Request, body: bytes
    ) -> httpx.Response:
        url = self._rewrite(endpoint, request.url)
        headers = [(k, v) for k, v in request.headers.multi_items() if k.lower() != "host"]
        outgoing = httpx.Request(
            request.method, url, headers=headers, content=body, extensions=request.extensions
        )
        endpoint.in_flight += 1
        started = time.perf_counter()
        try:
            response = await self._inner.handle_async_request(outgoing)
        except httpx.PoolTimeout:
            raise  # no free connection in this client's own pool: not the endpoint's fault
        except httpx.TransportError:
            endpoint.stats.observe(time.perf_counter() - started, failed=True)
            self.pool.eject(endpoint)
            raise
        # Anything else (a cancelled call: the request's own deadline) is not the endpoint's
        # fault and leaves its health alone.
        finally:
            endpoint.in_flight -= 1
        failed = _is_failure(response)
        endpoint.stats.observe(time.perf_counter() - started, failed=failed)
        if failed:
            self.pool.eject(endpoint)
        elif not endpoint.admitted:
            self.pool.admit(endpoint)  # the fallback try succeeded: it is back
        return response

    def _rewrite(self, endpoint: Endpoint, url: httpx.URL) -> httpx.URL:
        rest = url.path.removeprefix(self._root_path)
        root = endpoint.root
        return root.copy_with(path=root.path.rstrip("/") + rest, query=url.query or None)

    def _start_probes(self) -> None:
        for endpoint in self.pool.due_for_probe():
            endpoint.probing = True
            task = asyncio.get_running_loop().create_task(self._probe(endpoint))
            self._probes.add(task)
            task.add_done_callback(self._probes.discard)

    async def _probe(self, endpoint: Endpoint) -> None:
        """Re-admit ``endpoint`` if ``GET {root}/models`` answers 200, else eject it again."""
        probe = httpx.Request(
            "GET",
            self._rewrite(endpoint, httpx.URL(POOL_ROOT + "/models")),
            extensions={"timeout": httpx.Timeout(self._probe_timeout_s).as_dict()},
        )
        try:
            response = await self._inner.handle_async_request(probe)
            await response.aread()
            await response.aclose()
            healthy = response.status_code == 200
        except (httpx.HTTPError, OSError):
            healthy = False
        finally:
            endpoint.probing = False
        if healthy:
            self.pool.admit(endpoint)
        elif not endpoint.admitted:
            self.pool.eject(endpoint)

    async def aclose(self) -> None:
        for task in list(self._probes):
            task.cancel()
        await asyncio.gather(*self._probes, return_exceptions=True)
        await self._inner.aclose()
