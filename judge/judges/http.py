"""The HTTP judge over any OpenAI-compatible endpoint (or a pool of them, :mod:`judge.judges.pool`),
and the one openai client and fault mapping that the generator shares.

Any OpenAI-compatible chat-completions server works (vLLM in production, llama.cpp's server
embedded). Structured output goes through ``instructor`` in ``JSON_SCHEMA`` mode, which sends
the verdict schema as ``response_format`` so the server constrains decoding to it.

Retries, each layer doing one job:

* the openai client's own ``max_retries`` is set to ``settings.http_retries`` and covers the
  answers it deems transient (408, 409, 429, 5xx). With the HTTP client built here a refused
  connection or a timeout is raised at once (:class:`FailFastTransport`): repeating it rarely
  helps and multiplies the wait;
* instructor re-asks (``settings.reasks`` times) only when the output does not validate:
  malformed JSON, a value outside the schema, a quote not in the evidence, an unknown id.

Whatever goes wrong becomes a :class:`~judge.errors.VerifierFault`: ``JudgeUnavailable`` for the
transport and HTTP errors, ``JudgeOutputInvalid`` for truncated or invalid output once the
re-asks are spent. No default label is ever returned.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Generic, TypeVar, cast

import httpx
import instructor
import openai
from instructor.core.exceptions import IncompleteOutputException, InstructorError
from instructor.core.hooks import HookName, Hooks
from pydantic import BaseModel, ValidationError

from judge.config import Settings
from judge.errors import ConfigError, JudgeOutputInvalid, JudgeUnavailable, VerifierFault
from judge.judges.cache import VerdictCache, call_key, verdict_key
from judge.judges.pool import POOL_ROOT, EndpointPool, PoolTransport
from judge.judges.templates import RenderedPrompt, ledger_nonce, new_nonce, new_nonce_key
from judge.pipeline.claims.decompose import Conclusion, Facts, conclusion_prompt, decompose_prompt
from judge.pipeline.entail.score import LABEL_ONLY_NOTE, read_score
from judge.pipeline.entail.types import EntailmentResult, Premise
from judge.pipeline.entail.verdict import (
    DEFAULT_VARIANT,
    TOP_LOGPROBS,
    VARIANTS,
    PromptVariant,
    VerdictVariant,
    entail_prompt,
    premise_scope,
    verdict_model,
)
from judge.schemas import Claim, JudgeTrace

M = TypeVar("M", bound=BaseModel)

# instructor logs every failed attempt at ERROR, model output included; the faults raised here
# carry what matters. A NullHandler keeps Python's last-resort handler from printing them to
# stderr when the application has configured no logging, and still lets records propagate.
logging.getLogger("instructor").addHandler(logging.NullHandler())


class TransportFailed(openai.OpenAIError):
    """A refused connection or a timeout. Raised as an ``OpenAIError`` because the openai
    client passes those on without retrying."""


class FailFastTransport(httpx.AsyncBaseTransport):
    """Wraps a transport so connection failures and timeouts skip the openai client's retries."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self._inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        try:
            return await self._inner.handle_async_request(request)
        except httpx.TimeoutException as exc:
            raise TransportFailed(f"judge request timed out ({type(exc).__name__})") from exc
        except httpx.ConnectError as exc:
            raise TransportFailed(f"cannot connect to the judge: {exc}") from exc

    async def aclose(self) -> None:
        await self._inner.aclose()


def http_timeout(settings: Settings) -> httpx.Timeout:
    return httpx.Timeout(settings.timeout_s, connect=settings.connect_timeout_s)


def default_http_client(
    settings: Settings, transport: httpx.AsyncBaseTransport | None = None
) -> httpx.AsyncClient:
    """The HTTP client the judge uses unless given one: explicit timeouts, fail-fast transport."""
    inner = transport if transport is not None else httpx.AsyncHTTPTransport(retries=0)
    return httpx.AsyncClient(transport=FailFastTransport(inner), timeout=http_timeout(settings))


def openai_client(
    settings: Settings, root: str, http_client: httpx.AsyncClient
) -> openai.AsyncOpenAI:
    """The one way an openai client is built, for the judge and the generator alike: the
    configured key, timeouts and retries over ``http_client``."""
    return openai.AsyncOpenAI(
        base_url=root,
        api_key=settings.api_key,
        timeout=openai.Timeout(settings.timeout_s, connect=settings.connect_timeout_s),
        max_retries=settings.http_retries,
        http_client=cast(Any, http_client),
    )


def endpoint_pool(url: str) -> EndpointPool:
    """The endpoints of ``url``: one base URL or a comma-separated pool of them."""
    return EndpointPool([api_base(part.strip()) for part in url.split(",") if part.strip()])


def pool_http_client(settings: Settings, pool: EndpointPool) -> httpx.AsyncClient:
    """The HTTP client over ``pool``: requests go through a :class:`PoolTransport` that
    balances, ejects and fails over, under :class:`FailFastTransport`."""
    transport = PoolTransport(pool, probe_timeout_s=settings.connect_timeout_s)
    return default_http_client(settings, transport=transport)


def endpoint_client(settings: Settings, url: str) -> tuple[str, httpx.AsyncClient, EndpointPool]:
    """The API root to give an openai client, the HTTP client under it and its pool, for
    ``url`` (one base URL or a comma-separated pool of them)."""
    pool = endpoint_pool(url)
    return POOL_ROOT, pool_http_client(settings, pool), pool


def api_base(url: str) -> str:
    """The OpenAI API root: a bare ``http://host:port`` gets ``/v1``; any other path is kept."""
    parsed = httpx.URL(url)
    if parsed.path in ("", "/"):
        return str(parsed.copy_with(path="/v1"))
    return url.rstrip("/")


@dataclass
class JudgeUsage:
    """Model calls and tokens spent through one judge (or one request's view of it)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class _Completed(Generic[M]):
    parsed: M
    completion: Any
    calls: int
    prompt_tokens: int
    completion_tokens: int
    latency_s: float


@dataclass
class _Shared:
    settings: Settings
    make_openai: Callable[[], openai.AsyncOpenAI]
    cache: VerdictCache | None
    variant: VerdictVariant
    model: str | None
    owns_client: bool
    pool: EndpointPool | None = None
    # Built on the first call that goes to the server: a request served wholly from the cache
    # pays neither for the clients (an SSL context, openai's resource modules) nor for
    # instructor's wrapping of them.
    _openai: openai.AsyncOpenAI | None = None
    _instructor: instructor.AsyncInstructor | None = None
    # Claims judged side by side each need the model id: one of them asks the server.
    model_lookup: asyncio.Lock = field(default_factory=asyncio.Lock)
    nonce_key: bytes = field(default_factory=new_nonce_key)

    @property
    def openai(self) -> openai.AsyncOpenAI:
        if self._openai is None:
            self._openai = self.make_openai()
        return self._openai

    @property
    def instructor(self) -> instructor.AsyncInstructor:
        if self._instructor is None:
            self._instructor = instructor.from_openai(self.openai, mode=instructor.Mode.JSON_SCHEMA)
        return self._instructor

    async def close(self) -> None:
        if self._openai is not None:
            await self._openai.close()


class HttpJudge:
    """Judge and decomposer over an OpenAI-compatible endpoint. Safe to call concurrently.

    Prompts fence their data with a nonce held by the judge that data cannot guess. It stays the
    same across the claims of one request, and across the requests on one evidence ledger (it is
    keyed on the ledger hash under a secret drawn per judge), so the evidence prefix of the
    prompt is byte-identical and the server's prefix cache reuses it. Take a view per request
    with :meth:`for_request`.
    """

    def __init__(self, shared: _Shared, *, nonce: str, ledger_hash: str | None, root: bool) -> None:
        self._shared = shared
        self.nonce = nonce
        self.ledger_hash = ledger_hash
        self.usage = JudgeUsage()
        self._root = root

    @property
    def model_id(self) -> str:
        """The model id sent with every request; empty until discovered by :meth:`resolve_model`."""
        return self._shared.model or ""

    @property
    def settings(self) -> Settings:
        return self._shared.settings

    @property
    def pool(self) -> EndpointPool | None:
        """The endpoints this judge balances over (None with a client given by the caller)."""
        return self._shared.pool

    def for_request(self, *, ledger_hash: str | None = None) -> HttpJudge:
        """A view for one request: the ledger's nonce (a fresh one without a ledger), the
        request's ledger hash in every cache key, its own usage counters; the HTTP client, cache
        and model are shared."""
        nonce = ledger_nonce(self._shared.nonce_key, ledger_hash) if ledger_hash else new_nonce()
        return HttpJudge(self._shared, nonce=nonce, ledger_hash=ledger_hash, root=False)

    async def ping(self) -> list[str]:
        """The ids of the models the server serves (GET /v1/models), for readiness checks.

        Raises ``JudgeUnavailable`` when the server cannot be reached or answers an error.
        """
        try:
            page = await self._shared.openai.with_options(max_retries=0).models.list()
        except Exception as exc:
            fault = openai_fault(exc)
            if fault is None:
                raise
            raise fault from exc
        return [entry.id for entry in page.data]

    async def resolve_model(self) -> str:
        """The configured model id, or the one model the server lists (asked once)."""
        if self._shared.model:
            return self._shared.model
        async with self._shared.model_lookup:
            if self._shared.model:
                return self._shared.model
            return await self._look_up_model()

    async def _look_up_model(self) -> str:
        served = await self.ping()
        if not served:
            raise JudgeUnavailable("the judge server lists no model")
        if len(served) > 1:
            raise ConfigError(
                f"the judge server lists {len(served)} models ({', '.join(served[:5])}); "
                "set JUDGE_MODEL to choose one"
            )
        self._shared.model = served[0]
        return served[0]

    async def entail(
        self, claim: Claim, premise: Premise, question: str | None = None
    ) -> EntailmentResult:
        return await self._entail(claim, premise, question, self._shared.variant)

    async def probe_contradiction(
        self, claim: Claim, premise: Premise, question: str | None = None
    ) -> EntailmentResult:
        """P(contradicted), which the yes/no question lacks. After a yes/no verdict it is asked
        as a follow-up turn of that conversation (the server reuses its cached evidence prefix);
        otherwise as the three-way label-only question."""
        variant: PromptVariant = (
            "contradiction" if self._shared.variant == "yes_no" else "label_only"
        )
        return await self._entail(claim, premise, question, variant)

    async def _entail(
        self, claim: Claim, premise: Premise, question: str | None, variant: PromptVariant
    ) -> EntailmentResult:
        settings = self._shared.settings
        question = question.strip() if question and question.strip() else None
        model = await self.resolve_model()
        prompt = entail_prompt(premise, claim.text, question, nonce=self.nonce, variant=variant)
        decoding = self._decoding(logprobs=settings.logprobs)
        cache = self._shared.cache
        key: str | None = None
        if cache is not None:
            key = verdict_key(
                ledger_hash=self.ledger_hash,
                claim=claim.text,
                question=question,
                premise=premise,
                model=model,
                template_hash=prompt.template_hash,
                variant=variant,
                decoding=decoding,
            )
            hit = cache.get(key)
            if hit is not None:
                hit.trace = hit.trace.model_copy(update={"window": premise.window_index})
                return hit

        with premise_scope(premise):
            done = await self._complete(prompt, verdict_model(variant), model, decoding)
        verdict = done.parsed
        score = read_score(
            done.completion,
            verdict.label,
            variant,
            allow_label_only=settings.allow_label_only,
            requested=settings.logprobs,
        )
        trace = JudgeTrace(
            model=model,
            template=f"{prompt.template}:{variant}",
            template_hash=prompt.template_hash,
            calls=done.calls,
            prompt_tokens=done.prompt_tokens,
            completion_tokens=done.completion_tokens,
            window=premise.window_index,
            raw_label=verdict.label,
            latency_s=done.latency_s,
        )
        reason = verdict.reason.strip()
        if score.label_only:
            reason = f"{LABEL_ONLY_NOTE}; {reason}" if reason else LABEL_ONLY_NOTE
        result = EntailmentResult(
            label=verdict.label,
            reason=reason,
            p_supported=score.p_supported,
            p_contradicted=score.p_contradicted,
            evidence_quote=verdict.evidence_quote.strip() or None,
            evidence_ids=list(dict.fromkeys(verdict.evidence_ids)),
            trace=trace,
            extra=score.extra,
        )
        if cache is not None and key is not None:
            cache.put(key, result)
        return result

    async def decompose(
        self, sentence: str, context: str, question: str | None = None
    ) -> list[str]:
        """Atomic, decontextualised facts of ``sentence`` (1 to 8, each at most 300 characters).

        ``context`` is the answer text before the sentence, used to resolve references.
        """
        model = await self.resolve_model()
        prompt = decompose_prompt(sentence, context, question, nonce=self.nonce)
        inputs = {"sentence": sentence, "context": context, "question": question}
        return await self._cached_texts("decompose", inputs, prompt, model, Facts, _facts)

    async def main_conclusion(self, answer: str, question: str | None = None) -> str:
        """The answer's main conclusion, stated as one claim."""
        model = await self.resolve_model()
        prompt = conclusion_prompt(answer, question, nonce=self.nonce)
        inputs = {"answer": answer, "question": question}
        texts = await self._cached_texts(
            "conclusion", inputs, prompt, model, Conclusion, _conclusion
        )
        return texts[0]

    async def _cached_texts(
        self,
        kind: str,
        inputs: Mapping[str, str | None],
        prompt: RenderedPrompt,
        model: str,
        response_model: type[M],
        read: Callable[[M], list[str]],
    ) -> list[str]:
        """A text call served from the verdict cache when the same request made it before, so
        an identical request verified again makes no judge call at all."""
        decoding = self._decoding(logprobs=False)
        cache = self._shared.cache
        key: str | None = None
        if cache is not None:
            key = call_key(
                kind=kind,
                ledger_hash=self.ledger_hash,
                inputs=inputs,
                model=model,
                template_hash=prompt.template_hash,
                decoding=decoding,
            )
            hit = cache.get_texts(key)
            if hit is not None:
                return hit
        done = await self._complete(prompt, response_model, model, decoding)
        texts = read(done.parsed)
        if cache is not None and key is not None:
            cache.put_texts(key, texts)
        return texts

    async def aclose(self) -> None:
        """Close the HTTP client if this judge created it (views never close it)."""
        if self._root and self._shared.owns_client:
            await self._shared.close()

    async def __aenter__(self) -> HttpJudge:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def _decoding(self, *, logprobs: bool) -> dict[str, Any]:
        settings = self._shared.settings
        return {
            "temperature": settings.temperature,
            "max_tokens": settings.max_tokens,
            "logprobs": logprobs,
            "top_logprobs": TOP_LOGPROBS if logprobs else None,
        }

    async def _complete(
        self, prompt: RenderedPrompt, response_model: type[M], model: str, decoding: dict[str, Any]
    ) -> _Completed[M]:
        attempts = 0

        def on_attempt(*_args: Any, **_kwargs: Any) -> None:
            nonlocal attempts
            attempts += 1

        hooks = Hooks()
        hooks.on(HookName.COMPLETION_KWARGS, on_attempt)
        request: dict[str, Any] = {
            "model": model,
            "temperature": decoding["temperature"],
            "max_tokens": decoding["max_tokens"],
        }
        if decoding["logprobs"]:
            request["logprobs"] = True
            request["top_logprobs"] = decoding["top_logprobs"]
        started = time.perf_counter()
        try:
            parsed, completion = await self._shared.instructor.create_with_completion(
                messages=cast(Any, prompt.messages()),
                response_model=response_model,
                max_retries=self._shared.settings.reasks,
                hooks=hooks,
                **request,
            )
        except Exception as exc:
            self.usage.calls += attempts
            fault = openai_fault(exc, attempts=attempts)
            if fault is None:
                raise
            raise fault from exc
        latency = time.perf_counter() - started
        usage = getattr(completion, "usage", None)
        # instructor sums usage over re-asks into the final completion's usage.
        prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        self.usage.calls += attempts
        self.usage.prompt_tokens += prompt_tokens
        self.usage.completion_tokens += completion_tokens
        return _Completed(parsed, completion, attempts, prompt_tokens, completion_tokens, latency)


def _facts(parsed: Facts) -> list[str]:
    return list(parsed.facts)


def _conclusion(parsed: Conclusion) -> list[str]:
    return [parsed.conclusion]


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _output_summary(exc: BaseException) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'output'}: {err['msg']}"
            for err in exc.errors(include_url=False, include_input=False)[:5]
        )
    attempts = getattr(exc, "failed_attempts", None)
    if isinstance(exc, InstructorError) and attempts:
        return _output_summary(attempts[-1].exception)
    first_line = (str(exc).strip().splitlines() or [""])[0]
    return f"{type(exc).__name__}: {first_line[:300]}"


def openai_fault(exc: BaseException, *, attempts: int | None = None) -> VerifierFault | None:
    """The VerifierFault an exception from the openai/instructor stack stands for, if any."""
    for current in _chain(exc):
        if isinstance(current, VerifierFault):
            return current
        if isinstance(current, TransportFailed):
            return JudgeUnavailable(str(current))
        if isinstance(current, openai.APITimeoutError):
            return JudgeUnavailable("judge request timed out")
        if isinstance(current, openai.APIConnectionError):
            return JudgeUnavailable(f"cannot reach the judge: {current}")
        if isinstance(current, openai.APIStatusError):
            return JudgeUnavailable(
                f"judge answered HTTP {current.status_code}: {_status_detail(current)}"
            )
        if isinstance(current, IncompleteOutputException):
            return JudgeOutputInvalid("judge output was truncated (finish_reason=length)")
    tried = f" after {attempts} attempt(s)" if attempts else ""
    for current in _chain(exc):
        if isinstance(current, ValidationError | json.JSONDecodeError):
            return JudgeOutputInvalid(f"judge output invalid{tried}: {_output_summary(current)}")
    for current in _chain(exc):
        if isinstance(current, InstructorError):
            return JudgeOutputInvalid(f"judge output invalid{tried}: {_output_summary(current)}")
    return None


def _status_detail(error: openai.APIStatusError) -> str:
    body = error.body
    if isinstance(body, dict):
        message = body.get("message") or body.get("error") or body
        return str(message)[:200]
    return str(body or error.message)[:200]


def build_http_judge(
    settings: Settings,
    *,
    base_url: str | None = None,
    model: str | None = None,
    http_client: httpx.AsyncClient | None = None,
    cache: VerdictCache | None = None,
    variant: VerdictVariant | None = None,
) -> HttpJudge:
    """The HTTP judge for ``base_url`` (default ``settings.base_url``).

    ``model`` defaults to ``settings.model``, else the one model the server lists. Without
    ``http_client`` one is built with explicit timeouts and :class:`FailFastTransport` (and is
    closed by :meth:`HttpJudge.aclose`); a given client is used as it is and left open.
    ``cache=None`` disables caching (see :meth:`VerdictCache.from_settings`). ``variant`` picks
    the verdict field order (``label_first`` by default, or ``settings.verdict_variant``).
    """
    url = base_url or settings.base_url
    if not url:
        raise ConfigError("no judge endpoint: give base_url or set JUDGE_BASE_URL")
    chosen = variant or getattr(settings, "verdict_variant", None) or DEFAULT_VARIANT
    if chosen not in VARIANTS:
        raise ConfigError(f"unknown verdict variant {chosen!r}; use one of {', '.join(VARIANTS)}")
    if http_client is not None and "," in url:
        raise ConfigError("a pool of judge endpoints needs the judge's own HTTP client")
    owns_client = http_client is None
    # The pool exists from the start (metrics report it); the HTTP and openai clients are
    # built on the first call that reaches a server.
    pool = endpoint_pool(url) if http_client is None else None

    def make_openai() -> openai.AsyncOpenAI:
        if pool is not None:
            return openai_client(settings, POOL_ROOT, pool_http_client(settings, pool))
        assert http_client is not None
        return openai_client(settings, api_base(url), http_client)

    shared = _Shared(
        settings=settings,
        make_openai=make_openai,
        cache=cache,
        variant=cast(VerdictVariant, chosen),
        model=model or settings.model,
        owns_client=owns_client,
        pool=pool,
    )
    return HttpJudge(shared, nonce=new_nonce(), ledger_hash=None, root=True)
