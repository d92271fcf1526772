"""The served-model lookup over plain HTTP: every failure is JudgeUnavailable, never a guess."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from judge.errors import JudgeUnavailable
from judge.judges.served import served_models

ROOT = "http://judge.test/v1"


def _client(answer: Callable[[httpx.Request], httpx.Response]) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.MockTransport(answer))


async def test_lists_the_ids_and_sends_the_key() -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"object": "list", "data": [{"id": "m1"}, {"id": "m2"}]})

    async with _client(answer) as client:
        assert await served_models(client, ROOT, "secret") == ["m1", "m2"]
    assert str(seen[0].url) == f"{ROOT}/models"
    assert seen[0].headers["Authorization"] == "Bearer secret"


@pytest.mark.parametrize(
    ("response", "reason"),
    [
        (httpx.Response(500, text="boom"), "HTTP 500"),
        (httpx.Response(401, json={"error": "bad key"}), "HTTP 401"),
        (httpx.Response(200, text="not json"), "does not parse"),
        (httpx.Response(200, json={"data": "m1"}), "does not parse"),
        (httpx.Response(200, json={"data": [{"name": "m1"}]}), "does not parse"),
        (httpx.Response(200, json=[{"id": "m1"}]), "does not parse"),
    ],
)
async def test_an_error_or_a_list_that_does_not_parse_is_unavailable(
    response: httpx.Response, reason: str
) -> None:
    async with _client(lambda _request: response) as client:
        with pytest.raises(JudgeUnavailable, match=reason):
            await served_models(client, ROOT, "k")


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (httpx.ReadTimeout("slow"), "timed out"),
        (httpx.ConnectError("refused"), "cannot connect"),
    ],
)
async def test_a_transport_failure_is_unavailable(error: Exception, reason: str) -> None:
    def answer(_request: httpx.Request) -> httpx.Response:
        raise error

    async with _client(answer) as client:
        with pytest.raises(JudgeUnavailable, match=reason):
            await served_models(client, ROOT, "k")


async def test_a_bug_is_raised_as_it_is() -> None:
    def answer(_request: httpx.Request) -> httpx.Response:
        raise RuntimeError("a bug")

    async with _client(answer) as client:
        with pytest.raises(RuntimeError, match="a bug"):
            await served_models(client, ROOT, "k")
