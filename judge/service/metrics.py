"""Prometheus metrics of the service, in a registry of their own (one per app).

A dedicated registry keeps two apps in one process (tests, an embedding application) from
sharing or double-registering counters. Counting rules are those of :mod:`judge.audit.stats`,
so ``/metrics`` and ``judge stats`` agree.
"""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

from judge.audit.stats import error_class, source_outcomes
from judge.judges.pool import EndpointPool
from judge.schemas import Label, VerifyRequest, VerifyResponse
from judge.service.endpoint_metrics import EndpointCollector
from judge.stream.events import StreamedSentence

__all__ = ["CONTENT_TYPE_LATEST", "OTHER_SOURCES", "ServiceMetrics"]

# Sources are caller-supplied strings; past this many distinct ones they share one label so a
# client cannot grow the metric set without bound.
MAX_SOURCE_LABELS = 500
OTHER_SOURCES = "(other sources)"

_JUDGE_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)
# Seconds to a streamed sentence's verdict: an exact check decides in milliseconds, the judge in
# seconds (minutes on a loaded CPU).
_STREAM_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0)
_REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 120.0)


class ServiceMetrics:
    def __init__(self, max_sources: int = MAX_SOURCE_LABELS) -> None:
        self.registry = CollectorRegistry()
        self._max_sources = max_sources
        self._sources: set[str] = set()
        self._judged_count = 0
        self._cached_count = 0
        r = self.registry
        self.answers = Counter("judge_answers", "Answers by action.", ["action"], registry=r)
        self.verdicts = Counter("judge_verdicts", "Claim verdicts by label.", ["label"], registry=r)
        self.claim_languages = Counter(
            "judge_claim_languages", "Claims by language (ISO 639-1).", ["language"], registry=r
        )
        self.passage_languages = Counter(
            "judge_passage_languages",
            "Evidence passages by language (ISO 639-1).",
            ["language"],
            registry=r,
        )
        self.source_claims = Counter(
            "judge_source_claims", "Decided claims citing passages of a source.", ["source"],
            registry=r,
        )  # fmt: skip
        self.source_failures = Counter(
            "judge_source_failures", "Failing claims citing passages of a source.", ["source"],
            registry=r,
        )  # fmt: skip
        self.verifier_errors = Counter(
            "judge_verifier_errors", "Verifier errors by exception class.", ["error_class"],
            registry=r,
        )  # fmt: skip
        self.rejected = Counter(
            "judge_rejected_requests", "Requests refused before verification.", ["reason"],
            registry=r,
        )  # fmt: skip
        self.judge_latency = Histogram(
            "judge_judge_latency_seconds", "Latency of uncached judge verdicts.",
            buckets=_JUDGE_BUCKETS, registry=r,
        )  # fmt: skip
        self.request_latency = Histogram(
            "judge_request_latency_seconds", "End-to-end latency of /v1/verify.",
            buckets=_REQUEST_BUCKETS, registry=r,
        )  # fmt: skip
        self.judged = Counter("judge_judged_verdicts", "Verdicts given by the judge.", registry=r)
        self.cached = Counter(
            "judge_cached_verdicts", "Judge verdicts served from the cache.", registry=r
        )
        self.cache_hit_ratio = Gauge(
            "judge_cache_hit_ratio", "Cached verdicts / judged verdicts since start.", registry=r
        )
        self.in_flight = Gauge("judge_in_flight_requests", "Requests being verified.", registry=r)
        self.stream_first_sentence = Histogram(
            "judge_stream_first_sentence_seconds",
            "Streams: seconds from the request to the first verified sentence sent.",
            buckets=_STREAM_BUCKETS, registry=r,
        )  # fmt: skip
        self.stream_sentence_delay = Histogram(
            "judge_stream_sentence_delay_seconds",
            "Streams: seconds from a sentence's completion by the generator to its verdict.",
            buckets=_STREAM_BUCKETS, registry=r,
        )  # fmt: skip
        self.stream_sentences = Counter(
            "judge_stream_sentences", "Streamed sentences by release (released, withheld, "
            "stopped).", ["release"], registry=r,
        )  # fmt: skip
        self.streams = Counter(
            "judge_streams", "Streamed answers by how they ended.", ["ended"], registry=r
        )
        self.streams_open = Gauge("judge_streams_open", "Streams being sent.", registry=r)

    def watch_endpoints(self, current_pool: Callable[[], EndpointPool | None]) -> None:
        """Report the judge's endpoints (label ``endpoint``) from the pool it has at scrape time."""
        self.registry.register(EndpointCollector(current_pool))

    def observe(self, request: VerifyRequest, response: VerifyResponse, latency_s: float) -> None:
        self.answers.labels(response.action.value).inc()
        self.request_latency.observe(latency_s)
        for language in response.passage_languages.values():
            self.passage_languages.labels(language).inc()
        for verdict in response.verdicts:
            self.verdicts.labels(verdict.label.value).inc()
            self.claim_languages.labels(verdict.language or "und").inc()
            if verdict.label is Label.VERIFIER_ERROR:
                self.verifier_errors.labels(error_class(verdict.error)).inc()
            trace = verdict.judge
            if trace is not None:
                self.judged.inc()
                self._judged_count += 1
                if trace.cached:
                    self.cached.inc()
                    self._cached_count += 1
                else:
                    self.judge_latency.observe(trace.latency_s)
        for source, failed in source_outcomes(request, response):
            label = self._source_label(source)
            self.source_claims.labels(label).inc()
            if failed:
                self.source_failures.labels(label).inc()
        if self._judged_count:
            self.cache_hit_ratio.set(self._cached_count / self._judged_count)

    def observe_stream_sentence(self, sentence: StreamedSentence) -> None:
        """One streamed sentence decided: its verification delay and its release."""
        self.stream_sentence_delay.observe(sentence.delay_s)
        self.stream_sentences.labels(sentence.release.value).inc()

    def observe_error(self, cls: str) -> None:
        """A fault outside any verdict (for example the audit log refusing a write)."""
        self.verifier_errors.labels(cls).inc()

    def observe_rejected(self, reason: str) -> None:
        self.rejected.labels(reason).inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)

    def _source_label(self, source: str) -> str:
        if source in self._sources:
            return source
        if len(self._sources) >= self._max_sources:
            return OTHER_SOURCES
        self._sources.add(source)
        return source
