"""The model client: one OpenAI-compatible endpoint (or a pool of them, :mod:`judge.judges.pool`)
that completes a rendered prompt into a validated response model. Transport only: what is asked
is built by the stages (:mod:`judge.pipeline.entail.llm_judge`).

Only a call that reaches the server loads the HTTP stack (:mod:`judge.judges.transport`,
:mod:`judge.judges.completion`): a request the verdict cache answers in full never imports
openai or instructor. Whatever goes wrong becomes a :class:`~judge.errors.VerifierFault`
(:mod:`judge.judges.faults`): ``JudgeUnavailable`` for the transport and HTTP errors,
``JudgeOutputInvalid`` for truncated or invalid output once the re-asks are spent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import httpx
from pydantic import BaseModel

from judge.config import Settings
from judge.errors import ConfigError, JudgeUnavailable
from judge.judges.cache import VerdictCache
from judge.judges.endpoint_urls import api_base, endpoint_pool, http_timeout, pool_transport
from judge.judges.pool import POOL_ROOT, EndpointPool
from judge.judges.served import served_models
from judge.prompts.rendering import RenderedPrompt

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
class ModelClient:
    """The clients, verdict cache and model id that every view of one judge shares. Safe to
    call concurrently."""

    settings: Settings
    make_openai: Callable[[], openai.AsyncOpenAI]
    cache: VerdictCache | None
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

    async def ping(self) -> list[str]:
        """The ids of the models the server serves (GET /v1/models), for readiness checks.

        Raises ``JudgeUnavailable`` when the server cannot be reached or answers an error.
        Asked once, without retries, over plain HTTP (:mod:`judge.judges.served`).
        """
        return await served_models(self.lookup, self.lookup_root, self.settings.api_key)

    async def resolve_model(self) -> str:
        """The configured model id, or the one model the server lists (asked once)."""
        if self.model:
            return self.model
        async with self.model_lookup:
            if self.model:
                return self.model
            served = await self.ping()
            if not served:
                raise JudgeUnavailable("the judge server lists no model")
            if len(served) > 1:
                raise ConfigError(
                    f"the judge server lists {len(served)} models ({', '.join(served[:5])}); "
                    "set JUDGE_MODEL to choose one"
                )
            self.model = served[0]
            return served[0]

    def decoding(self, *, logprobs: bool, top_logprobs: int) -> dict[str, Any]:
        """The sampling parameters of every call: the configured temperature and token cap."""
        return {
            "temperature": self.settings.temperature,
            "max_tokens": self.settings.max_tokens,
            "logprobs": logprobs,
            "top_logprobs": top_logprobs if logprobs else None,
        }

    async def complete(
        self,
        prompt: RenderedPrompt,
        response_model: type[M],
        model: str,
        decoding: dict[str, Any],
        usage: JudgeUsage,
    ) -> Completed[M]:
        """One validated completion (re-asked up to ``settings.reasks`` times); every attempt,
        failed ones included, is counted in ``usage``."""
        from judge.judges.completion import Attempts, complete

        attempts = Attempts()
        try:
            done = await complete(
                self.instructor,
                prompt,
                response_model,
                model,
                decoding,
                reasks=self.settings.reasks,
                attempts=attempts,
            )
        finally:
            usage.calls += attempts.count
        usage.prompt_tokens += done.prompt_tokens
        usage.completion_tokens += done.completion_tokens
        return done

    async def close(self) -> None:
        if self._openai is not None:
            await self._openai.close()
        if self._lookup is not None:
            await self._lookup.aclose()


def build_model_client(
    settings: Settings,
    *,
    base_url: str | None = None,
    model: str | None = None,
    http_client: httpx.AsyncClient | None = None,
    cache: VerdictCache | None = None,
) -> ModelClient:
    """The client for ``base_url`` (default ``settings.base_url``).

    ``model`` defaults to ``settings.model``, else the one model the server lists. Without
    ``http_client`` one is built with explicit timeouts and the fail-fast pool transport (and is
    closed by :meth:`ModelClient.close`); a given client is used as it is and left open.
    """
    url = base_url or settings.base_url
    if not url:
        raise ConfigError("no judge endpoint: give base_url or set JUDGE_BASE_URL")
    if http_client is not None and "," in url:
        raise ConfigError("a pool of judge endpoints needs the judge's own HTTP client")
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

    return ModelClient(
        settings=settings,
        make_openai=make_openai,
        cache=cache,
        model=model or settings.model,
        owns_client=http_client is None,
        make_lookup=make_lookup,
        lookup_root=POOL_ROOT if pool is not None else api_base(url),
        pool=pool,
    )
