"""Open the judge a request is verified with: the configured endpoint, or the embedded one.

With no ``JUDGE_BASE_URL`` the embedded local judge server is started (or reused) first.
A server that cannot be started raises ``LocalServerError``, which fails the request closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator

from judge.config import Settings
from judge.errors import CacheFault
from judge.judges.cache import VerdictCache
from judge.judges.http import HttpJudge, build_http_judge


def _progress(message: str) -> None:
    print(f"judge: {message}", file=sys.stderr, flush=True)


async def resolve_endpoint(settings: Settings) -> tuple[str, str | None]:
    """The base URL and model id to use, starting the embedded server when none is configured."""
    if settings.base_url:
        return settings.base_url, settings.model
    from judge.local_models.server import ensure_server

    info = await asyncio.to_thread(ensure_server, settings, _progress)
    return info.base_url, settings.model or info.model_id


@contextlib.asynccontextmanager
async def open_judge(settings: Settings) -> AsyncIterator[HttpJudge]:
    base_url, model = await resolve_endpoint(settings)
    try:
        cache = VerdictCache.from_settings(settings)
    except OSError as exc:
        raise CacheFault(f"cannot open the verdict cache at {settings.cache_dir}: {exc}") from exc
    judge = build_http_judge(settings, base_url=base_url, model=model, cache=cache)
    try:
        yield judge
    finally:
        await judge.aclose()
        if cache is not None:
            cache.close()
