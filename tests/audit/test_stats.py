import pytest

from judge.audit.stats import Stats, error_class, percentile, source_outcomes
from judge.schemas import (
    Action,
    Claim,
    ClaimVerdict,
    EvidenceSpan,
    JudgeTrace,
    Label,
    Passage,
    VerifyRequest,
    VerifyResponse,
)

TRACE = JudgeTrace(model="m", template="t", template_hash="sha256:" + "0" * 64, latency_s=0.1)


def verdict(cid: str, label: Label, *cites: str, error: str | None = None) -> ClaimVerdict:
    return ClaimVerdict(
        claim=Claim(id=cid, text=f"claim {cid}", citations=cites), label=label, error=error
    )


REQUEST = VerifyRequest(
    evidence=[
        Passage(id="A1", text="alpha one", source="wiki/a"),
        Passage(id="A2", text="alpha two", source="wiki/a"),
        Passage(id="B1", text="beta", source="forum/b"),
        Passage(id="N1", text="no source"),
    ],
    answer="x",
)


def response(*verdicts: ClaimVerdict, action: Action = Action.BLOCK) -> VerifyResponse:
    return VerifyResponse(
        request_id="r", action=action, ledger_hash="sha256:x", verdicts=list(verdicts)
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("JudgeUnavailable: connection refused", "JudgeUnavailable"),
        ("decomposition failed: JudgeOutputInvalid: bad JSON", "JudgeOutputInvalid"),
        ("unexpected KeyError: 'x'", "KeyError"),
        ("RequestDeadlineExceeded: request timed out after 2 s", "RequestDeadlineExceeded"),
        ("something odd", "unknown"),
        (None, "unknown"),
    ],
)
def test_error_class(text: str | None, expected: str) -> None:
    assert error_class(text) == expected


def test_source_outcomes_count_each_source_once_per_claim_and_skip_undecided() -> None:
    resp = response(
        verdict("c1", Label.UNSUPPORTED, "A1", "A2"),  # one claim, one source counted once
        verdict("c2", Label.SUPPORTED, "B1", "N1"),
        verdict("c3", Label.VERIFIER_ERROR, "B1"),  # says nothing about the source
        verdict("c4", Label.BAD_CITATION, "ZZ"),  # not in the ledger: no source
        verdict("c5", Label.NOT_FACTUAL),
    )
    assert list(source_outcomes(REQUEST, resp)) == [
        ("wiki/a", True),
        ("forum/b", False),
        ("(no source)", False),
    ]


def test_uncited_claim_falls_back_to_the_evidence_it_was_judged_on() -> None:
    judged = ClaimVerdict(
        claim=Claim(id="c1", text="claim"),
        label=Label.CONTRADICTED,
        evidence=[EvidenceSpan(passage_id="B1", start=0, end=4, text="beta")],
    )
    assert list(source_outcomes(REQUEST, response(judged))) == [("forum/b", True)]


def test_stats_rank_sources_by_failing_claims_then_rate() -> None:
    stats = Stats()
    for _ in range(3):
        stats.add(REQUEST, response(verdict("c1", Label.UNSUPPORTED, "A1")), 0.2)
    stats.add(REQUEST, response(verdict("c1", Label.CONTRADICTED, "B1")), 0.4)
    stats.add(REQUEST, response(verdict("c1", Label.SUPPORTED, "A2"), action=Action.PASS), 1.0)
    top = stats.top_sources()
    assert [(r.source, r.failing, r.claims) for r in top] == [("wiki/a", 3, 4), ("forum/b", 1, 1)]
    assert top[0].rate == 0.75
    assert stats.by_action == {"block": 4, "pass": 1}
    assert stats.by_label == {"unsupported": 3, "contradicted": 1, "supported": 1}


def test_stats_errors_latency_and_cache_ratio() -> None:
    stats = Stats()
    cached = ClaimVerdict(
        claim=Claim(id="c1", text="a", citations=("A1",)),
        label=Label.SUPPORTED,
        judge=TRACE.model_copy(update={"cached": True}),
    )
    fresh = cached.model_copy(update={"judge": TRACE})
    failed = verdict("c3", Label.VERIFIER_ERROR, "A1", error="JudgeUnavailable: down")
    stats.add(REQUEST, response(cached, fresh, failed), None)
    assert stats.errors_by_class == {"JudgeUnavailable": 1}
    assert stats.cache_hit_ratio == 0.5
    assert stats.latencies == [0.0]  # the response's own seconds when no latency was logged
    assert Stats().cache_hit_ratio is None
    summary = stats.to_json()
    assert summary["verifier_errors_by_class"] == {"JudgeUnavailable": 1}
    assert summary["latency_s"] == {"p50": 0.0, "p99": 0.0}


def test_percentile_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == 50.0
    assert percentile(values, 99) == 99.0
    assert percentile([3.0], 99) == 3.0
    assert percentile([], 50) is None
