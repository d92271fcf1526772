"""The second-opinion service: ``POST /v1/verify``, health probes and Prometheus metrics.

Every verification is written to the audit log before its response is sent; when the log
refuses the write the answer is withheld (503), never released unrecorded. Every fault of the
judge (down, slow, garbage, past the request deadline) comes back as HTTP 200 with action
``block`` and ``verifier_error`` on the claims it touched.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from judge import __version__
from judge.audit.log import AuditError, AuditLog, default_audit_path
from judge.config import Settings
from judge.errors import ConfigError, InputError, VerifierFault
from judge.pipeline.inputs import parse_request
from judge.pipeline.ledger import freeze_ledger
from judge.pipeline.runner import verify
from judge.protocols import Judge
from judge.schemas import VerifyRequest, VerifyResponse
from judge.service.failsafe import (
    DeadlineJudge,
    UnavailableJudge,
    failure_response,
    never_pass_on_error,
    ping_judge,
)
from judge.service.guard import RequestGuard
from judge.service.metrics import CONTENT_TYPE_LATEST, ServiceMetrics

log = logging.getLogger("judge.service.app")

# After the deadline, judge calls are cut by DeadlineJudge; this margin is for the pipeline to
# assemble the answer from what finished. Past it, every claim becomes a verifier error.
DEADLINE_GRACE_S = 1.0


@dataclass(frozen=True)
class ServeOptions:
    """Service settings. Limits here can only be stricter than the verifier's settings."""

    token: str | None = None
    max_body_bytes: int = 2_000_000
    max_claims: int | None = None
    request_timeout_s: float = 120.0
    audit_path: Path | None = None
    use_judge: bool = True


class ErrorBody(BaseModel):
    """A refused request: one line naming the field at fault."""

    detail: str
    field: str | None = None
    request_id: str | None = None


class Health(BaseModel):
    status: str
    checks: dict[str, str] = {}


class VerifierApp(FastAPI):
    """FastAPI with the hand-parsed request body described in the OpenAPI schema."""

    def openapi(self) -> dict[str, Any]:
        if self.openapi_schema is None:
            from judge.service.openapi import build_openapi

            self.openapi_schema = build_openapi(self)
        return self.openapi_schema


class Service:
    """What the handlers share: settings, judge, audit log and metrics of one app."""

    def __init__(
        self,
        settings: Settings,
        options: ServeOptions,
        judge: Judge | None,
        audit: AuditLog | None,
    ) -> None:
        self.settings = _effective_settings(settings, options)
        self.options = options
        self.judge = judge
        self.audit = audit
        self.metrics = ServiceMetrics()
        self.metrics.watch_endpoints(lambda: getattr(self.judge, "pool", None))

    async def verify(self, req: VerifyRequest) -> VerifyResponse:
        """Verify within the request's time budget; never raises a verifier fault."""
        budget = self.options.request_timeout_s
        loop = asyncio.get_running_loop()
        deadline = loop.time() + budget
        judge = self._request_judge(req)
        if judge is not None:
            judge = DeadlineJudge(judge, deadline, budget)
        try:
            async with asyncio.timeout_at(deadline + DEADLINE_GRACE_S):
                response = await verify(
                    req, self.settings, judge=judge, use_judge=self.options.use_judge
                )
        except TimeoutError:
            message = f"RequestDeadlineExceeded: request timed out after {budget:g} s"
            response = failure_response(req, self.settings, uuid.uuid4().hex, message, budget)
        except InputError:
            raise
        except Exception as exc:
            # A bug must not turn into a 500 the caller might read as "no objection".
            log.exception("verification failed unexpectedly")
            message = f"unexpected {type(exc).__name__}: {exc}"
            seconds = budget - (deadline - loop.time())
            response = failure_response(req, self.settings, uuid.uuid4().hex, message, seconds)
        return never_pass_on_error(response)

    def _request_judge(self, req: VerifyRequest) -> Judge | None:
        """The judge's view for one request when it offers one (a fresh prompt-fence nonce, the
        ledger hash in its cache keys); the shared judge otherwise."""
        judge = self.judge
        if judge is None or not self.options.use_judge:
            return None
        for_request = getattr(judge, "for_request", None)
        if for_request is None:
            return judge
        ledger = freeze_ledger(req.evidence, self.settings)
        view: Judge = for_request(ledger_hash=ledger.ledger_hash)
        return view


def create_app(
    settings: Settings,
    options: ServeOptions | None = None,
    *,
    judge: Judge | None = None,
    audit: AuditLog | None = None,
) -> FastAPI:
    """Build the app. A ``judge`` or ``audit`` given here is used as is and not closed; those
    left out are opened when the app starts and closed when it stops."""
    options = options or ServeOptions()
    service = Service(settings, options, judge, audit)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            if service.audit is None:
                path = options.audit_path or default_audit_path(service.settings)
                service.audit = AuditLog.open(path)
                stack.callback(service.audit.close)
            if service.judge is None and options.use_judge:
                service.judge = await stack.enter_async_context(_open_judge(service.settings))
            yield

    app = VerifierApp(
        title="grounding-judge",
        version=__version__,
        description=(
            "Checks every claim of an answer against the evidence passages it was given. "
            "Fails closed: when the judge cannot decide, the answer is blocked."
        ),
        lifespan=lifespan,
    )
    app.state.service = service
    app.add_middleware(
        RequestGuard,
        max_body_bytes=options.max_body_bytes,
        token=options.token,
        on_reject=service.metrics.observe_rejected,
    )
    _add_routes(app, service)
    return app


def _add_routes(app: FastAPI, service: Service) -> None:
    refused: dict[int | str, dict[str, Any]] = {
        401: {"model": ErrorBody, "description": "Missing or wrong bearer token."},
        413: {"model": ErrorBody, "description": "Request body over the size limit."},
        422: {"model": ErrorBody, "description": "Invalid request, or over a limit."},
        503: {"model": ErrorBody, "description": "Audit log unavailable: answer withheld."},
    }

    @app.post(
        "/v1/verify",
        response_model=VerifyResponse,
        responses=refused,
        summary="Verify an answer against its evidence",
        operation_id="verify",
        response_description=(
            "The verdicts and the action. A judge that is down, slow or returns garbage also "
            "lands here: action block, verifier_error on the claims it touched."
        ),
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {"schema": {"$ref": "#/components/schemas/VerifyRequest"}}
                },
            }
        },
    )
    async def verify_endpoint(request: Request) -> Response:
        started = time.perf_counter()
        try:
            req = _parse_body(await request.body())
        except InputError as exc:
            service.metrics.observe_rejected("invalid")
            return _refuse(422, exc)
        service.metrics.in_flight.inc()
        try:
            response = await service.verify(req)
        except InputError as exc:
            service.metrics.observe_rejected("invalid")
            return _refuse(422, exc)
        finally:
            service.metrics.in_flight.dec()
        latency = time.perf_counter() - started
        audit = service.audit
        try:
            if audit is None:
                raise AuditError("the audit log is not open")
            await asyncio.to_thread(audit.record, req, response, latency_s=latency)
        except AuditError as exc:
            log.error("answer %s withheld: %s", response.request_id, exc)
            service.metrics.observe_error(type(exc).__name__)
            detail = f"audit log unavailable, answer withheld: {exc}"
            return _json(503, ErrorBody(detail=detail, request_id=response.request_id))
        service.metrics.observe(req, response, latency)
        if response.limits_exceeded:
            first = response.limits_exceeded[0]
            field = first.partition(":")[0] if ":" in first else None
            body = ErrorBody(detail=first, field=field, request_id=response.request_id)
            return _json(422, body)
        return Response(
            response.model_dump_json(),
            media_type="application/json",
            headers={"x-request-id": response.request_id},
        )

    @app.get("/healthz", response_model=Health, summary="Liveness", operation_id="healthz")
    async def healthz() -> Health:
        return Health(status="ok")

    @app.get(
        "/readyz",
        response_model=Health,
        responses={503: {"model": Health, "description": "Not ready."}},
        summary="Readiness: judge reachable, audit log readable",
        operation_id="readyz",
    )
    async def readyz() -> Response:
        checks: dict[str, str] = {}
        if service.judge is not None:
            try:
                await ping_judge(service.judge, service.settings.connect_timeout_s)
                checks["judge"] = "ok"
            except Exception as exc:  # any failed ping means not ready, whatever its type
                checks["judge"] = f"{type(exc).__name__}: {exc}"
        elif service.options.use_judge:
            checks["judge"] = "not opened"
        try:
            if service.audit is None:
                raise AuditError("the audit log is not open")
            await asyncio.to_thread(service.audit.migrations)
            checks["audit"] = "ok"
        except AuditError as exc:
            checks["audit"] = str(exc)
        ready = all(value == "ok" for value in checks.values())
        health = Health(status="ready" if ready else "not ready", checks=checks)
        return _json(200 if ready else 503, health)

    @app.get(
        "/metrics", summary="Prometheus metrics", response_class=Response, operation_id="metrics"
    )
    async def metrics() -> Response:
        return Response(service.metrics.render(), media_type=CONTENT_TYPE_LATEST)


@contextlib.asynccontextmanager
async def _open_judge(settings: Settings) -> AsyncIterator[Judge]:
    """The configured judge, or a stand-in that blocks every answer when it cannot be opened
    (the service stays up, reports not ready, and fails closed)."""
    from judge.judges import endpoint as runtime

    async with contextlib.AsyncExitStack() as stack:
        judge: Judge
        try:
            judge = await stack.enter_async_context(runtime.open_judge(settings))
        except VerifierFault as exc:
            reason = f"{type(exc).__name__}: {exc}"
            log.error("judge unavailable, every answer will be blocked: %s", reason)
            judge = UnavailableJudge(reason)
        yield judge


def _effective_settings(settings: Settings, options: ServeOptions) -> Settings:
    if options.request_timeout_s <= 0:
        raise ConfigError("the request timeout must be positive")
    if options.max_body_bytes <= 0:
        raise ConfigError("the request size limit must be positive")
    if options.max_claims is None:
        return settings
    if not 1 <= options.max_claims <= settings.max_claims:
        raise ConfigError(
            f"max claims must lie in [1, {settings.max_claims}] (the verifier's own limit)"
        )
    return settings.model_copy(update={"max_claims": options.max_claims})


def _parse_body(body: bytes) -> VerifyRequest:
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", field="request"
        ) from None
    except (UnicodeDecodeError, RecursionError):
        raise InputError("the body is not a readable JSON document", field="request") from None
    return parse_request(data)


def _refuse(status: int, exc: InputError) -> Response:
    return _json(status, ErrorBody(detail=str(exc), field=exc.field))


def _json(status: int, body: BaseModel) -> Response:
    return JSONResponse(body.model_dump(exclude_none=True), status_code=status)
