"""The HTTP and openai clients a judge or generator talks through.

Imported only when a call has to reach a server: a request the verdict cache answers in full
never loads openai (about a second of a fresh process's start).

Retries, each layer doing one job:

* the openai client's own ``max_retries`` is set to ``settings.http_retries`` and covers the
  answers it deems transient (408, 409, 429, 5xx). With the HTTP client built here a refused
  connection or a timeout is raised at once (:class:`FailFastTransport`): repeating it rarely
  helps and multiplies the wait;
* instructor re-asks (``settings.reasks`` times) only when the output does not validate
  (:mod:`judge.judges.completion`).
"""

from __future__ import annotations

from typing import Any, cast

import httpx
import openai

from judge.config import Settings
from judge.judges.endpoint_urls import api_base, endpoint_pool, http_timeout, pool_transport
from judge.judges.pool import POOL_ROOT, EndpointPool


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


def pool_http_client(settings: Settings, pool: EndpointPool) -> httpx.AsyncClient:
    """The HTTP client over ``pool``: requests go through a :class:`PoolTransport` that
    balances, ejects and fails over, under :class:`FailFastTransport`."""
    return default_http_client(settings, transport=pool_transport(settings, pool))


def pool_openai_client(settings: Settings, pool: EndpointPool) -> openai.AsyncOpenAI:
    """The openai client over ``pool``: it talks to :data:`POOL_ROOT`, the pool picks the real
    endpoint of each request."""
    return openai_client(settings, POOL_ROOT, pool_http_client(settings, pool))


def endpoint_client(settings: Settings, url: str) -> tuple[str, httpx.AsyncClient, EndpointPool]:
    """The API root to give an openai client, the HTTP client under it and its pool, for
    ``url`` (one base URL or a comma-separated pool of them)."""
    pool = endpoint_pool(url)
    return POOL_ROOT, pool_http_client(settings, pool), pool


def given_openai_client(
    settings: Settings, url: str, http_client: httpx.AsyncClient
) -> openai.AsyncOpenAI:
    """The openai client over a caller's own HTTP client, on one base URL."""
    return openai_client(settings, api_base(url), http_client)
