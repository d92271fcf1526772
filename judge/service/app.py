"""The second-opinion service: ``POST /v1/verify``, health probes and Prometheus metrics.

Every verification is written to the audit log before its response is sent; when the log
refuses the write the answer is withheld (503), never released unrecorded. Every fault of the
judge (down, slow, garbage, past the request deadline) comes back as HTTP 200 with action
``block`` and ``verifier_error`` on the claims it touched.

``/healthz`` answers as soon as the server listens; ``/readyz`` only once what a first request
would load is loaded (:mod:`judge.service.warmup`), the judge answers its ping (which opens its
connection) and the audit log can record. On its way down (:meth:`Service.begin_shutdown`, on
SIGTERM) the service turns not ready, refuses new streams, gives open ones
``shutdown_grace_s`` to finish and then stops them closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from judge import __version__
from judge.audit.log import AuditLog, default_audit_path
from judge.config import Settings
from judge.errors import AuditError, ConfigError, InputError
from judge.inputs.request import parse_json, parse_request
from judge.judges.pool import EndpointPool
from judge.judges.wrappers import UnavailableJudge, with_deadline
from judge.pipeline.entail.thresholds import active_thresholds
from judge.pipeline.runner import verify
from judge.protocols import Judge
from judge.schemas import VerifyRequest, VerifyResponse
from judge.service.chat import ChatGenerator, ChatGuard
from judge.service.chat_stream import SHUTTING_DOWN, ChatStream
from judge.service.failsafe import failure_response, never_pass_on_error, ping_judge
from judge.service.guard import RequestGuard
from judge.service.metrics import CONTENT_TYPE_LATEST, ServiceMetrics
from judge.service.openapi import build_openapi
from judge.service.warmup import warm_up

log = logging.getLogger("judge.service.app")

# After the deadline, judge calls are cut by the deadline wrapper; this margin is for the
# pipeline to assemble the answer from what finished. Past it, every claim becomes a verifier error.
DEADLINE_GRACE_S = 1.0


@dataclass(frozen=True)
class ServeOptions:
    """Service settings. Limits here can only be stricter than the verifier's settings."""

    token: str | None = None
    max_body_bytes: int = 2_000_000
    max_claims: int | None = None
    request_timeout_s: float = 120.0
    body_timeout_s: float = 10.0  # the whole body must arrive within this
    audit_path: Path | None = None
    use_judge: bool = True
    # On SIGTERM: how long open streams may go on before they are stopped, closed.
    shutdown_grace_s: float = 10.0


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
        self.thresholds = active_thresholds(self.settings)
        self.metrics.watch_endpoints(lambda: _pool_of(self.judge))
        self.streams: set[ChatStream] = set()  # the guard's streams under way
        self.shutting_down = False
        self.warming: asyncio.Task[None] | None = None  # set when the app's lifespan runs
        self._loop: asyncio.AbstractEventLoop | None = None

    async def warm(self, *connections: Callable[[], Awaitable[None]]) -> None:
        """Load what a first request would (the lifespan runs it in the background), then
        open ``connections``; a failure is logged, and the first requests load lazily."""
        self._loop = asyncio.get_running_loop()
        started = time.perf_counter()
        try:
            await warm_up(self.settings, self.thresholds)
            for connect in connections:
                await connect()
        except Exception:
            log.exception("warm-up failed; the first requests will load what it did not")
            return
        log.info("warmed up in %.2f s", time.perf_counter() - started)

    def request_shutdown(self) -> None:
        """:meth:`begin_shutdown` from a signal handler (any thread)."""
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self.begin_shutdown)

    def begin_shutdown(self) -> None:
        """Turn not ready and refuse new streams; stop the open ones, closed, once
        ``shutdown_grace_s`` has passed."""
        if self.shutting_down:
            return
        self.shutting_down = True
        grace = self.options.shutdown_grace_s
        log.info("shutting down: %d open stream(s), stopped after %g s", len(self.streams), grace)
        asyncio.get_running_loop().call_later(grace, self._stop_streams)

    def _stop_streams(self) -> None:
        for stream in list(self.streams):
            stream.stop(SHUTTING_DOWN)

    async def verify(self, req: VerifyRequest, settings: Settings | None = None) -> VerifyResponse:
        """Verify within the request's time budget; never raises a verifier fault. ``settings``
        (the service's by default) may change per request what the guard endpoint lets a
        caller choose (the citation policy)."""
        settings = settings or self.settings
        budget = self.options.request_timeout_s
        loop = asyncio.get_running_loop()
        deadline = loop.time() + budget
        use_judge = self.options.use_judge
        # The pipeline takes the judge's per-request view (fence nonce, ledger hash) itself.
        judge = with_deadline(self.judge, deadline, budget) if use_judge and self.judge else None
        try:
            async with asyncio.timeout_at(deadline + DEADLINE_GRACE_S):
                response = await verify(
                    req,
                    settings,
                    judge=judge,
                    thresholds=self.thresholds,
                )
        except TimeoutError:
            message = f"RequestDeadlineExceeded: request timed out after {budget:g} s"
            response = failure_response(req, settings, uuid.uuid4().hex, message, budget)
        except InputError:
            raise
        except Exception as exc:
            # A bug must not turn into a 500 the caller might read as "no objection".
            log.exception("verification failed unexpectedly")
            message = f"unexpected {type(exc).__name__}: {exc}"
            seconds = budget - (deadline - loop.time())
            response = failure_response(req, settings, uuid.uuid4().hex, message, seconds)
        return never_pass_on_error(response)


def create_app(
    settings: Settings,
    options: ServeOptions | None = None,
    *,
    judge: Judge | None = None,
    audit: AuditLog | None = None,
    generator: ChatGenerator | None = None,
) -> FastAPI:
    """Build the app. A ``judge``, ``audit`` or ``generator`` given here is used as is and not
    closed; those left out are opened when the app starts and closed when it stops."""
    options = options or ServeOptions()
    service = Service(settings, options, judge, audit)
    chat = ChatGuard(service, generator)

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            if service.audit is None:
                path = options.audit_path or default_audit_path(service.settings)
                service.audit = AuditLog.open(path)
                stack.callback(service.audit.close)
            if service.judge is None and options.use_judge:
                service.judge = await stack.enter_async_context(_open_judge(service.settings))
            await stack.enter_async_context(chat.opened())
            service.warming = asyncio.create_task(service.warm(chat.warm), name="warm-up")
            stack.push_async_callback(_cancelled, service.warming)
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
        body_timeout_s=options.body_timeout_s,
    )
    _add_routes(app, service)
    chat.add_routes(app)
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
        if service.shutting_down:
            checks["service"] = SHUTTING_DOWN
        if service.warming is not None:
            checks["warm"] = "ok" if service.warming.done() else "warming up"
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
            # Readable is not enough: ready means the next answer can be recorded.
            fault = await asyncio.to_thread(service.audit.fault)
            checks["audit"] = fault or "ok"
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
    from judge.pipeline.entail import connect

    async with connect.open_judge_or_unavailable(settings) as judge:
        if isinstance(judge, UnavailableJudge):
            log.error("judge unavailable, every answer will be blocked: %s", judge.reason)
        yield judge


async def _cancelled(task: asyncio.Task[None]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


def _effective_settings(settings: Settings, options: ServeOptions) -> Settings:
    if options.request_timeout_s <= 0:
        raise ConfigError("the request timeout must be positive")
    if options.shutdown_grace_s < 0:
        raise ConfigError("the shutdown grace must not be negative")
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
    return parse_request(parse_json(body, field="request", source="the body"))


def _refuse(status: int, exc: InputError) -> Response:
    return _json(status, ErrorBody(detail=str(exc), field=exc.field))


def _json(status: int, body: BaseModel) -> Response:
    return JSONResponse(body.model_dump(exclude_none=True), status_code=status)


def _pool_of(judge: Judge | None) -> EndpointPool | None:
    """The endpoint pool under the service's judge, for per-endpoint metrics."""
    from judge.pipeline.entail.llm_judge import HttpJudge

    return judge.pool if isinstance(judge, HttpJudge) else None
