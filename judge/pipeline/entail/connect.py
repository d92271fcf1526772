"""Open the judge a request is verified with: the configured endpoint, or the embedded one.

With no ``JUDGE_BASE_URL`` the embedded local judge server is started (or reused) first.
A server that cannot be started raises ``LocalServerError``, which fails the request closed.
Every caller (pipeline, service, eval, answer loop) opens its judge here.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from judge.config import Settings
from judge.errors import CacheFault, VerifierFault, fault_text
from judge.judges.wrappers import UnavailableJudge
from judge.protocols import Judge

if TYPE_CHECKING:
    from judge.pipeline.entail.llm_judge import HttpJudge


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
    # Imported here: the HTTP stack (openai, instructor) loads only when a judge is opened.
    from judge.judges.cache import VerdictCache
    from judge.local_models.server import holding_embedded
    from judge.pipeline.entail.llm_judge import build_http_judge

    # Held open for as long as this judge is: the embedded server does not stop for being idle
    # under a verifier that is open but quiet.
    with holding_embedded(settings):
        base_url, model = await resolve_endpoint(settings)
        try:
            cache = VerdictCache.from_settings(settings)
        except OSError as exc:
            raise CacheFault(
                f"cannot open the verdict cache at {settings.cache_dir}: {exc}"
            ) from exc
        judge = build_http_judge(settings, base_url=base_url, model=model, cache=cache)
        try:
            yield judge
        finally:
            await judge.aclose()
            if cache is not None:
                cache.close()


@contextlib.asynccontextmanager
async def open_judge_or_unavailable(settings: Settings) -> AsyncIterator[Judge]:
    """The configured judge or, when it cannot be opened, a stand-in whose every call fails
    closed with the reason: the caller stays up and blocks what it cannot verify."""
    async with contextlib.AsyncExitStack() as stack:
        judge: Judge
        try:
            judge = await stack.enter_async_context(open_judge(settings))
        except VerifierFault as exc:
            judge = UnavailableJudge(fault_text(exc))
        yield judge


@contextlib.asynccontextmanager
async def judge_for_run(
    settings: Settings,
    given: Judge | None = None,
    *,
    use_judge: bool = True,
    stand_in: bool = True,
) -> AsyncIterator[Judge | None]:
    """The judge of one run: none when ``use_judge`` is off, ``given`` as is (not closed), else
    the configured one opened for the run. When it cannot be opened: a stand-in that fails
    every call closed (``stand_in``), or the fault raised, for runs that should stop at once."""
    if not use_judge:
        yield None
        return
    if given is not None:
        yield given
        return
    if stand_in:
        async with open_judge_or_unavailable(settings) as judge:
            yield judge
        return
    async with open_judge(settings) as opened:
        yield opened
