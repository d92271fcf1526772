from judge.schemas import (
    Action,
    Claim,
    ClaimVerdict,
    JudgeTrace,
    Label,
    Passage,
    VerifyRequest,
    VerifyResponse,
)
from judge.service.metrics import OTHER_SOURCES, ServiceMetrics

TRACE = JudgeTrace(model="m", template="t", template_hash="sha256:" + "0" * 64, latency_s=0.3)


def pair(source: str = "wiki/a") -> tuple[VerifyRequest, VerifyResponse]:
    request = VerifyRequest(
        evidence=[Passage(id="S1", text="alpha", source=source)], answer="alpha [S1]."
    )
    verdicts = [
        ClaimVerdict(
            claim=Claim(id="c1", text="alpha", citations=("S1",)), label=Label.SUPPORTED,
            judge=TRACE,
        ),
        ClaimVerdict(
            claim=Claim(id="c2", text="beta", citations=("S1",)), label=Label.UNSUPPORTED,
            judge=TRACE.model_copy(update={"cached": True}),
        ),
        ClaimVerdict(
            claim=Claim(id="c3", text="gamma", citations=("S1",)), label=Label.VERIFIER_ERROR,
            error="JudgeOutputInvalid: not JSON",
        ),
    ]  # fmt: skip
    response = VerifyResponse(
        request_id="r", action=Action.BLOCK, ledger_hash="sha256:x", verdicts=verdicts
    )
    return request, response


def sample(metrics: ServiceMetrics, name: str, labels: dict[str, str] | None = None) -> float:
    value = metrics.registry.get_sample_value(name, labels or {})
    return 0.0 if value is None else value


def test_observe_counts_actions_labels_errors_sources_and_cache() -> None:
    metrics = ServiceMetrics()
    metrics.observe(*pair(), latency_s=0.05)
    assert sample(metrics, "judge_answers_total", {"action": "block"}) == 1
    assert sample(metrics, "judge_verdicts_total", {"label": "supported"}) == 1
    assert sample(metrics, "judge_verdicts_total", {"label": "verifier_error"}) == 1
    errors = {"error_class": "JudgeOutputInvalid"}
    assert sample(metrics, "judge_verifier_errors_total", errors) == 1
    assert sample(metrics, "judge_source_claims_total", {"source": "wiki/a"}) == 2
    assert sample(metrics, "judge_source_failures_total", {"source": "wiki/a"}) == 1
    assert sample(metrics, "judge_cache_hit_ratio") == 0.5
    assert sample(metrics, "judge_judge_latency_seconds_count") == 1  # cached one not timed
    assert sample(metrics, "judge_request_latency_seconds_count") == 1
    text = metrics.render().decode()
    assert 'judge_answers_total{action="block"} 1.0' in text


def test_each_app_has_its_own_registry() -> None:
    first, second = ServiceMetrics(), ServiceMetrics()
    first.observe(*pair(), latency_s=0.01)
    assert sample(first, "judge_answers_total", {"action": "block"}) == 1
    assert sample(second, "judge_answers_total", {"action": "block"}) == 0


def test_source_labels_are_capped() -> None:
    metrics = ServiceMetrics(max_sources=2)
    for source in ("a", "b", "c", "d"):
        metrics.observe(*pair(source), latency_s=0.01)
    assert sample(metrics, "judge_source_claims_total", {"source": "a"}) == 2
    assert sample(metrics, "judge_source_claims_total", {"source": "c"}) == 0
    assert sample(metrics, "judge_source_claims_total", {"source": OTHER_SOURCES}) == 4


def test_faults_outside_verdicts_and_rejections_are_counted() -> None:
    metrics = ServiceMetrics()
    metrics.observe_error("AuditError")
    metrics.observe_rejected("too_large")
    assert sample(metrics, "judge_verifier_errors_total", {"error_class": "AuditError"}) == 1
    assert sample(metrics, "judge_rejected_requests_total", {"reason": "too_large"}) == 1


def test_observe_counts_claims_and_passages_by_language() -> None:
    metrics = ServiceMetrics()
    request, response = pair()
    verdicts = [v.model_copy(update={"language": "de"}) for v in response.verdicts[:2]]
    response = response.model_copy(
        update={"verdicts": [*verdicts, response.verdicts[2]], "passage_languages": {"S1": "fr"}}
    )
    metrics.observe(request, response, latency_s=0.05)
    assert sample(metrics, "judge_claim_languages_total", {"language": "de"}) == 2
    assert sample(metrics, "judge_claim_languages_total", {"language": "und"}) == 1
    assert sample(metrics, "judge_passage_languages_total", {"language": "fr"}) == 1
