"""The generator: writes answer drafts over any OpenAI-compatible chat-completions endpoint.

Plain text, one completion per call, ``max_tokens`` always sent. It shares the judge client's
HTTP layer (:mod:`judge.judges.transport`: explicit timeouts, fail-fast transport; the openai
client's own retries set to ``settings.http_retries``), so a refused connection, a timeout or
an HTTP error all end as a :class:`GeneratorFault`, and so does output that is empty, cut off
at ``max_tokens`` or malformed. A fault names the generator and quotes nothing it sent: an
error body or an error event can carry reply text, which nobody has verified. No draft is ever
made up on failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, NoReturn, Protocol, cast, runtime_checkable

import httpx
import openai

from judge.answer.grammar import Dialect
from judge.answer.grammar_support import GrammarSupport, detect_support, unsupported
from judge.config import GeneratorGrammar, Settings
from judge.errors import ConfigError, GeneratorFault
from judge.judges.endpoint_urls import api_base
from judge.judges.transport import TransportFailed, endpoint_client, openai_client
from judge.prompts.rendering import RenderedPrompt

DEFAULT_MAX_TOKENS = 512


@dataclass(frozen=True)
class Generation:
    text: str
    model: str
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    latency_s: float


class Generator(Protocol):
    """Writes one completion for a rendered prompt; raises ``GeneratorFault`` when it cannot."""

    async def generate(self, prompt: RenderedPrompt) -> Generation: ...


@runtime_checkable
class ConstrainedGenerator(Generator, Protocol):
    """A generator that can write under a grammar (:mod:`judge.answer.grammar`)."""

    async def generate(
        self, prompt: RenderedPrompt, *, extra_body: Mapping[str, Any] | None = None
    ) -> Generation: ...

    async def grammar_support(
        self, setting: GeneratorGrammar, *, model: str | None = None
    ) -> GrammarSupport: ...

    def distrust_grammar(self, note: str) -> None: ...


class HttpGenerator:
    """Chat completions on one endpoint. ``calls`` counts the completions requested."""

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        *,
        model: str | None,
        max_tokens: int,
        temperature: float,
        owns_client: bool,
        known_dialect: Dialect | None = None,
    ) -> None:
        self._client = client
        self._model = model
        self._owns_client = owns_client
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.calls = 0
        self._grammar: tuple[GeneratorGrammar, GrammarSupport] | None = None
        self._grammar_lock = asyncio.Lock()
        # What the server is known to take without a probe (the embedded server's backend).
        self._known_dialect = known_dialect

    async def resolve_model(self) -> str:
        """The configured model id, or the one model the server lists."""
        if self._model:
            return self._model
        try:
            page = await self._client.with_options(max_retries=0).models.list()
        except Exception as exc:
            _raise_fault(exc)
        served = [entry.id for entry in page.data]
        if len(served) != 1:
            raise ConfigError(
                f"the generator server lists {len(served)} models ({', '.join(served[:5])}); "
                "give the generator model id"
            )
        self._model = served[0]
        return served[0]

    async def ping(self) -> None:
        """Reach the generator once (its model list), which opens its connection: a service
        does it before it says ready. ``GeneratorFault`` when it cannot."""
        try:
            await self._client.with_options(max_retries=0).models.list()
        except Exception as exc:
            _raise_fault(exc)

    async def generate(
        self, prompt: RenderedPrompt, *, extra_body: Mapping[str, Any] | None = None
    ) -> Generation:
        """One completion of ``prompt``; ``extra_body`` adds fields to the request (a grammar)."""
        options = {"extra_body": dict(extra_body)} if extra_body else None
        return await self.complete(prompt.messages(), options=options)

    async def grammar_support(
        self, setting: GeneratorGrammar, *, model: str | None = None
    ) -> GrammarSupport:
        """How this endpoint constrains decoding, by ``setting`` or probed once (with
        ``model``, else this generator's) and kept."""
        async with self._grammar_lock:
            if self._grammar is None or self._grammar[0] is not setting:
                known = self._known_dialect
                if setting is GeneratorGrammar.AUTO and known is not None:
                    support = GrammarSupport(known, "server")
                else:
                    model = model or await self.resolve_model()
                    support = await detect_support(self._client, model, setting)
                self._grammar = (setting, support)
            return self._grammar[1]

    def distrust_grammar(self, note: str) -> None:
        """Stop constraining: a reply came back outside the grammar it was sent."""
        setting = self._grammar[0] if self._grammar else GeneratorGrammar.AUTO
        self._grammar = (setting, unsupported(note, source="check"))

    async def complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        model: str | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> Generation:
        """One completion of ``messages`` as given (the guard endpoint forwards a caller's chat).
        ``model``, ``max_tokens`` and ``temperature`` default to this generator's; ``options``
        are further sampling parameters (``top_p``, ``stop``, ``seed``, ...)."""
        model = model or await self.resolve_model()
        max_tokens = max_tokens or self.max_tokens
        self.calls += 1
        started = time.perf_counter()
        try:
            completion = await self._client.chat.completions.create(
                model=model,
                messages=cast(Any, list(messages)),
                max_tokens=max_tokens,
                temperature=self.temperature if temperature is None else temperature,
                **dict(options or {}),
            )
        except Exception as exc:
            _raise_fault(exc)
        latency = time.perf_counter() - started
        if not completion.choices:
            raise GeneratorFault("the generator returned no choices")
        choice = completion.choices[0]
        text = (choice.message.content or "").strip()
        if choice.finish_reason == "length":
            raise GeneratorFault(f"the generator's answer was cut off at max_tokens={max_tokens}")
        if not text:
            raise GeneratorFault("the generator returned an empty answer")
        usage = completion.usage
        return Generation(
            text=text,
            model=completion.model or model,
            finish_reason=choice.finish_reason,
            prompt_tokens=usage.prompt_tokens if usage else 0,
            completion_tokens=usage.completion_tokens if usage else 0,
            latency_s=latency,
        )

    def stream(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        model: str | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> GenerationStream:
        """One completion of ``messages``, streamed: iterate it for the text as it is written
        (``stream: true`` on the endpoint). Closing it early closes the connection, which
        cancels the generation on servers that watch for it."""
        return GenerationStream(
            self, messages, model=model, max_tokens=max_tokens, temperature=temperature,
            options=options,
        )  # fmt: skip

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.close()

    async def __aenter__(self) -> HttpGenerator:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


class GenerationStream:
    """The text of one streamed completion, chunk by chunk. A transport error, an HTTP error, a
    reply cut off at ``max_tokens`` or an empty reply raises ``GeneratorFault`` from the
    iteration; ``model``, ``finish_reason`` and the token counts are filled in as they arrive."""

    def __init__(
        self,
        generator: HttpGenerator,
        messages: Sequence[Mapping[str, Any]],
        *,
        model: str | None,
        max_tokens: int | None,
        temperature: float | None,
        options: Mapping[str, Any] | None,
    ) -> None:
        self._generator = generator
        self._messages = list(messages)
        self._model = model
        self._max_tokens = max_tokens or generator.max_tokens
        self._temperature = generator.temperature if temperature is None else temperature
        self._options = dict(options or {})
        self._iterator: AsyncIterator[str] | None = None
        self._response: Any = None
        self.model = model or ""
        self.finish_reason: str | None = None
        self.prompt_tokens = 0
        self.completion_tokens = 0

    def __aiter__(self) -> AsyncIterator[str]:
        if self._iterator is None:
            self._iterator = self._chunks()
        return self._iterator

    async def __anext__(self) -> str:
        return await self.__aiter__().__anext__()

    async def aclose(self) -> None:
        """Stop the generation: the HTTP response is closed."""
        if self._iterator is not None:
            await self._iterator.aclose()  # type: ignore[attr-defined]
        await self._close_response()

    async def _close_response(self) -> None:
        response, self._response = self._response, None
        if response is not None:
            with contextlib.suppress(Exception):
                await response.close()

    async def _chunks(self) -> AsyncIterator[str]:
        generator = self._generator
        model = self._model or await generator.resolve_model()
        self.model = model
        generator.calls += 1
        try:
            self._response = await generator._client.chat.completions.create(
                model=model,
                messages=cast(Any, self._messages),
                max_tokens=self._max_tokens,
                temperature=self._temperature,
                stream=True,
                stream_options={"include_usage": True},
                **self._options,
            )
        except Exception as exc:
            _raise_fault(exc)
        wrote = False
        try:
            async for chunk in self._response:
                text = self._read_chunk(chunk)
                if text:
                    wrote = wrote or bool(text.strip())
                    yield text
        except GeneratorFault:
            raise
        except Exception as exc:
            # A dropped connection, an error event, or output that is not a chunk at all
            # (bad JSON, a field of the wrong type): never passed on, never a crash.
            raise _stream_fault(exc) from exc
        finally:
            await self._close_response()
        if self.finish_reason == "length":
            raise GeneratorFault(
                f"the generator's answer was cut off at max_tokens={self._max_tokens}"
            )
        if self.finish_reason is None:
            # A connection closed without the last chunk: the text may be cut anywhere.
            raise GeneratorFault("the generator's stream ended before its finish_reason")
        if not wrote:
            raise GeneratorFault("the generator returned an empty answer")

    def _read_chunk(self, chunk: Any) -> str | None:
        """The text of one streamed chunk, after noting its model, usage and finish reason; a
        chunk of the wrong shape is a ``GeneratorFault``."""
        model = getattr(chunk, "model", None)
        if isinstance(model, str) and model:
            self.model = model
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            prompt = getattr(usage, "prompt_tokens", 0)
            completion = getattr(usage, "completion_tokens", 0)
            if not (_is_count(prompt) and _is_count(completion)):
                raise GeneratorFault("the generator sent a malformed chunk (usage)")
            self.prompt_tokens, self.completion_tokens = prompt, completion
        choices = getattr(chunk, "choices", None)
        if choices is None or (isinstance(choices, list) and not choices):
            return None
        if not isinstance(choices, list):
            raise GeneratorFault("the generator sent a malformed chunk (choices)")
        choice = choices[0]
        finish = getattr(choice, "finish_reason", None)
        if finish is not None:
            if not isinstance(finish, str):
                raise GeneratorFault("the generator sent a malformed chunk (finish_reason)")
            self.finish_reason = finish
        delta = getattr(choice, "delta", None)
        text = getattr(delta, "content", None) if delta is not None else None
        if text is not None and not isinstance(text, str):
            raise GeneratorFault("the generator sent a malformed chunk (delta content)")
        return text


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def build_http_generator(
    settings: Settings,
    *,
    base_url: str,
    model: str | None = None,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    temperature: float = 0.0,
    http_client: httpx.AsyncClient | None = None,
    known_dialect: Dialect | None = None,
) -> HttpGenerator:
    """A generator on ``base_url``. Without ``http_client`` one is built like the judge's (and
    closed by :meth:`HttpGenerator.aclose`); a given client is used as it is and left open.
    ``known_dialect``: the constraint the server is known to take (no probe is made)."""
    if max_tokens < 1:
        raise ConfigError("the generator's max_tokens must be at least 1")
    owns_client = http_client is None
    if http_client is None:
        root, client, _pool = endpoint_client(settings, base_url)
    else:
        root, client = api_base(base_url), http_client
    raw = openai_client(settings, root, client)
    return HttpGenerator(
        raw,
        model=model,
        max_tokens=max_tokens,
        temperature=temperature,
        owns_client=owns_client,
        known_dialect=known_dialect,
    )


@contextlib.asynccontextmanager
async def open_generator(
    settings: Settings,
    *,
    base_url: str | None = None,
    model: str | None = None,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    temperature: float = 0.0,
) -> AsyncIterator[HttpGenerator]:
    """The generator on ``base_url``, else on the judge's endpoint (the embedded local model
    when no ``JUDGE_BASE_URL`` is set, started if need be; its backend tells which grammar it
    takes, so it is not probed)."""
    known: Dialect | None = None
    if base_url is None:
        from judge.pipeline.entail.connect import resolve_endpoint

        base_url, judge_model = await resolve_endpoint(settings)
        model = model or judge_model
        if not settings.base_url:
            known = await asyncio.to_thread(_embedded_dialect, settings, base_url)
    generator = build_http_generator(
        settings,
        base_url=base_url,
        model=model,
        max_tokens=max_tokens,
        temperature=temperature,
        known_dialect=known,
    )
    async with generator:
        yield generator


def _embedded_dialect(settings: Settings, base_url: str) -> Dialect | None:
    """The grammar dialect of the embedded server at ``base_url``: its backend's."""
    from judge.local_models.server import recorded_server

    info = recorded_server(settings)
    if info is None or info.base_url != base_url:
        return None
    return Dialect(info.backend)


def _raise_fault(exc: Exception) -> NoReturn:
    """Re-raise a transport, HTTP or output error as a ``GeneratorFault``; anything else (a
    bug) as it is."""
    fault = generator_fault(exc)
    if fault is None:
        raise exc
    raise fault from exc


def generator_fault(exc: BaseException) -> GeneratorFault | None:
    """The ``GeneratorFault`` a transport or HTTP error of the generator's client stands for
    (None for anything else). Its words name the generator and its HTTP status, never the body
    or the message it sent."""
    for current in _chain(exc):
        if isinstance(current, GeneratorFault):
            return current
        if isinstance(current, openai.APITimeoutError | httpx.TimeoutException):
            return GeneratorFault("the generator did not answer in time")
        if isinstance(current, openai.APIConnectionError | httpx.ConnectError):
            return GeneratorFault("cannot reach the generator")
        if isinstance(current, openai.APIStatusError):
            return GeneratorFault(f"the generator answered HTTP {current.status_code}")
        if isinstance(current, TransportFailed):
            cause = current.__cause__
            if isinstance(cause, httpx.TimeoutException):
                return GeneratorFault("the generator did not answer in time")
            return GeneratorFault("cannot reach the generator")
        if isinstance(current, openai.APIError):
            return GeneratorFault("the generator's stream carried an error event")
    return None


def _stream_fault(exc: Exception) -> GeneratorFault:
    """A fault while a stream is read: the client's own, else the connection's, else output
    that is not a chunk at all (named by its type only)."""
    known = generator_fault(exc)
    if known is not None:
        return known
    if isinstance(exc, httpx.HTTPError):
        return GeneratorFault(f"the connection to the generator failed ({type(exc).__name__})")
    return GeneratorFault(f"the generator sent malformed output ({type(exc).__name__})")


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not other for other in seen):
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen
