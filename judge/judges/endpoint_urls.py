"""The judge endpoint setting read as API roots, and the timeouts and pool transport every
client over it shares. No openai here: the served-model lookup uses these without loading it.
The setting itself is checked by :func:`judge.settings_check.normalise_base_urls`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx

from judge.judges.pool import EndpointPool, PoolTransport

if TYPE_CHECKING:
    from judge.config import Settings


def api_base(url: str) -> str:
    """The OpenAI API root: a bare ``http://host:port`` gets ``/v1``; any other path is kept."""
    parsed = httpx.URL(url)
    if parsed.path in ("", "/"):
        return str(parsed.copy_with(path="/v1"))
    return url.rstrip("/")


def endpoint_pool(url: str) -> EndpointPool:
    """The endpoints of ``url``: one base URL or a comma-separated pool of them."""
    return EndpointPool([api_base(part.strip()) for part in url.split(",") if part.strip()])


def http_timeout(settings: Settings) -> httpx.Timeout:
    """The configured timeouts: ``timeout_s`` per request, ``connect_timeout_s`` to connect."""
    return httpx.Timeout(settings.timeout_s, connect=settings.connect_timeout_s)


def pool_transport(settings: Settings, pool: EndpointPool) -> PoolTransport:
    """The transport that balances requests over ``pool``, ejects and fails over."""
    return PoolTransport(pool, probe_timeout_s=settings.connect_timeout_s)
