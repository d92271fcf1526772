"""One check before a command that needs the judge: is the endpoint there?

Without it an unreachable endpoint shows as one ``verifier_error`` per claim, each with the
same hint, and no single line that names the endpoint. A fault during the run (a timeout, a
malformed verdict, the server dying) is still the pipeline's: it fails closed as
``verifier_error`` and exit 4.
"""

from __future__ import annotations

import asyncio

import httpx

from judge.config import Settings
from judge.errors import ConfigError, LocalServerError
from judge.extras import install_command
from judge.judges.endpoint_urls import http_timeout

_SET_URL = "or point --base-url (JUDGE_BASE_URL) at a running OpenAI-compatible server"


async def resolve_reachable(settings: Settings) -> Settings:
    """``settings`` pinned to the judge's endpoint and model once it answers, starting the
    embedded judge when none is set: the command opens its judge on these, so the endpoint is
    resolved once. A ``ConfigError`` naming the endpoint and what to do when it does not."""
    from judge.pipeline.entail.connect import resolve_endpoint

    try:
        base_url, model = await resolve_endpoint(settings)
    except LocalServerError as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ConfigError(
            f"the embedded judge did not start: {first}. Install it with "
            f"{install_command('local')} (about 1.1 GB of weights), {_SET_URL}"
        ) from exc
    urls = [u.strip() for u in base_url.split(",") if u.strip()]
    problems = await asyncio.gather(*(_probe(url, settings) for url in urls))
    if all(problems):
        where = "; ".join(f"{url} ({p})" for url, p in zip(urls, problems, strict=True))
        hint = (
            "start it (`judge local up` for the embedded judge), or unset JUDGE_BASE_URL to use "
            "the embedded judge"
            if settings.base_url
            else _SET_URL
        )
        raise ConfigError(f"cannot reach the judge at {where}: {hint}")
    return settings.model_copy(update={"base_url": base_url, "model": model})


async def _probe(base_url: str, settings: Settings) -> str | None:
    """Why ``base_url`` cannot serve a request, or ``None`` when it answers. A slow answer counts
    as reachable: a busy server is the run's business, not a configuration error."""
    timeout = http_timeout(settings)
    headers = {"Authorization": f"Bearer {settings.api_key}"}
    try:
        async with httpx.AsyncClient(timeout=timeout) as client:
            response = await client.get(f"{base_url.rstrip('/')}/models", headers=headers)
    except httpx.ReadTimeout:
        return None
    except httpx.InvalidURL as exc:
        return f"not a valid URL: {exc}"
    except httpx.TransportError as exc:
        return _describe(exc)
    if response.status_code in (401, 403):
        return f"HTTP {response.status_code}: check --api-key (JUDGE_API_KEY)"
    return None


def _describe(exc: httpx.TransportError) -> str:
    if isinstance(exc, httpx.ConnectTimeout):
        return "connection timed out"
    if isinstance(exc, httpx.ConnectError):
        return f"connection failed: {exc}" if str(exc) else "connection refused"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
