"""The HTTP judge over any OpenAI-compatible endpoint (or a pool of them, :mod:`judge.judges.pool`).

Any OpenAI-compatible chat-completions server works (vLLM in production, llama.cpp's server
embedded). Every verdict and text call is looked up in the verdict cache first; only a miss
loads the HTTP stack (:mod:`judge.judges.transport`, :mod:`judge.judges.completion`), so a
request the cache answers in full never imports openai or instructor.

Whatever goes wrong becomes a :class:`~judge.errors.VerifierFault` (:mod:`judge.judges.faults`):
``JudgeUnavailable`` for the transport and HTTP errors, ``JudgeOutputInvalid`` for truncated or
invalid output once the re-asks are spent. No default label is ever returned.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar, cast

import httpx
from pydantic import BaseModel

from judge.config import Settings
from judge.errors import ConfigError, JudgeUnavailable
from judge.judges.cache import VerdictCache, call_key, verdict_key
from judge.judges.endpoint_urls import api_base, endpoint_pool, http_timeout, pool_transport
from judge.judges.pool import POOL_ROOT, EndpointPool
from judge.judges.served import served_models
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

if TYPE_CHECKING:
    import instructor
    import openai

    from judge.judges.completion import Completed

M = TypeVar("M", bound=BaseModel)


@dataclass
class JudgeUsage:
    """Model calls and tokens spent through one judge (or one request's view of it)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class _Shared:
    settings: Settings
    make_openai: Callable[[], openai.AsyncOpenAI]
    cache: VerdictCache | None
    variant: VerdictVariant
    model: str | None
    owns_client: bool
    # The plain HTTP client that lists the served models, and the API root it asks.
    make_lookup: Callable[[], httpx.AsyncClient]
    lookup_root: str
    pool: EndpointPool | None = None
    # Built on the first call that goes to the server: a request served wholly from the cache
    # pays neither for the clients (an SSL context, openai's resource modules) nor for
    # instructor's wrapping of them.
    _openai: openai.AsyncOpenAI | None = None
    _instructor: instructor.AsyncInstructor | None = None
    _lookup: httpx.AsyncClient | None = None
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
            from judge.judges.completion import structured_client

            self._instructor = structured_client(self.openai)
        return self._instructor

    @property
    def lookup(self) -> httpx.AsyncClient:
        if self._lookup is None:
            self._lookup = self.make_lookup()
        return self._lookup

    async def close(self) -> None:
        if self._openai is not None:
            await self._openai.close()
        if self._lookup is not None:
            await self._lookup.aclose()


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
        Asked once, without retries, over plain HTTP (:mod:`judge.judges.served`).
        """
        shared = self._shared
        return await served_models(shared.lookup, shared.lookup_root, shared.settings.api_key)

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
    ) -> Completed[M]:
        from judge.judges.completion import Attempts, complete

        attempts = Attempts()
        try:
            done = await complete(
                self._shared.instructor,
                prompt,
                response_model,
                model,
                decoding,
                reasks=self._shared.settings.reasks,
                attempts=attempts,
            )
        finally:
            self.usage.calls += attempts.count
        self.usage.prompt_tokens += done.prompt_tokens
        self.usage.completion_tokens += done.completion_tokens
        return done


def _facts(parsed: Facts) -> list[str]:
    return list(parsed.facts)


def _conclusion(parsed: Conclusion) -> list[str]:
    return [parsed.conclusion]


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
        from judge.judges.transport import given_openai_client, pool_openai_client

        if pool is not None:
            return pool_openai_client(settings, pool)
        assert http_client is not None
        return given_openai_client(settings, url, http_client)

    def make_lookup() -> httpx.AsyncClient:
        if pool is None:
            assert http_client is not None
            return http_client  # the caller's, closed by the caller
        # The pool transport without the fail-fast wrapper, which raises openai's errors.
        return httpx.AsyncClient(
            transport=pool_transport(settings, pool), timeout=http_timeout(settings)
        )

    shared = _Shared(
        settings=settings,
        make_openai=make_openai,
        cache=cache,
        variant=cast(VerdictVariant, chosen),
        model=model or settings.model,
        owns_client=owns_client,
        make_lookup=make_lookup,
        lookup_root=POOL_ROOT if pool is not None else api_base(url),
        pool=pool,
    )
    return HttpJudge(shared, nonce=new_nonce(), ledger_hash=None, root=True)
