"""The service in process (ASGI transport) with the fake judge behind the real client stack."""

import asyncio
import contextlib
import copy
import json
from collections.abc import AsyncIterator, Callable, Coroutine
from pathlib import Path
from typing import Any

import httpx
import pytest

from judge.audit.log import AuditLog
from judge.config import Settings
from judge.errors import ConfigError, RequestDeadlineExceeded
from judge.judges.transport import FailFastTransport
from judge.judges.wrappers import UnavailableJudge, with_deadline
from judge.pipeline.entail.llm_judge import HttpJudge, build_http_judge
from judge.protocols import Decomposer, Judge
from judge.schemas import Action, Claim, ClaimVerdict, Label, VerifyResponse
from judge.service import app as server_module
from judge.service.app import ServeOptions, create_app
from judge.service.failsafe import never_pass_on_error
from tests.support.fake_judge import (
    FAKE_BASE_URL,
    FAKE_MODEL,
    FakeJudgeServer,
    connection_refused,
    fake_settings,
    fenced,
    invalid_json_response,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
REFUND: dict[str, Any] = json.loads((EXAMPLES / "refund_policy.json").read_text())
FAITHFUL = (
    "Customers may return any unopened item within 30 days of delivery for a full refund [S1]. "
    "Refunds are issued to the original payment method within 5 to 7 business days after the "
    "returned item is received at our warehouse [S2]."
)
TOKEN = "s3cret-token-for-tests"


def faithful_request() -> dict[str, Any]:
    request = copy.deepcopy(REFUND)
    request["answer"] = FAITHFUL
    return request


def judge_on(
    handler: Callable[[httpx.Request], httpx.Response]
    | Callable[[httpx.Request], Coroutine[Any, Any, httpx.Response]],
    settings: Settings,
) -> HttpJudge:
    client = httpx.AsyncClient(transport=FailFastTransport(httpx.MockTransport(handler)))
    return build_http_judge(settings, base_url=FAKE_BASE_URL, model=FAKE_MODEL, http_client=client)


@contextlib.asynccontextmanager
async def service(
    tmp_path: Path,
    judge: Judge | None = None,
    settings: Settings | None = None,
    **options: Any,
) -> AsyncIterator[tuple[httpx.AsyncClient, AuditLog, Any]]:
    settings = settings or fake_settings(state_dir=tmp_path)
    if judge is None:
        judge = FakeJudgeServer().judge(settings)
    audit = AuditLog.open(tmp_path / "audit.sqlite3")
    app = create_app(settings, ServeOptions(**options), judge=judge, audit=audit)
    transport = httpx.ASGITransport(app=app)
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://service") as client:
            yield client, audit, app
    finally:
        audit.close()


def metric(app: Any, name: str, labels: dict[str, str] | None = None) -> float:
    value = app.state.service.metrics.registry.get_sample_value(name, labels or {})
    return 0.0 if value is None else float(value)


async def test_verify_returns_the_response_and_audits_it_first(tmp_path: Path) -> None:
    async with service(tmp_path) as (client, audit, app):
        reply = await client.post("/v1/verify", json=REFUND)
        assert reply.status_code == 200
        response = VerifyResponse.model_validate(reply.json())
        assert reply.headers["x-request-id"] == response.request_id
        assert response.action is not Action.PASS  # 60 days and refunded shipping are wrong
        labels = {v.claim.id: v.label for v in response.verdicts}
        assert labels["c1"] is Label.NUMBER_MISMATCH
        record = audit.get(response.request_id)
        assert record is not None
        assert record.verify_response() == response
        assert record.verify_request().answer == REFUND["answer"]
        assert record.latency_s is not None and record.latency_s > 0
        assert metric(app, "judge_answers_total", {"action": response.action.value}) == 1


async def test_faithful_answer_passes(tmp_path: Path) -> None:
    async with service(tmp_path) as (client, audit, _):
        reply = await client.post("/v1/verify", json=faithful_request())
        assert reply.status_code == 200, reply.text
        body = reply.json()
        assert body["action"] == "pass", body["reasons"]
        assert audit.count() == 1


@pytest.mark.parametrize(
    ("spec", "error_class"),
    [(connection_refused, "JudgeUnavailable"), (invalid_json_response, "JudgeOutputInvalid")],
)
async def test_judge_down_or_garbage_blocks_with_verifier_error(
    tmp_path: Path, spec: Callable[[], Any], error_class: str
) -> None:
    settings = fake_settings(state_dir=tmp_path)
    fake = FakeJudgeServer(lambda _request: spec())
    async with service(tmp_path, fake.judge(settings), settings) as (client, audit, app):
        reply = await client.post("/v1/verify", json=faithful_request())
        assert reply.status_code == 200
        body = VerifyResponse.model_validate(reply.json())
        assert body.action is Action.BLOCK
        errors = [v for v in body.verdicts if v.label is Label.VERIFIER_ERROR]
        assert errors and all(error_class in (v.error or "") for v in errors)
        assert audit.count() == 1
        labels = {"error_class": error_class}
        assert metric(app, "judge_verifier_errors_total", labels) == len(errors)


async def test_slow_judge_is_cut_at_the_deadline_and_finished_claims_are_kept(
    tmp_path: Path,
) -> None:
    settings = fake_settings(state_dir=tmp_path, check_conclusion=False)
    fake = FakeJudgeServer()

    async def handler(request: httpx.Request) -> httpx.Response:
        claim = fenced(json.loads(request.content)).get("CLAIM", "")
        if "business days" in claim:
            await asyncio.sleep(30)  # far past the request's budget
        return fake.handler(request)

    judge = judge_on(handler, settings)
    async with service(tmp_path, judge, settings, request_timeout_s=0.5) as (client, _, app):
        started = asyncio.get_running_loop().time()
        reply = await client.post("/v1/verify", json=faithful_request())
        elapsed = asyncio.get_running_loop().time() - started
    assert reply.status_code == 200
    assert elapsed < 5
    body = VerifyResponse.model_validate(reply.json())
    assert body.action is Action.BLOCK
    labels = {v.claim.id: v.label for v in body.verdicts}
    assert labels == {"c1": Label.SUPPORTED, "c2": Label.VERIFIER_ERROR}
    assert "RequestDeadlineExceeded" in (body.verdicts[1].error or "")
    errors = {"error_class": "RequestDeadlineExceeded"}
    assert metric(app, "judge_verifier_errors_total", errors) == 1


async def test_verification_stuck_outside_the_judge_is_blocked_after_the_grace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def stuck(*_args: Any, **_kwargs: Any) -> VerifyResponse:
        await asyncio.sleep(30)
        raise AssertionError("unreachable")

    monkeypatch.setattr(server_module, "verify", stuck)
    monkeypatch.setattr(server_module, "DEADLINE_GRACE_S", 0.1)
    async with service(tmp_path, request_timeout_s=0.2) as (client, audit, _):
        reply = await client.post("/v1/verify", json=faithful_request())
        body = VerifyResponse.model_validate(reply.json())
        assert reply.status_code == 200
        assert body.action is Action.BLOCK
        assert [v.label for v in body.verdicts] == [Label.VERIFIER_ERROR] * 2
        assert audit.get(body.request_id) is not None


async def test_unexpected_fault_fails_closed_not_500(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(*_args: Any, **_kwargs: Any) -> VerifyResponse:
        raise RuntimeError("a bug")

    monkeypatch.setattr(server_module, "verify", broken)
    async with service(tmp_path) as (client, _, app):
        reply = await client.post("/v1/verify", json=faithful_request())
        assert reply.status_code == 200
        body = VerifyResponse.model_validate(reply.json())
        assert body.action is Action.BLOCK
        assert all(v.error == "unexpected RuntimeError: a bug" for v in body.verdicts)
        assert metric(app, "judge_verifier_errors_total", {"error_class": "RuntimeError"}) == 2


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        (b"{not json", "request", "malformed JSON"),
        (b"[1, 2]", "request", "must be a JSON object"),
        (json.dumps({"answer": "x [S1]."}).encode(), "evidence", "Field required"),
        (
            json.dumps(
                {"evidence": [{"id": "S1", "text": "a", "hash": "sha256:" + "0" * 64}],
                 "answer": "a [S1]."}
            ).encode(),
            "evidence[0]",
            "hash does not match",
        ),
        (b"[" * 5000 + b"]" * 5000, "request", ""),
        (b'{"answer": "a", "evidence": ["a"], "answer": "b"}', "request", 'duplicate key "answer"'),
    ],
)  # fmt: skip
async def test_bad_input_is_422_with_one_line_naming_the_field(
    tmp_path: Path, body: bytes, field: str, message: str
) -> None:
    async with service(tmp_path) as (client, audit, app):
        reply = await client.post(
            "/v1/verify", content=body, headers={"content-type": "application/json"}
        )
        assert reply.status_code == 422
        error = reply.json()
        assert error["field"] == field
        assert message in error["detail"]
        assert error["detail"].startswith(f"{field}: ")
        assert "\n" not in error["detail"]
        assert audit.count() == 0
        assert metric(app, "judge_rejected_requests_total", {"reason": "invalid"}) == 1


async def test_claim_count_limit(tmp_path: Path) -> None:
    request = {
        "evidence": REFUND["evidence"],
        "claims": [{"text": f"Claim number {i}.", "chunk_id": "S1"} for i in range(4)],
    }
    async with service(tmp_path, max_claims=3) as (client, audit, _):
        reply = await client.post("/v1/verify", json=request)
        assert reply.status_code == 422
        assert reply.json()["field"] == "claims"
        assert "exceed the limit of 3" in reply.json()["detail"]
        record = audit.get(reply.json()["request_id"])
        assert record is not None and record.action == "block"


def test_limits_can_only_be_made_stricter(tmp_path: Path) -> None:
    settings = fake_settings(state_dir=tmp_path, max_claims=10)
    with pytest.raises(ConfigError, match="max claims"):
        create_app(settings, ServeOptions(max_claims=11), judge=UnavailableJudge("x"))
    with pytest.raises(ConfigError, match="timeout"):
        create_app(settings, ServeOptions(request_timeout_s=0), judge=UnavailableJudge("x"))


async def test_body_over_the_limit_is_refused_before_parsing(tmp_path: Path) -> None:
    request = json.dumps(faithful_request()).encode()
    async with service(tmp_path, max_body_bytes=len(request) - 1) as (client, audit, app):
        reply = await client.post("/v1/verify", content=request)
        assert reply.status_code == 413
        assert "over the limit" in reply.json()["detail"]

        async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: counted as it streams
            for start in range(0, len(request), 100):
                yield request[start : start + 100]

        reply = await client.post("/v1/verify", content=chunks())
        assert reply.status_code == 413
        assert audit.count() == 0
        assert metric(app, "judge_rejected_requests_total", {"reason": "too_large"}) == 2
    async with service(tmp_path / "b", max_body_bytes=len(request)) as (client, _, _):
        assert (await client.post("/v1/verify", content=request)).status_code == 200


async def test_bearer_token(tmp_path: Path) -> None:
    async with service(tmp_path, token=TOKEN) as (client, _, _):
        assert (await client.post("/v1/verify", json=REFUND)).status_code == 401
        wrong = {"authorization": "Bearer not-the-token"}
        assert (await client.post("/v1/verify", json=REFUND, headers=wrong)).status_code == 401
        basic = {"authorization": f"Basic {TOKEN}"}
        assert (await client.post("/v1/verify", json=REFUND, headers=basic)).status_code == 401
        assert (await client.get("/metrics")).status_code == 401
        good = {"authorization": f"Bearer {TOKEN}"}
        reply = await client.post("/v1/verify", json=REFUND, headers=good)
        assert reply.status_code == 200
        assert (await client.get("/metrics", headers=good)).status_code == 200
        assert (await client.get("/healthz")).status_code == 200  # probes stay open
        assert (await client.get("/readyz")).status_code == 200


async def test_readiness_follows_the_judge(tmp_path: Path) -> None:
    fake = FakeJudgeServer()
    async with service(tmp_path, fake.judge(fake_settings())) as (client, _, _):
        reply = await client.get("/readyz")
        assert reply.status_code == 200
        assert reply.json() == {"status": "ready", "checks": {"judge": "ok", "audit": "ok"}}
        assert fake.model_list_calls == 1
    down = UnavailableJudge("JudgeUnavailable: cannot connect")
    async with service(tmp_path / "down", down) as (client, _, _):
        assert (await client.get("/healthz")).json() == {"status": "ok", "checks": {}}
        reply = await client.get("/readyz")
        assert reply.status_code == 503
        assert "cannot connect" in reply.json()["checks"]["judge"]
        body = (await client.post("/v1/verify", json=faithful_request())).json()
        assert body["action"] == "block"
        assert {v["label"] for v in body["verdicts"]} == {"verifier_error"}


async def test_audit_failure_withholds_the_answer(tmp_path: Path) -> None:
    async with service(tmp_path) as (client, audit, app):
        audit.close()
        reply = await client.post("/v1/verify", json=faithful_request())
        assert reply.status_code == 503
        assert "answer withheld" in reply.json()["detail"]
        assert "action" not in reply.json()
        assert metric(app, "judge_verifier_errors_total", {"error_class": "AuditError"}) == 1
        assert (await client.get("/readyz")).status_code == 503


async def test_first_tier_signal_is_compared(tmp_path: Path) -> None:
    request = faithful_request()
    request["first_tier"] = {
        "escalation_reason": "low confidence",
        "claims": [{"index": 0, "score": 0.9}, {"index": 1, "score": 0.1}],
    }
    async with service(tmp_path) as (client, audit, _):
        body = (await client.post("/v1/verify", json=request)).json()
        agrees = [v["agrees_with_first_tier"] for v in body["verdicts"][:2]]
        assert agrees == [True, False]
        record = audit.get(body["request_id"])
        assert record is not None
        assert record.verify_request().first_tier is not None


async def test_metrics_endpoint(tmp_path: Path) -> None:
    async with service(tmp_path) as (client, _, app):
        await client.post("/v1/verify", json=REFUND)
        await client.post("/v1/verify", json=faithful_request())
        text = (await client.get("/metrics")).text
        for source in ("help-center/refunds.md", "help-center/refund-timing.md"):
            labels = {"source": source}
            failing = metric(app, "judge_source_failures_total", labels)
            assert 1 <= failing < metric(app, "judge_source_claims_total", labels)
    assert 'judge_answers_total{action="pass"} 1.0' in text
    assert 'judge_source_failures_total{source="help-center/refunds.md"}' in text
    assert "judge_request_latency_seconds_count 2.0" in text
    assert "judge_judge_latency_seconds_count" in text


class _Bare:
    model_id = "bare"

    async def entail(self, claim: Any, premise: Any, question: str | None = None) -> Any:
        await asyncio.sleep(10)


class _Decomposing(_Bare):
    async def decompose(
        self, sentence: str, context: str, question: str | None = None
    ) -> list[str]:
        return [sentence]


async def test_deadline_judge_offers_only_what_the_judge_has() -> None:
    loop = asyncio.get_running_loop()
    bare = with_deadline(_Bare(), loop.time() + 0.05, 0.05)
    assert getattr(bare, "decompose", None) is None
    assert getattr(bare, "main_conclusion", None) is None
    with pytest.raises(RequestDeadlineExceeded, match=r"timed out after 0\.05 s"):
        await bare.entail(None, None)  # type: ignore[arg-type]
    decomposing = with_deadline(_Decomposing(), loop.time() + 5, 5)
    assert isinstance(decomposing, Decomposer)
    assert await decomposing.decompose("A fact.", "") == ["A fact."]


def test_a_response_with_a_verifier_error_never_passes() -> None:
    claim = Claim(id="c1", text="A fact.")
    passing = VerifyResponse(
        request_id="r",
        action=Action.PASS,
        ledger_hash="sha256:x",
        verdicts=[ClaimVerdict(claim=claim, label=Label.VERIFIER_ERROR, error="X: y")],
        repaired_answer="A fact.",
    )
    guarded = never_pass_on_error(passing)
    assert guarded.action is Action.BLOCK
    assert guarded.repaired_answer is None
    clean = passing.model_copy(
        update={"verdicts": [ClaimVerdict(claim=claim, label=Label.SUPPORTED)]}
    )
    assert never_pass_on_error(clean) is clean
