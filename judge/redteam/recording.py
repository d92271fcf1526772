"""Record what is sent to the judge, and check that data never changed the prompt's structure.

Every judge prompt is a system message and a user message; the user message holds fenced data
blocks ``<<<KIND-nonce>>>`` … ``<<<END-KIND-nonce>>>``, each opened and closed once, in turn,
all with one nonce. Text in the data that could open or close a fence or a chat turn must have
been neutralised before it was sent. The contradiction probe adds two turns that hold no data:
the verdict it follows and the probe's question, both exactly as the templates write them.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from functools import cache
from typing import Any

import httpx

from judge.pipeline.entail.verdict import CONTRADICTION_TEMPLATE, UNSUPPORTED_ANSWER
from judge.prompts.rendering import render_block

_MARKER = re.compile(r"<<<(END-)?([A-Z]+)-([0-9a-f]+)>>>")
_SYSTEM_NONCE = re.compile(r"<<<[A-Z]+-([0-9a-f]+)>>>")
_SPECIAL = ("<|", "|>")


class RecordingTransport(httpx.AsyncBaseTransport):
    """Passes requests to ``inner``, keeps the JSON body of every chat completion request and
    adds up the time spent waiting for answers. Past ``max_calls`` completions it refuses the
    rest, as a dead server would: the case has already failed, and a real judge's time is dear."""

    def __init__(self, inner: httpx.AsyncBaseTransport, max_calls: int | None = None) -> None:
        self._inner = inner
        self._max_calls = max_calls
        self.requests: list[dict[str, Any]] = []
        self.seconds = 0.0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and request.url.path.rstrip("/").endswith("/chat/completions"):
            try:
                body = json.loads(request.content)
            except ValueError:
                body = {"unparsed": True}
            self.requests.append(body if isinstance(body, dict) else {"unparsed": True})
            if self._max_calls is not None and len(self.requests) > self._max_calls:
                raise httpx.ConnectError(f"judge call budget of {self._max_calls} spent")
        started = time.perf_counter()
        try:
            # Without streaming, a server answers once the completion is done: the wait is here.
            return await self._inner.handle_async_request(request)
        finally:
            self.seconds += time.perf_counter() - started

    async def aclose(self) -> None:
        await self._inner.aclose()


def structure_problems(body: Mapping[str, Any]) -> list[str]:
    """What is wrong with one recorded judge request; empty when its structure is intact."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        return ["the request has no message list"]
    roles = [m.get("role") if isinstance(m, dict) else None for m in messages]
    if roles[:2] != ["system", "user"] or roles[2:] not in ([], ["assistant", "user"]):
        return [f"messages are {roles}, not one system and one user message"]
    if roles[2:] and [m.get("content") for m in messages[2:]] != list(_probe_turns()):
        return ["the turns after the user message are not the contradiction probe's"]
    system, user = (str(m.get("content", "")) for m in messages[:2])
    problems: list[str] = []
    markers = list(_MARKER.finditer(user))
    if not markers:
        return ["the user message has no fence markers"]
    # The template writes the first marker (data only ever comes inside a fence), so its nonce
    # is the request's; a system message that names a nonce must name the same one.
    nonce = markers[0].group(3)
    announced = set(_SYSTEM_NONCE.findall(system))
    if announced - {nonce}:
        problems.append("the system message names another fence nonce")
    if any(token in system for token in _SPECIAL):
        problems.append("special-token syntax ('<|' or '|>') in the system message")
    if user.count("<<<") != len(markers) or user.count(">>>") != len(markers):
        problems.append("fence-like text in the user message besides the fence markers")
    foreign = sorted({m.group(3) for m in markers} - {nonce})
    if foreign:
        problems.append(f"fence markers with a foreign nonce: {', '.join(foreign)}")
    problems.extend(_pairing(markers))
    if any(token in user for token in _SPECIAL):
        problems.append("special-token syntax ('<|' or '|>') in the user message")
    return problems


@cache
def _probe_turns() -> tuple[str, str]:
    """The two turns the contradiction probe appends, as the templates write them."""
    return UNSUPPORTED_ANSWER, render_block(CONTRADICTION_TEMPLATE, "followup")


def _pairing(markers: list[re.Match[str]]) -> list[str]:
    """Each kind opened once and closed once, blocks in turn and never nested."""
    problems: list[str] = []
    seen: set[str] = set()
    open_kind: str | None = None
    for marker in markers:
        closing, kind = marker.group(1) is not None, marker.group(2)
        if not closing:
            if open_kind is not None:
                problems.append(f"fence {kind} opened inside fence {open_kind}")
            if kind in seen:
                problems.append(f"fence {kind} opened twice")
            seen.add(kind)
            open_kind = kind
        elif kind != open_kind:
            problems.append(f"fence {kind} closed while {open_kind or 'no fence'} was open")
        else:
            open_kind = None
    if open_kind is not None:
        problems.append(f"fence {open_kind} never closed")
    return problems
