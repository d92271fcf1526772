"""Per-endpoint judge metrics (calls, errors, latency, admitted), read from the endpoint pool
at scrape time, with the Prometheus label ``endpoint``."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from judge.judges.pool import LATENCY_BUCKETS, EndpointPool


class EndpointCollector(Collector):
    """Reads the pool the judge currently has (none yet, or an unavailable judge: no samples)."""

    def __init__(self, current_pool: Callable[[], EndpointPool | None]) -> None:
        self._current_pool = current_pool

    def collect(self) -> Iterator[Metric]:
        pool = self._current_pool()
        calls = CounterMetricFamily(
            "judge_endpoint_calls", "HTTP calls sent to each judge endpoint.", labels=["endpoint"]
        )
        errors = CounterMetricFamily(
            "judge_endpoint_errors",
            "Calls to each judge endpoint that failed (refused, timed out, 5xx).",
            labels=["endpoint"],
        )
        latency = HistogramMetricFamily(
            "judge_endpoint_latency_seconds",
            "Latency of calls to each judge endpoint.",
            labels=["endpoint"],
        )
        admitted = GaugeMetricFamily(
            "judge_endpoint_admitted",
            "1 while the endpoint takes calls, 0 while it is ejected.",
            labels=["endpoint"],
        )
        in_flight = GaugeMetricFamily(
            "judge_endpoint_in_flight", "Calls in flight to each endpoint.", labels=["endpoint"]
        )
        for endpoint in pool.endpoints if pool is not None else []:
            label = [endpoint.label]
            stats = endpoint.stats
            calls.add_metric(label, stats.calls)
            errors.add_metric(label, stats.errors)
            buckets = [
                (str(bound), float(count))
                for bound, count in zip(LATENCY_BUCKETS, stats.latency_buckets, strict=True)
            ]
            buckets.append(("+Inf", float(stats.calls)))
            latency.add_metric(label, buckets, stats.latency_sum_s)
            admitted.add_metric(label, 1.0 if endpoint.admitted else 0.0)
            in_flight.add_metric(label, float(endpoint.in_flight))
        yield from (calls, errors, latency, admitted, in_flight)
