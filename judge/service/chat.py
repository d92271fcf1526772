"""The guard endpoint: ``POST /v1/chat/completions``, OpenAI-compatible.

An application points its OpenAI client at the service and adds the evidence in an extension
field, ``"grounding": {"evidence": [...]}`` (``extra_body`` in the openai SDK). The chat is
forwarded to the generator (``generator_base_url``), the reply is verified against that
evidence, and what comes back is only ever verified text:

    pass                  the reply as it is
    repair                the repaired reply (failing sentences cut out)
    regenerate or block   a refusal that says what the evidence does not support
    judge fault           a refusal (outcome ``verifier_error``), never the reply
    generator fault       HTTP 502 with an OpenAI-style error body
    audit log fault       HTTP 503: the reply is withheld, never released unrecorded

The verification goes back in the response's ``grounding`` field, quoting only the text that
was sent unless the request sets ``grounding.include_withheld`` (:mod:`.redaction`); errors
name the party that failed and never quote what the generator sent. ``stream: true`` streams
the reply sentence by sentence, each sent only once verified (:mod:`judge.service.chat_stream`);
``grounding.stream_mode = "buffered"`` verifies the whole reply first and then sends it as
chunks, so that it can still be repaired or refused as a whole.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from fastapi import FastAPI, Request, Response
from pydantic import ValidationError

from judge.answer.constrain import ReplyConstraint, reply_constraint
from judge.answer.generator import (
    DEFAULT_MAX_TOKENS,
    Generation,
    HttpGenerator,
    build_http_generator,
)
from judge.answer.refusals import refusal_text
from judge.api import evidence_passages
from judge.config import Settings
from judge.errors import AuditError, ConfigError, GeneratorFault, InputError
from judge.inputs import strict_json
from judge.inputs.request import input_error_from
from judge.pipeline.ledger import freeze_ledger
from judge.schemas import Action, Label, Passage, VerifyRequest, VerifyResponse
from judge.service.chat_models import (
    AssistantMessage,
    ChatCompletion,
    ChatCompletionRequest,
    Choice,
    Grounding,
    GroundingOptions,
    OpenAIErrorBody,
    Outcome,
    Usage,
    openai_error,
)
from judge.service.chat_stream import SHUTTING_DOWN, ChatStream, EventStreamResponse, TextStream
from judge.service.redaction import without_withheld

if TYPE_CHECKING:
    from judge.service.app import Service

log = logging.getLogger("judge.service.chat")

CHAT_PATH = "/v1/chat/completions"
AUDIT_KIND = "chat"
WITHHELD = "No verified answer can be given"  # as judge.answer.refusals.WITHHELD
# Request fields whose replies are not plain text this service can verify.
UNSUPPORTED_FIELDS = (
    "tools",
    "tool_choice",
    "functions",
    "function_call",
    "response_format",
    "audio",
    "modalities",
    "logprobs",
    "top_logprobs",
)
# Sampling parameters passed on to the generator as they are.
FORWARDED_FIELDS = ("top_p", "stop", "seed", "presence_penalty", "frequency_penalty")
# The most sentences the citation grammar lets a reply have (judge/answer/grammar.py).
MAX_REPLY_SENTENCES = 20


class ChatGenerator(Protocol):
    """Completes a caller's chat as it is (:class:`~judge.answer.generator.HttpGenerator`);
    raises ``GeneratorFault`` when it cannot."""

    async def complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        model: str | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Generation: ...


@runtime_checkable
class StreamingChatGenerator(ChatGenerator, Protocol):
    """A generator that can also stream its completion (:class:`HttpGenerator` can)."""

    def stream(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        model: str | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> TextStream: ...


class ChatGuard:
    """The guard endpoint of one app: its generator and its route."""

    def __init__(self, service: Service, generator: ChatGenerator | None = None) -> None:
        self.service = service
        self.generator = generator

    @contextlib.asynccontextmanager
    async def opened(self) -> AsyncIterator[None]:
        """Open the configured generator for the app's lifetime (one given is left as it is)."""
        settings = self.service.settings
        if self.generator is not None or not settings.generator_base_url:
            yield
            return
        async with open_guard_generator(settings) as generator:
            self.generator = generator
            try:
                yield
            finally:
                self.generator = None

    async def warm(self) -> None:
        """Open the generator's connection before the first request (its first connection
        also builds its TLS context); a generator that does not answer is only logged, since
        ``/v1/verify`` needs none."""
        generator = self.generator
        if not isinstance(generator, HttpGenerator):
            return
        try:
            await generator.ping()
        except (GeneratorFault, ConfigError) as exc:
            log.warning("the generator did not answer its warm-up ping: %s", exc)

    def add_routes(self, app: FastAPI) -> None:
        errors: dict[int | str, dict[str, Any]] = {
            401: {"description": "Missing or wrong bearer token."},
            413: {"description": "Request body over the size limit."},
            422: {"model": OpenAIErrorBody, "description": "Invalid request (names the field)."},
            502: {"model": OpenAIErrorBody, "description": "The generator failed: no reply."},
            503: {
                "model": OpenAIErrorBody,
                "description": "No generator configured, or the audit log is unavailable.",
            },
        }
        app.add_api_route(
            CHAT_PATH,
            self.handle,
            methods=["POST"],
            response_model=ChatCompletion,
            responses=errors,
            summary="Chat completion, verified against the evidence it carries",
            operation_id="chat_completions",
            response_description=(
                "The verified reply, the repaired reply, or a refusal; the verification is in "
                "`grounding`. With `stream: true`, the same as server-sent events."
            ),
            openapi_extra={
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {"$ref": "#/components/schemas/ChatCompletionRequest"}
                        }
                    },
                }
            },
        )

    async def handle(self, request: Request) -> Response:
        started = time.perf_counter()
        service = self.service
        try:
            chat = parse_chat(await request.body())
            passages = evidence_passages(chat.grounding.evidence, "grounding.evidence")
            settings = _request_settings(service.settings, chat.grounding)
            freeze_ledger(passages, settings)  # duplicate ids and limits, before any generation
        except InputError as exc:
            service.metrics.observe_rejected("invalid")
            return _error(422, str(exc), "invalid_request_error", exc.field)
        generator = self.generator
        if generator is None:
            message = "no generator configured: set JUDGE_GENERATOR_BASE_URL or generator_base_url"
            return _error(503, message, "service_unavailable")
        service.metrics.in_flight.inc()
        try:
            return await self._answer(request, chat, passages, settings, generator, started)
        finally:
            service.metrics.in_flight.dec()

    async def _answer(
        self,
        request: Request,
        chat: ChatCompletionRequest,
        passages: list[Passage],
        settings: Settings,
        generator: ChatGenerator,
        started: float,
    ) -> Response:
        service = self.service
        model = settings.generator_model or chat.model
        try:
            constraint = await reply_constraint(
                generator,
                [p.id for p in passages],
                settings,
                max_sentences=MAX_REPLY_SENTENCES,
                model=model,
            )
        except (GeneratorFault, ConfigError) as exc:
            log.error("generator failed: %s", exc)
            service.metrics.observe_error(type(exc).__name__)
            return _error(502, f"{type(exc).__name__}: {exc}", "generator_error")
        if chat.stream and chat.grounding.stream_mode == "sentences":
            if not isinstance(generator, StreamingChatGenerator):
                message = "the configured generator cannot stream: use stream_mode buffered"
                return _error(422, message, "invalid_request_error", "grounding.stream_mode")
            return await self._stream(
                request, chat, passages, settings, generator, model, started, constraint
            )
        try:
            generation = await _complete(generator, chat, model, constraint.extra_body)
            constraint = constraint.checked(generator, generation.text)
        except (GeneratorFault, ConfigError) as exc:
            log.error("generator failed: %s", exc)
            service.metrics.observe_error(type(exc).__name__)
            return _error(502, f"{type(exc).__name__}: {exc}", "generator_error")
        except Exception as exc:  # a fault nobody mapped: still the generator's, never a 500
            log.exception("generator failed unexpectedly")
            service.metrics.observe_error("GeneratorFault")
            return _error(502, f"the generator failed ({type(exc).__name__})", "generator_error")
        req = VerifyRequest(evidence=passages, answer=generation.text, question=_question(chat))
        try:
            response = await service.verify(req, settings)
        except InputError as exc:
            service.metrics.observe_rejected("invalid")
            return _error(422, str(exc), "invalid_request_error", exc.field)
        outcome, text = guarded_reply(response, generation.text, req.question, passages)
        latency = time.perf_counter() - started
        extra = {"outcome": outcome, "model": generation.model, "stream": chat.stream}
        try:
            if service.audit is None:
                raise AuditError("the audit log is not open")
            await asyncio.to_thread(
                service.audit.record, req, response, kind=AUDIT_KIND, extra=extra, latency_s=latency
            )
        except AuditError as exc:
            log.error("reply %s withheld: %s", response.request_id, exc)
            service.metrics.observe_error(type(exc).__name__)
            return _error(503, f"audit log unavailable, reply withheld: {exc}", "audit_error")
        service.metrics.observe(req, response, latency)
        completion = ChatCompletion(
            id=f"chatcmpl-{response.request_id}",
            created=int(time.time()),
            model=generation.model,
            choices=[Choice(message=AssistantMessage(content=text))],
            usage=Usage(
                prompt_tokens=generation.prompt_tokens,
                completion_tokens=generation.completion_tokens,
                total_tokens=generation.prompt_tokens + generation.completion_tokens,
            ),
            grounding=Grounding(
                outcome=outcome,
                verification=response
                if chat.grounding.include_withheld
                else without_withheld(response, shown_in_reply(response, outcome)),
                drafting=constraint.drafting(),
            ),
        )
        headers = {"x-request-id": response.request_id}
        if chat.stream:
            return Response(sse_body(completion), media_type="text/event-stream", headers=headers)
        body = completion.model_dump_json()
        return Response(body, media_type="application/json", headers=headers)

    async def _stream(
        self,
        request: Request,
        chat: ChatCompletionRequest,
        passages: list[Passage],
        settings: Settings,
        generator: StreamingChatGenerator,
        model: str,
        started: float,
        constraint: ReplyConstraint,
    ) -> Response:
        """Sentence by sentence: the generator's first text is awaited first (the client's
        disconnect watched, the wait bounded), so a generator that fails before it is still a
        502; after that every fault ends the stream closed."""
        service = self.service
        if service.shutting_down:
            return _error(503, f"{SHUTTING_DOWN}: no reply", "service_unavailable")
        if service.audit is None or (fault := await asyncio.to_thread(service.audit.fault)):
            message = f"audit log unavailable, reply withheld: {fault or 'not open'}"
            return _error(503, message, "audit_error")
        generation = generator.stream(
            [m.model_dump(exclude_none=True) for m in chat.messages],
            model=model,
            max_tokens=chat.max_completion_tokens or chat.max_tokens or DEFAULT_MAX_TOKENS,
            temperature=chat.temperature,
            options=_options(chat, constraint.extra_body),
        )
        stream = ChatStream(
            service,
            settings,
            generation,
            passages,
            _question(chat),
            started,
            model,
            include_withheld=chat.grounding.include_withheld,
            drafting=constraint.drafting(),
        )
        stream.start()
        refused = await stream.opened(request)
        if refused is not None:
            return refused
        return EventStreamResponse(
            stream.events(),
            stream.departure,
            send_timeout_s=settings.stream_send_timeout_s,
            headers={"x-request-id": stream.request_id},
            on_close=stream.closed,
        )


def guarded_reply(
    response: VerifyResponse,
    reply: str,
    question: str | None = None,
    passages: Sequence[Passage] = (),
) -> tuple[Outcome, str]:
    """What may be shown for ``reply``: itself, its repair, or a refusal that says which it is:
    no passage bears on the question, or the reply failed verification (its failures named by
    kind and count, never quoted)."""
    errors = [v for v in response.verdicts if v.label is Label.VERIFIER_ERROR]
    if errors:
        return "verifier_error", f"{WITHHELD}: the reply could not be verified."
    if response.action is Action.PASS:
        return "passed", reply
    if response.action is Action.REPAIR and response.repaired_answer:
        return "repaired", response.repaired_answer
    return "refused", refusal_text(question, passages, response.failing)


def shown_in_reply(response: VerifyResponse, outcome: Outcome) -> set[str]:
    """The claims whose text a buffered reply sent: all when it passed, those its repair kept,
    none when it was refused."""
    if outcome == "passed":
        return {v.claim.id for v in response.verdicts}
    if outcome == "repaired":
        cut = {claim_id for edit in response.repair_edits for claim_id in edit.claim_ids}
        return {v.claim.id for v in response.verdicts if v.claim.id not in cut}
    return set()


def parse_chat(body: bytes) -> ChatCompletionRequest:
    """The request, or an ``InputError`` naming the field at fault."""
    try:
        data = strict_json.loads(body)
    except strict_json.DuplicateKeyError as exc:
        raise InputError(f"the body holds a {exc.describe()}", field="request") from None
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise InputError("the body is not a readable JSON document", field="request") from None
    if not isinstance(data, dict):
        raise InputError("the request must be a JSON object", field="request")
    for name in UNSUPPORTED_FIELDS:
        if data.get(name) not in (None, False):
            raise InputError("not supported: the guard verifies plain-text replies", field=name)
    try:
        return ChatCompletionRequest.model_validate(data)
    except ValidationError as exc:
        raise input_error_from(exc) from None


def sse_body(completion: ChatCompletion) -> bytes:
    """The verified completion as chat-completion chunks: the text, then the finish with the
    ``grounding`` field, then ``[DONE]``."""
    head = {
        "id": completion.id,
        "object": "chat.completion.chunk",
        "created": completion.created,
        "model": completion.model,
    }
    text = completion.choices[0].message.content
    first = {**head, "choices": [_delta({"role": "assistant", "content": text}, None)]}
    last = {
        **head,
        "choices": [_delta({}, "stop")],
        "usage": completion.usage.model_dump(),
        "grounding": completion.grounding.model_dump(mode="json"),
    }
    events = [f"data: {json.dumps(chunk)}\n\n" for chunk in (first, last)]
    return ("".join(events) + "data: [DONE]\n\n").encode("utf-8")


@contextlib.asynccontextmanager
async def open_guard_generator(settings: Settings) -> AsyncIterator[HttpGenerator]:
    base_url = settings.generator_base_url
    if not base_url:
        raise ConfigError("no generator configured: set generator_base_url")
    if settings.generator_api_key is not None:
        settings = settings.model_copy(update={"api_key": settings.generator_api_key})
    generator = build_http_generator(settings, base_url=base_url, model=settings.generator_model)
    async with generator:
        yield generator


async def _complete(
    generator: ChatGenerator,
    chat: ChatCompletionRequest,
    model: str,
    extra_body: dict[str, Any] | None = None,
) -> Generation:
    return await generator.complete(
        [m.model_dump(exclude_none=True) for m in chat.messages],
        model=model,
        max_tokens=chat.max_completion_tokens or chat.max_tokens or DEFAULT_MAX_TOKENS,
        temperature=chat.temperature,
        options=_options(chat, extra_body),
    )


def _options(chat: ChatCompletionRequest, extra_body: dict[str, Any] | None) -> dict[str, Any]:
    """The caller's sampling parameters, and the citation grammar's fields when there are any."""
    options = {name: getattr(chat, name) for name in FORWARDED_FIELDS}
    options = {name: value for name, value in options.items() if value is not None}
    if extra_body:
        options["extra_body"] = extra_body
    return options


def _request_settings(settings: Settings, grounding: GroundingOptions) -> Settings:
    if grounding.citation_policy is None or grounding.citation_policy is settings.citation_policy:
        return settings
    return settings.model_copy(update={"citation_policy": grounding.citation_policy})


def _question(chat: ChatCompletionRequest) -> str | None:
    if chat.grounding.question is not None:
        return chat.grounding.question
    for message in reversed(chat.messages):
        if message.role != "user":
            continue
        if isinstance(message.content, str):
            return message.content
        if isinstance(message.content, list):
            parts = [p.get("text") for p in message.content if p.get("type") == "text"]
            return " ".join(p for p in parts if isinstance(p, str)) or None
    return None


def _delta(delta: dict[str, Any], finish_reason: str | None) -> dict[str, Any]:
    return {"index": 0, "delta": delta, "finish_reason": finish_reason}


def _error(status: int, message: str, kind: str, param: str | None = None) -> Response:
    return openai_error(status, message, kind, param)


__all__ = [
    "CHAT_PATH",
    "ChatCompletion",
    "ChatCompletionRequest",
    "ChatGenerator",
    "ChatGuard",
    "GroundingOptions",
    "guarded_reply",
    "parse_chat",
    "sse_body",
]
