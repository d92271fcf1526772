"""Checks before a request reaches a handler: credentials only in the Authorization header,
the bearer token, body size (before any parsing) and how long the body may take to arrive."""

from __future__ import annotations

import asyncio
import hmac
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qsl

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

OPEN_PATHS = frozenset({"/healthz", "/readyz"})  # probes answer without a token
# Query parameters that carry credentials. URLs end up in access logs, proxies and browser
# history, so such a request is refused even when the header is right.
CREDENTIAL_PARAMS = frozenset(
    {"token", "access_token", "api_key", "apikey", "key", "auth", "bearer", "password"}
)
BODY_TIMEOUT_S = 10.0


class RequestGuard:
    """ASGI middleware: refuses a credential in the query string with 400, a body over
    ``max_body_bytes`` with 413, a body that has not arrived within ``body_timeout_s`` with
    408 (and closes the connection) and, when a token is set, any request to a path outside
    :data:`OPEN_PATHS` without it with 401.

    The body is read here, up to the limit, and handed on intact; a declared Content-Length
    over the limit is refused without reading anything.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_body_bytes: int,
        token: str | None,
        on_reject: Callable[[str], None] = lambda reason: None,
        body_timeout_s: float = BODY_TIMEOUT_S,
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.body_timeout_s = body_timeout_s
        self._token = token.encode("utf-8") if token else None
        self._on_reject = on_reject

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v for k, v in scope.get("headers", [])}
        if credential_in_query(scope.get("query_string", b"")):
            self._on_reject("credential_in_query")
            detail = "credentials go in the Authorization header, never in the URL"
            await _reply(send, 400, detail)
            return
        if (
            self._token is not None
            and scope.get("path") not in OPEN_PATHS
            and not token_matches(headers.get("authorization"), self._token)
        ):
            self._on_reject("unauthorized")
            await _reply(send, 401, "missing or wrong bearer token", {"www-authenticate": "Bearer"})
            return
        declared = headers.get("content-length")
        if declared is not None:
            try:
                size = int(declared)
            except ValueError:
                await _reply(send, 400, "malformed Content-Length header")
                return
            if size > self.max_body_bytes:
                await self._too_large(send)
                return
        body = bytearray()
        more = True
        try:
            async with asyncio.timeout(self.body_timeout_s):
                while more:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return
                    body.extend(message.get("body", b""))
                    more = bool(message.get("more_body", False))
                    if len(body) > self.max_body_bytes:
                        await self._too_large(send)
                        return
        except TimeoutError:
            self._on_reject("body_timeout")
            detail = f"request body not received within {self.body_timeout_s:g} s"
            await _reply(send, 408, detail, {"connection": "close"})
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()  # after the body: wait for the client's disconnect

        await self.app(scope, replay, send)

    async def _too_large(self, send: Send) -> None:
        self._on_reject("too_large")
        await _reply(send, 413, f"request body over the limit of {self.max_body_bytes} bytes")


def credential_in_query(query_string: bytes) -> bool:
    try:
        pairs = parse_qsl(query_string.decode("latin-1"), keep_blank_values=True)
    except ValueError:
        return False
    return any(name.lower() in CREDENTIAL_PARAMS for name, _ in pairs)


def token_matches(header: bytes | None, token: bytes) -> bool:
    """Constant-time check of an ``Authorization: Bearer <token>`` header."""
    if header is None:
        return False
    scheme, _, given = header.partition(b" ")
    if scheme.lower() != b"bearer":
        return False
    return hmac.compare_digest(given.strip(), token)


async def _reply(
    send: Send, status: int, detail: str, extra_headers: dict[str, str] | None = None
) -> None:
    body = json.dumps({"detail": detail}).encode("utf-8")
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode("ascii")),
    ]
    headers += [
        (k.encode("latin-1"), v.encode("latin-1")) for k, v in (extra_headers or {}).items()
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
