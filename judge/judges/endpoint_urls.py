"""Parse the judge endpoint setting (one base URL, a comma-separated list, or a list), read it
as API roots, and the timeouts and pool transport every client over it shares. No openai here:
the served-model lookup uses these without loading it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx

from judge.judges.pool import EndpointPool, PoolTransport

if TYPE_CHECKING:
    from judge.config import Settings


def normalise_base_urls(value: Any) -> str | None:
    """The endpoints as one comma-joined string, each checked to be an http(s) URL with a host.

    Raises ``ValueError`` (reported by the settings as naming ``base_url``) for a bad entry.
    """
    if value is None:
        return None
    if isinstance(value, str):
        parts = value.split(",")
    elif isinstance(value, list | tuple):
        parts = []
        for item in value:
            if not isinstance(item, str):
                raise ValueError(f"each base URL must be a string, not {type(item).__name__}")
            parts.extend(item.split(","))
    else:
        raise ValueError("give a URL, a comma-separated list of URLs, or a list of URLs")
    urls = [part.strip() for part in parts if part.strip()]
    if not urls:
        if isinstance(value, str):
            return None  # an empty JUDGE_BASE_URL means none: the embedded judge
        raise ValueError("the list of base URLs is empty")
    for url in urls:
        _check_url(url)
    duplicates = sorted({u for u in urls if urls.count(u) > 1})
    if duplicates:
        raise ValueError(f"base URL {duplicates[0]!r} is listed twice")
    return ",".join(urls)


def _check_url(url: str) -> None:
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise ValueError(f"{url!r} is not a URL: {exc}") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise ValueError(f"{url!r} is not an http(s) URL with a host")


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
