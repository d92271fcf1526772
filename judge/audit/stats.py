"""What a verification says about actions, labels, errors and sources, and totals over many.

Pure: used by the live metrics of the service and by ``judge stats`` over the audit log, so the
two count the same way.

A source's failure rate is the share of claims citing passages of that source whose verdict
fails. Claims the verifier could not decide (``verifier_error``, ``unverified``) and claims with
no checkable content are left out of both counts: they say nothing about the source.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from judge.schemas import FAILING_LABELS, ClaimVerdict, Label, VerifyRequest, VerifyResponse

NO_SOURCE = "(no source)"
UNDECIDED_LABELS = frozenset({Label.VERIFIER_ERROR, Label.UNVERIFIED, Label.NOT_FACTUAL})
SOURCE_FAILING_LABELS = FAILING_LABELS - UNDECIDED_LABELS

# Verifier errors read "ClassName: message", possibly behind a prefix such as
# "decomposition failed: " or "unexpected ".
_ERROR_CLASS = re.compile(r"\b([A-Z][A-Za-z0-9_]*)(?=: )")


def error_class(error: str | None) -> str:
    """The exception class named in a verdict's error text, or ``"unknown"``."""
    if not error:
        return "unknown"
    match = _ERROR_CLASS.search(error)
    return match.group(1) if match else "unknown"


def verdict_sources(verdict: ClaimVerdict, sources: dict[str, str]) -> list[str]:
    """Sources of the ledger passages a claim cites (or, uncited, was judged against)."""
    ids = list(verdict.claim.citations) or [span.passage_id for span in verdict.evidence]
    out: list[str] = []
    for pid in ids:
        if pid not in sources:
            continue  # a citation of an id not in the ledger belongs to no source
        source = sources[pid] or NO_SOURCE
        if source not in out:
            out.append(source)
    return out


def source_outcomes(request: VerifyRequest, response: VerifyResponse) -> Iterator[tuple[str, bool]]:
    """One ``(source, failed)`` pair per decided claim and source it cites."""
    sources = {p.id: p.source for p in request.evidence}
    for verdict in response.verdicts:
        if verdict.label in UNDECIDED_LABELS:
            continue
        failed = verdict.label in SOURCE_FAILING_LABELS
        for source in verdict_sources(verdict, sources):
            yield source, failed


def percentile(values: Sequence[float], q: float) -> float | None:
    """Nearest-rank percentile (``q`` in [0, 100]); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass(frozen=True)
class SourceRate:
    source: str
    failing: int
    claims: int

    @property
    def rate(self) -> float:
        return self.failing / self.claims if self.claims else 0.0


@dataclass
class Stats:
    """Totals over a set of verifications."""

    answers: int = 0
    by_action: Counter[str] = field(default_factory=Counter)
    by_label: Counter[str] = field(default_factory=Counter)
    errors_by_class: Counter[str] = field(default_factory=Counter)
    source_claims: Counter[str] = field(default_factory=Counter)
    source_failing: Counter[str] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)
    judged: int = 0
    cached: int = 0

    def add(
        self, request: VerifyRequest | None, response: VerifyResponse, latency_s: float | None
    ) -> None:
        self.answers += 1
        self.by_action[response.action.value] += 1
        for verdict in response.verdicts:
            self.by_label[verdict.label.value] += 1
            if verdict.label is Label.VERIFIER_ERROR:
                self.errors_by_class[error_class(verdict.error)] += 1
            if verdict.judge is not None:
                self.judged += 1
                self.cached += int(verdict.judge.cached)
        if request is not None:
            for source, failed in source_outcomes(request, response):
                self.source_claims[source] += 1
                self.source_failing[source] += int(failed)
        self.latencies.append(latency_s if latency_s is not None else response.seconds)

    def top_sources(self, limit: int = 10) -> list[SourceRate]:
        """Sources with failures, most failing claims first, then the higher rate."""
        rates = [
            SourceRate(source, self.source_failing[source], claims)
            for source, claims in self.source_claims.items()
            if self.source_failing[source]
        ]
        rates.sort(key=lambda r: (-r.failing, -r.rate, r.source))
        return rates[:limit]

    @property
    def cache_hit_ratio(self) -> float | None:
        return self.cached / self.judged if self.judged else None

    def to_json(self, top: int = 10) -> dict[str, Any]:
        return {
            "answers": self.answers,
            "answers_by_action": dict(self.by_action),
            "verdicts_by_label": dict(self.by_label),
            "verifier_errors_by_class": dict(self.errors_by_class),
            "latency_s": {
                "p50": percentile(self.latencies, 50),
                "p99": percentile(self.latencies, 99),
            },
            "cache_hit_ratio": self.cache_hit_ratio,
            "judged_verdicts": self.judged,
            "top_failing_sources": [
                {"source": r.source, "failing": r.failing, "claims": r.claims, "rate": r.rate}
                for r in self.top_sources(top)
            ],
        }


def compute(items: Iterable[tuple[VerifyRequest | None, VerifyResponse, float | None]]) -> Stats:
    stats = Stats()
    for request, response, latency_s in items:
        stats.add(request, response, latency_s)
    return stats
