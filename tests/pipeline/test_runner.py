"""The whole pipeline against the scripted fake judge, behind the real HTTP stack."""

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import ValidationError

from judge import api
from judge.config import ConclusionPolicy, ProbePolicy, Settings
from judge.judges.cache import VerdictCache
from judge.judges.transport import FailFastTransport
from judge.pipeline.entail.llm_judge import build_http_judge
from judge.pipeline.runner import verify
from judge.schemas import Action, Label
from tests.support.fake_judge import (
    FAKE_BASE_URL,
    FakeJudgeServer,
    conclusion_response,
    connection_refused,
    fake_settings,
    fenced,
    http_error,
    invalid_json_response,
    read_timeout,
    rule_based_judge,
    truncated_response,
    verdict_response,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def example(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / name).read_text(encoding="utf-8"))
    return data


def labels(response: Any) -> dict[str, Label]:
    return {v.claim.id: v.label for v in response.verdicts}


def verdict_requests(fake: FakeJudgeServer) -> list[dict[str, Any]]:
    return [
        r
        for r in fake.requests
        if r["response_format"]["json_schema"]["name"].startswith("Verdict")
    ]


def claim_text(request: dict[str, Any]) -> str:
    return fenced(request).get("CLAIM", "")


async def test_refund_example_blocks_on_wrong_number_before_any_model_call() -> None:
    fake = FakeJudgeServer()
    settings = fake_settings(check_conclusion=False)
    response = await verify(example("refund_policy.json"), settings, judge=fake.judge(settings))
    got = labels(response)
    assert got["c1"] is Label.NUMBER_MISMATCH
    assert "60" in response.verdicts[0].reason and "S1" in response.verdicts[0].reason
    assert got["c2"] is Label.SUPPORTED
    assert got["c4"] is not Label.SUPPORTED
    assert response.action is Action.BLOCK
    # The wrong number and the flipped "non-refundable" were decided by the exact checks: their
    # claims never reached the judge.
    sent = [claim_text(r) for r in verdict_requests(fake)]
    assert len(sent) == 2
    assert not any("60 days" in text or "Shipping fees" in text for text in sent)


async def test_contradiction_from_the_judge_is_reported_and_blocks() -> None:
    def script(body: dict[str, Any]) -> Any:
        if "Refunds go back" in claim_text(body):
            return verdict_response(
                "contradicted",
                "the evidence names another payment method",
                "Refunds are issued to the original payment method within 5 to 7 business days",
                ["S2"],
                scores={"supported": 0.05, "unsupported": 0.15, "contradicted": 0.8},
            )
        return rule_based_judge(body)

    fake = FakeJudgeServer(script)
    settings = fake_settings(check_conclusion=False)
    response = await verify(example("refund_policy.json"), settings, judge=fake.judge(settings))
    refunds = next(v for v in response.verdicts if v.claim.id == "c3")
    assert refunds.label is Label.CONTRADICTED
    assert refunds.contradiction_score == pytest.approx(0.8, abs=0.01)
    assert refunds.evidence and refunds.evidence[0].passage_id == "S2"
    assert refunds.evidence[0].text.startswith("Refunds are issued to the original")
    assert response.action is Action.BLOCK


async def test_bad_citation_example_blocks_naming_the_unknown_id() -> None:
    fake = FakeJudgeServer()
    settings = fake_settings(check_conclusion=False)
    response = await verify(
        example("refund_policy_bad_citation.json"), settings, judge=fake.judge(settings)
    )
    bad = [v for v in response.verdicts if v.label is Label.BAD_CITATION]
    assert len(bad) == 1 and "S3" in bad[0].reason
    assert response.action is Action.BLOCK


@pytest.mark.parametrize(
    "failure",
    [
        pytest.param(lambda: read_timeout(), id="timeout"),
        pytest.param(lambda: connection_refused(), id="refused"),
        pytest.param(lambda: http_error(500), id="http-500"),
        pytest.param(lambda: http_error(401), id="http-401"),
        pytest.param(lambda: invalid_json_response(), id="invalid-json"),
        pytest.param(lambda: truncated_response(), id="truncated"),
    ],
)
async def test_every_judge_failure_ends_in_verifier_error_and_block(failure: Any) -> None:
    fake = FakeJudgeServer(lambda body: failure())
    settings = fake_settings(check_conclusion=False)
    request = example("multi_hop.json")
    response = await verify(request, settings, judge=fake.judge(settings))
    assert response.action is Action.BLOCK
    judged = [v for v in response.verdicts if v.label is not Label.NOT_FACTUAL]
    assert judged and all(v.label is Label.VERIFIER_ERROR for v in judged)
    assert all(v.error for v in judged)


@pytest.mark.parametrize(
    "failure",
    [
        pytest.param(lambda: read_timeout(), id="timeout"),
        pytest.param(lambda: connection_refused(), id="refused"),
        pytest.param(lambda: http_error(500), id="http-500"),
        pytest.param(lambda: httpx.Response(200, text="<html>not a list</html>"), id="garbage"),
        pytest.param(lambda: httpx.Response(200, json={"data": []}), id="no-model"),
    ],
)
async def test_a_failed_model_lookup_ends_in_verifier_error_and_block(failure: Any) -> None:
    # No JUDGE_MODEL: the served model is asked for before any claim is judged.
    fake = FakeJudgeServer()

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/models"):
            answer: httpx.Response | BaseException = failure()
            if isinstance(answer, BaseException):
                raise answer
            return answer
        return fake.handler(request)

    settings = fake_settings(check_conclusion=False)
    client = httpx.AsyncClient(transport=FailFastTransport(httpx.MockTransport(handler)))
    judge = build_http_judge(settings, base_url=FAKE_BASE_URL, model=None, http_client=client)
    response = await verify(example("multi_hop.json"), settings, judge=judge)
    assert response.action is Action.BLOCK
    judged = [v for v in response.verdicts if v.label is not Label.NOT_FACTUAL]
    assert judged and all(v.label is Label.VERIFIER_ERROR for v in judged)
    assert fake.requests == []


TWO_SENTENCES: dict[str, Any] = {
    "evidence": [{"id": "S1", "text": "Opened items can be returned within 14 days."}],
    "claims": [
        {
            "text": "Opened items can be returned within 14 days. Returns cost nothing.",
            "chunk_ids": ["S1"],
        }
    ],
}


@pytest.mark.parametrize(
    "failure",
    [
        pytest.param(lambda: read_timeout(), id="timeout"),
        pytest.param(lambda: http_error(500), id="http-500"),
        pytest.param(lambda: invalid_json_response(), id="invalid-json"),
    ],
)
@pytest.mark.parametrize("stage", ["contradiction-probe", "sentence", "sentence-probe"])
async def test_a_failing_follow_up_call_fails_the_claim_closed(failure: Any, stage: str) -> None:
    """The first answers came back fine; the probe, a sentence's call, or the probe of the
    sentence that failed a supported claim fails."""
    whole = TWO_SENTENCES["claims"][0]["text"]

    def yes_no(p: float) -> Any:
        answer = "supported" if p >= 0.5 else "unsupported"
        return verdict_response(
            answer, variant="yes_no", scores={"supported": p, "unsupported": 1 - p}
        )

    def script(body: dict[str, Any]) -> Any:
        claim, asked_yes_no = fenced(body)["CLAIM"], "VerdictYesNo" in json.dumps(body)
        if asked_yes_no and claim == whole:
            return yes_no(0.1 if stage == "contradiction-probe" else 0.9)
        if stage == "sentence-probe" and asked_yes_no:
            return yes_no(0.1 if claim == "Returns cost nothing." else 0.9)
        return failure()

    fake = FakeJudgeServer(script)
    settings = fake_settings(
        check_conclusion=False, verdict_variant="yes_no", contradiction_probe="always"
    )
    response = await verify(TWO_SENTENCES, settings, judge=fake.judge(settings))
    assert len(fake.requests) >= 2  # the failure came after a good first answer
    (verdict,) = response.verdicts
    assert verdict.label is Label.VERIFIER_ERROR and verdict.error
    assert response.action is Action.BLOCK


async def test_one_failing_claim_keeps_the_verdicts_of_the_others() -> None:
    def script(body: dict[str, Any]) -> Any:
        if "three laboratories" in claim_text(body):
            return http_error(503)
        return rule_based_judge(body)

    fake = FakeJudgeServer(script)
    settings = fake_settings(check_conclusion=False)
    response = await verify(example("multi_hop.json"), settings, judge=fake.judge(settings))
    got = labels(response)
    assert got["c2"] is Label.VERIFIER_ERROR
    assert got["c1"] is not Label.VERIFIER_ERROR and got["c3"] is Label.SUPPORTED
    assert response.action is Action.BLOCK


async def test_unreachable_endpoint_without_injected_judge_blocks(tmp_path: Path) -> None:
    # Nothing listens on this port: the real client must fail closed, not pass.
    settings = fake_settings(
        base_url="http://127.0.0.1:9/v1",
        model="m",
        timeout_s=2,
        connect_timeout_s=1,
        state_dir=tmp_path,
        check_conclusion=False,
    )
    # The public API opens the configured judge itself (the runner is handed one).
    response = await api.verify(example("multi_hop.json"), settings)
    assert response.action is Action.BLOCK
    assert {v.label for v in response.verdicts} == {Label.VERIFIER_ERROR}


async def test_second_run_hits_the_cache_with_zero_judge_calls(tmp_path: Path) -> None:
    fake = FakeJudgeServer()
    settings = fake_settings(cache_enabled=True, state_dir=tmp_path, check_conclusion=False)
    cache = VerdictCache(settings.cache_dir)
    try:
        first = await verify(
            example("multi_hop.json"), settings, judge=fake.judge(settings, cache=cache)
        )
        calls = len(fake.requests)
        assert calls > 0
        second = await verify(
            example("multi_hop.json"), settings, judge=fake.judge(settings, cache=cache)
        )
    finally:
        cache.close()
    assert len(fake.requests) == calls
    assert second.judge_calls == 0
    assert [v.label for v in second.verdicts] == [v.label for v in first.verdicts]
    assert all(v.judge is not None and v.judge.cached for v in second.verdicts if v.judge)


async def test_without_a_judge_claims_are_unverified_and_never_pass() -> None:
    response = await verify(example("multi_hop.json"), fake_settings())
    assert {v.label for v in response.verdicts} == {Label.UNVERIFIED}
    assert response.action is Action.BLOCK


async def test_results_keep_claim_order_under_concurrency() -> None:
    fake = FakeJudgeServer()
    settings = fake_settings(concurrency=4, check_conclusion=False)
    response = await verify(example("finance_q3.json"), settings, judge=fake.judge(settings))
    assert [v.claim.id for v in response.verdicts] == ["c1", "c2", "c3", "c4"]
    assert labels(response)["c3"] is Label.NUMBER_MISMATCH  # $621 million vs $612 million


async def test_over_long_answer_is_blocked_with_a_reason_not_truncated() -> None:
    request = example("refund_policy.json")
    request["answer"] = "Refunds take 30 days [S1]. " * 1000
    response = await verify(request, fake_settings(max_answer_chars=5000))
    assert response.action is Action.BLOCK
    assert response.limits_exceeded and response.limits_exceeded[0].startswith("answer:")
    assert response.verdicts == []


def passing_refund_answer() -> dict[str, Any]:
    """The refund example cut to two statements its evidence supports."""
    request = example("refund_policy.json")
    request["answer"] = (
        "You can return an unopened item within 30 days of delivery for a full refund [S1]. "
        "Refunds are issued to the original payment method within 5 to 7 business days [S2]."
    )
    return request


def conclusion_requests(fake: FakeJudgeServer) -> list[dict[str, Any]]:
    return [
        r
        for r in fake.requests
        if r["response_format"]["json_schema"]["name"].startswith("Conclusion")
    ]


async def test_conclusion_is_checked_as_its_own_claim() -> None:
    fake = FakeJudgeServer()
    settings = fake_settings(check_conclusion=True)
    response = await verify(passing_refund_answer(), settings, judge=fake.judge(settings))
    conclusion = [v for v in response.verdicts if v.claim.id == "conclusion"]
    assert len(conclusion) == 1 and len(conclusion_requests(fake)) == 1
    assert set(conclusion[0].claim.citations) == {"S1", "S2"}
    assert response.action is Action.PASS


async def test_a_failing_conclusion_regenerates_an_answer_its_claims_pass() -> None:
    def script(body: dict[str, Any]) -> Any:
        if body["response_format"]["json_schema"]["name"].startswith("Conclusion"):
            return conclusion_response("Every refund is paid in cash within a day.")
        return rule_based_judge(body)

    fake = FakeJudgeServer(script)
    settings = fake_settings(check_conclusion=True)
    response = await verify(passing_refund_answer(), settings, judge=fake.judge(settings))
    assert labels(response)["conclusion"] is not Label.SUPPORTED
    assert response.action is Action.REGENERATE
    assert "conclusion" in response.failing_claims


@pytest.mark.parametrize("fault", ["timeout", "garbage"])
async def test_a_conclusion_the_judge_cannot_give_blocks_an_answer_its_claims_pass(
    fault: str,
) -> None:
    def script(body: dict[str, Any]) -> Any:
        if body["response_format"]["json_schema"]["name"].startswith("Conclusion"):
            return read_timeout() if fault == "timeout" else invalid_json_response()
        return rule_based_judge(body)

    fake = FakeJudgeServer(script)
    settings = fake_settings(check_conclusion=True, reasks=0)
    response = await verify(passing_refund_answer(), settings, judge=fake.judge(settings))
    assert labels(response)["c1"] is Label.SUPPORTED
    assert labels(response)["conclusion"] is Label.VERIFIER_ERROR
    assert response.action is Action.BLOCK


async def test_no_conclusion_is_sought_for_an_answer_its_claims_already_fail() -> None:
    # It could only turn a pass into a fail; the repaired or regenerated answer is verified
    # again, conclusion and all.
    fake = FakeJudgeServer()
    settings = fake_settings(check_conclusion=True)
    response = await verify(example("refund_policy.json"), settings, judge=fake.judge(settings))
    assert response.action is not Action.PASS
    assert "conclusion" not in labels(response) and conclusion_requests(fake) == []
    assert response.judge_calls == len(verdict_requests(fake))


@pytest.mark.parametrize(
    ("policy", "question", "sought"),
    [
        ("question", "Can I return my order?", True),
        ("question", None, False),
        ("question", "   ", False),
        ("always", None, True),
        ("never", "Can I return my order?", False),
    ],
)
async def test_the_conclusion_policy_decides_when_a_conclusion_is_sought(
    policy: str, question: str | None, sought: bool
) -> None:
    # By default a summary (no question) is judged sentence by sentence: its sentences are its
    # claims, and no implicit answer stands behind them.
    fake = FakeJudgeServer()
    settings = fake_settings(check_conclusion=policy)
    request = passing_refund_answer()
    request["question"] = question
    response = await verify(request, settings, judge=fake.judge(settings))
    assert response.action is Action.PASS
    assert ("conclusion" in labels(response)) is sought
    assert len(conclusion_requests(fake)) == int(sought)


def test_the_default_seeks_a_conclusion_only_for_an_answer_to_a_question() -> None:
    assert Settings().check_conclusion is ConclusionPolicy.QUESTION


def test_the_contradiction_probe_is_off_by_default() -> None:
    assert Settings().contradiction_probe is ProbePolicy.NEVER


# Both settings were booleans before they had a third value: the old values keep their meaning.
@pytest.mark.parametrize(
    ("setting", "value", "policy"),
    [
        ("check_conclusion", True, ConclusionPolicy.ALWAYS),
        ("check_conclusion", False, ConclusionPolicy.NEVER),
        ("check_conclusion", "true", ConclusionPolicy.ALWAYS),
        ("check_conclusion", "False", ConclusionPolicy.NEVER),
        ("check_conclusion", "question", ConclusionPolicy.QUESTION),
        ("contradiction_probe", True, ProbePolicy.ALWAYS),
        ("contradiction_probe", False, ProbePolicy.NEVER),
        ("contradiction_probe", "false", ProbePolicy.NEVER),
        ("contradiction_probe", "unless_blocked", ProbePolicy.UNLESS_BLOCKED),
    ],
)
def test_boolean_policy_settings_keep_their_meaning(
    setting: str, value: object, policy: ConclusionPolicy | ProbePolicy
) -> None:
    assert getattr(Settings.model_validate({setting: value}), setting) is policy


@pytest.mark.parametrize("setting", ["check_conclusion", "contradiction_probe"])
def test_an_unknown_policy_is_refused_by_name(setting: str) -> None:
    with pytest.raises(ValidationError, match=setting):
        Settings.model_validate({setting: "sometimes"})


async def test_first_tier_agreement_is_reported() -> None:
    fake = FakeJudgeServer()
    settings = fake_settings(check_conclusion=False)
    request = example("finance_q3.json")
    request["first_tier"] = {
        "escalation_reason": "numeric answer",
        "claims": [{"index": 0, "score": 0.2}, {"index": 2, "score": 0.9}],
    }
    response = await verify(request, settings, judge=fake.judge(settings))
    assert response.verdicts[0].label is not Label.SUPPORTED  # the word-overlap fake's call
    assert response.verdicts[0].agrees_with_first_tier is True
    assert response.verdicts[2].agrees_with_first_tier is False  # judge: number mismatch
    assert response.verdicts[1].agrees_with_first_tier is None


def test_http_transport_is_the_real_stack() -> None:
    fake = FakeJudgeServer()
    assert isinstance(fake.transport, httpx.MockTransport)


async def test_llm_extractor_judges_atomic_facts_with_the_sentence_span() -> None:
    fake = FakeJudgeServer()
    settings = fake_settings(check_conclusion=False, extractor="llm")
    request = example("multi_hop.json")
    response = await verify(request, settings, judge=fake.judge(settings))
    facts = [v.claim for v in response.verdicts if v.claim.parent_id == "c2"]
    # "That campus opened in 2019 and houses three laboratories" -> two facts.
    assert len(facts) == 2
    assert all(f.span is not None and f.citations == ("org-7",) for f in facts)
    assert all(f.origin.value == "decomposed" for f in facts)


async def test_failed_decomposition_falls_back_to_the_sentence_and_says_so() -> None:
    def script(body: dict[str, Any]) -> Any:
        if body["response_format"]["json_schema"]["name"] == "Facts":
            return invalid_json_response()
        return rule_based_judge(body)

    fake = FakeJudgeServer(script)
    settings = fake_settings(check_conclusion=False, extractor="llm", reasks=0)
    response = await verify(example("multi_hop.json"), settings, judge=fake.judge(settings))
    assert [v.claim.id for v in response.verdicts] == ["c1", "c2", "c3"]
    assert any("judged as a sentence" in r for r in response.reasons)

    strict = settings.model_copy(update={"decompose_fallback": False})
    response = await verify(example("multi_hop.json"), strict, judge=fake.judge(strict))
    assert {v.label for v in response.verdicts} == {Label.VERIFIER_ERROR}
    assert response.action is Action.BLOCK


async def test_label_only_verdicts_carry_score_reasons_and_selected_evidence_spans() -> None:
    fake = FakeJudgeServer()
    settings = fake_settings(check_conclusion=False, verdict_variant="label_only")
    request = example("multi_hop.json")
    response = await verify(request, settings, judge=fake.judge(settings))
    schemas = {r["response_format"]["json_schema"]["name"] for r in fake.requests}
    assert schemas == {"VerdictLabelOnly"}
    texts = {p["id"]: p["text"] for p in request["evidence"]}
    for verdict in response.verdicts:
        assert verdict.reason.startswith("P(supported)")
        assert verdict.evidence, "the evidence judged is reported as passage spans"
        for span in verdict.evidence:
            assert texts[span.passage_id][span.start : span.end] == span.text


async def test_yes_no_variant_scores_claims_and_leaves_contradictions_to_the_checks() -> None:
    fake = FakeJudgeServer()
    settings = fake_settings(
        check_conclusion=False, verdict_variant="yes_no", contradiction_probe=False
    )
    response = await verify(example("refund_policy.json"), settings, judge=fake.judge(settings))
    schemas = {r["response_format"]["json_schema"]["name"] for r in fake.requests}
    assert schemas == {"VerdictYesNo"}
    labels = {v.claim.text.split(" [")[0]: v.label for v in response.verdicts}
    # "60 days" against "30 days" is caught before any judge call, as a number mismatch.
    assert Label.NUMBER_MISMATCH in labels.values()
    # ... and "refunded" against "non-refundable" by the polarity check: two claims unjudged.
    assert len(fake.requests) == len(response.verdicts) - 2
    contradicted = [v for v in response.verdicts if v.label is Label.CONTRADICTED]
    assert all(v.judge is None for v in contradicted)
    for verdict in response.verdicts:
        if verdict.label in (Label.SUPPORTED, Label.UNSUPPORTED):
            assert verdict.reason.startswith("P(supported)")
            assert verdict.evidence, "the evidence judged is reported as passage spans"
    assert response.action is not Action.PASS

    # With the probe always on (this answer is blocked anyway), each claim the yes/no judge
    # finds unsupported is asked once more, as a follow-up turn of its yes/no conversation: the
    # same first two messages, then its "no".
    fake = FakeJudgeServer()
    probed = settings.model_copy(update={"contradiction_probe": ProbePolicy.ALWAYS})
    response = await verify(example("refund_policy.json"), probed, judge=fake.judge(probed))
    names = [r["response_format"]["json_schema"]["name"] for r in fake.requests]
    unsupported = [v for v in response.verdicts if v.label is Label.UNSUPPORTED]
    assert unsupported
    assert names.count("VerdictContradiction") == len(unsupported)
    for verdict in unsupported:
        assert verdict.judge is not None and verdict.judge.calls == 2
    verdicts = [r["messages"] for r in fake.requests if r["messages"][0]["role"] == "system"]
    for messages in verdicts:
        if len(messages) > 2:  # a probe: it repeats a yes/no request, then asks its question
            assert messages[:2] in [m[:2] for m in verdicts if len(m) == 2]
            assert [m["role"] for m in messages[2:]] == ["assistant", "user"]
            assert messages[2]["content"] == '{"answer": "no"}'


async def test_whole_evidence_verdicts_point_at_the_best_matching_sentences() -> None:
    fake = FakeJudgeServer()
    settings = fake_settings(
        check_conclusion=False, verdict_variant="yes_no", evidence_mode="whole"
    )
    request = example("refund_policy.json")
    response = await verify(request, settings, judge=fake.judge(settings))
    texts = {p["id"]: p["text"] for p in request["evidence"]}
    # The judge saw whole passages ...
    assert any(texts["S1"] in r["messages"][1]["content"] for r in fake.requests)
    store_credit = next(v for v in response.verdicts if "store credit" in v.claim.text)
    # ... and the verdict points at the sentences that match the claim, not the whole passage.
    assert store_credit.evidence
    assert sum(len(span.text) for span in store_credit.evidence) < len(texts["S1"])
    assert any("store credit" in span.text for span in store_credit.evidence)
    for span in store_credit.evidence:
        assert texts[span.passage_id][span.start : span.end] == span.text


async def test_both_evidence_views_cost_one_call_each_and_report_the_mean() -> None:
    fake = FakeJudgeServer()
    settings = fake_settings(
        check_conclusion=False,
        verdict_variant="yes_no",
        evidence_mode="both",
        contradiction_probe=False,
    )
    request = example("multi_hop.json")
    filler = " ".join(f"Aisle {i} stocks seasonal goods for region {i}." for i in range(40))
    for passage in request["evidence"]:
        passage["text"] = f"{passage['text']} {filler}"  # long enough for selection to bite
    response = await verify(request, settings, judge=fake.judge(settings))
    judged = [v for v in response.verdicts if v.judge is not None]
    assert judged
    # One call for the selected sentences, one per window of the whole passages.
    assert len(fake.requests) == sum(v.judge.calls for v in judged if v.judge)
    for verdict in judged:
        assert verdict.judge is not None and verdict.judge.calls >= 2
        assert verdict.score is not None and verdict.reason.startswith("P(supported)")
    shown = [len(fenced(r)["EVIDENCE"]) for r in fake.requests]
    assert min(shown) < len(filler) < max(shown)

    # Short passages: the selection keeps them whole, so the two views are one call.
    fake = FakeJudgeServer()
    response = await verify(example("multi_hop.json"), settings, judge=fake.judge(settings))
    judged = [v for v in response.verdicts if v.judge is not None]
    assert len(fake.requests) == len(judged)


async def test_auto_evidence_is_whole_when_it_fits_one_window_else_selected() -> None:
    settings = fake_settings(
        check_conclusion=False,
        verdict_variant="yes_no",
        evidence_mode="auto",
        contradiction_probe=False,
        window_tokens=200,
    )
    request = example("refund_policy.json")
    fake = FakeJudgeServer()
    response = await verify(request, settings, judge=fake.judge(settings))
    judged = [v for v in response.verdicts if v.judge is not None]
    assert len(fake.requests) == len(judged)  # one call per claim
    texts = {p["id"]: p["text"] for p in request["evidence"]}
    assert all(texts["S1"] in fenced(r)["EVIDENCE"] for r in fake.requests if "S1" in str(r))

    filler = " ".join(f"Aisle {i} stocks seasonal goods for region {i}." for i in range(40))
    for passage in request["evidence"]:
        passage["text"] = f"{passage['text']} {filler}"  # several windows of 200 tokens
    fake = FakeJudgeServer()
    response = await verify(request, settings, judge=fake.judge(settings))
    judged = [v for v in response.verdicts if v.judge is not None]
    assert len(fake.requests) == len(judged)  # still one call per claim: the selected sentences
    assert all(len(fenced(r)["EVIDENCE"]) < len(filler) for r in fake.requests)


async def test_multi_sentence_structured_claims_are_judged_sentence_by_sentence() -> None:
    request = TWO_SENTENCES
    settings = fake_settings(
        check_conclusion=False,
        verdict_variant="yes_no",
        contradiction_probe=False,
        judge_claim_sentences=False,
    )
    fake = FakeJudgeServer()
    response = await verify(request, settings, judge=fake.judge(settings))
    assert len(fake.requests) == 1  # turned off: the claim is judged whole

    fake = FakeJudgeServer()
    on = settings.model_copy(update={"judge_claim_sentences": True})
    assert Settings().judge_claim_sentences  # on by default
    response = await verify(request, on, judge=fake.judge(on))
    claims = [fenced(r)["CLAIM"] for r in fake.requests]
    assert claims[1:] == [
        "Opened items can be returned within 14 days.",
        "Returns cost nothing.",
    ]
    (verdict,) = response.verdicts
    assert verdict.label is Label.UNSUPPORTED  # the second sentence has no support
    assert verdict.judge is not None and verdict.judge.calls == 3


async def test_a_check_that_crashes_fails_its_claim_closed() -> None:
    class Broken:
        name = "broken"

        def __call__(self, claim: str, evidence: str) -> None:
            raise RuntimeError("unexpected input")

    fake = FakeJudgeServer()
    settings = fake_settings(check_conclusion=False)
    response = await verify(
        example("multi_hop.json"), settings, judge=fake.judge(settings), checks=[Broken()]
    )
    assert {v.label for v in response.verdicts} == {Label.VERIFIER_ERROR}
    assert "check broken failed" in (response.verdicts[0].error or "")
    assert response.action is Action.BLOCK
    assert fake.requests == []  # nothing reached the judge


@pytest.mark.parametrize("fault", ["timeout", "garbage"])
async def test_a_contradiction_probe_the_judge_cannot_answer_blocks(fault: str) -> None:
    # The yes/no verdict finds the claim unsupported; the follow-up probe then fails. The claim
    # is a verifier error and the answer is blocked, not repaired as merely unsupported.
    def script(body: dict[str, Any]) -> Any:
        name = body["response_format"]["json_schema"]["name"]
        if name == "VerdictContradiction":
            return read_timeout() if fault == "timeout" else invalid_json_response()
        return verdict_response(
            "unsupported", variant="yes_no", scores={"supported": 0.1, "unsupported": 0.9}
        )

    fake = FakeJudgeServer(script)
    settings = fake_settings(
        check_conclusion=False,
        verdict_variant="yes_no",
        reasks=0,
        contradiction_probe="unless_blocked",
    )
    response = await verify(passing_refund_answer(), settings, judge=fake.judge(settings))
    probes = [
        r
        for r in fake.requests
        if r["response_format"]["json_schema"]["name"] == "VerdictContradiction"
    ]
    # The failed probe blocks the answer, so the probing stops there.
    assert len(probes) == 1
    assert list(labels(response).values()) == [Label.VERIFIER_ERROR, Label.UNSUPPORTED]
    assert response.action is Action.BLOCK


def _unsupported_then_contradicted(body: dict[str, Any]) -> Any:
    """A yes/no judge that finds every claim unsupported, and a probe that finds it false."""
    if body["response_format"]["json_schema"]["name"] == "VerdictContradiction":
        scores = {"unsupported": 0.2, "contradicted": 0.8}
        return verdict_response("contradicted", variant="contradiction", scores=scores)
    return verdict_response(
        "unsupported", variant="yes_no", scores={"supported": 0.1, "unsupported": 0.9}
    )


def probe_requests_in(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        r for r in requests if r["response_format"]["json_schema"]["name"] == "VerdictContradiction"
    ]


def probe_requests(fake: FakeJudgeServer) -> list[dict[str, Any]]:
    return probe_requests_in(fake.requests)


async def test_unless_blocked_asks_the_probe_only_while_it_can_change_the_action() -> None:
    settings = fake_settings(
        check_conclusion=False, verdict_variant="yes_no", contradiction_probe="unless_blocked"
    )

    # Nothing else blocks this answer: its unsupported claims are probed in order until one is
    # found false, which blocks the answer; the claim after it is left unsupported.
    fake = FakeJudgeServer(_unsupported_then_contradicted)
    response = await verify(passing_refund_answer(), settings, judge=fake.judge(settings))
    assert list(labels(response).values()) == [Label.CONTRADICTED, Label.UNSUPPORTED]
    assert len(probe_requests(fake)) == 1
    assert response.action is Action.BLOCK

    # A probe that finds no contradiction blocks nothing: the next claim is probed too.
    def second_is_false(body: dict[str, Any]) -> Any:
        if "original payment" in fenced(body)["CLAIM"] or not probe_requests_in([body]):
            return _unsupported_then_contradicted(body)
        scores = {"unsupported": 0.9, "contradicted": 0.1}
        return verdict_response("unsupported", variant="contradiction", scores=scores)

    fake = FakeJudgeServer(second_is_false)
    response = await verify(passing_refund_answer(), settings, judge=fake.judge(settings))
    assert list(labels(response).values()) == [Label.UNSUPPORTED, Label.CONTRADICTED]
    assert len(probe_requests(fake)) == 2

    # A failed number check blocks this one before any judge call: the probe would change no
    # action, so it is not asked, and the judged claims stay unsupported.
    fake = FakeJudgeServer(_unsupported_then_contradicted)
    response = await verify(example("refund_policy.json"), settings, judge=fake.judge(settings))
    assert Label.NUMBER_MISMATCH in labels(response).values()
    judged = [v for v in response.verdicts if v.judge is not None]
    assert judged and {v.label for v in judged} == {Label.UNSUPPORTED}
    assert all(v.judge is not None and v.judge.calls == 1 for v in judged)
    assert probe_requests(fake) == []
    assert response.action is Action.BLOCK

    # "always" asks it all the same; "never" never does.
    always = settings.model_copy(update={"contradiction_probe": ProbePolicy.ALWAYS})
    fake = FakeJudgeServer(_unsupported_then_contradicted)
    response = await verify(example("refund_policy.json"), always, judge=fake.judge(always))
    assert len(probe_requests(fake)) == len(judged)
    assert Label.UNSUPPORTED not in labels(response).values()
    never = settings.model_copy(update={"contradiction_probe": ProbePolicy.NEVER})
    fake = FakeJudgeServer(_unsupported_then_contradicted)
    response = await verify(passing_refund_answer(), never, judge=fake.judge(never))
    assert probe_requests(fake) == []
    assert set(labels(response).values()) == {Label.UNSUPPORTED}
    assert response.action is not Action.PASS
