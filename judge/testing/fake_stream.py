"""A scripted streaming generator: an OpenAI-compatible chat endpoint on loopback that sends
its replies as server-sent events, a piece at a time, and tells whether its reader hung up.

Each reply is a :class:`StreamReply`: the pieces to send (``tokens(text)`` cuts a text the
way a model's tokens come), optionally a gate to wait on before a given piece, a fault after
some pieces (the connection dropped, an ``error`` event, a stall that sends only keep-alive
comments or empty deltas, a malformed chunk), or an HTTP error before any. A request without
``stream: true`` gets the whole text as one completion.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from judge.testing.replies import chat_completion


def tokens(text: str) -> list[str]:
    """``text`` in pieces the size of a model's tokens: each word with the blank before it."""
    return re.findall(r"\s*\S+", text) or [text]


@dataclass
class StreamReply:
    pieces: list[str]
    fault_after: int | None = None  # pieces sent before the fault
    fault: Literal[
        "drop", "error_event", "keep_alive", "empty_deltas", "bad_json", "not_a_string"
    ] = "drop"
    message: str = "generator overloaded"  # of an error event or an HTTP error
    status: int = 200  # anything else: an HTTP error before any piece
    gate_before: int | None = None  # wait for ``gate`` before sending this piece
    gate: threading.Event = field(default_factory=threading.Event)
    pause_s: float = 0.0  # between pieces
    finish_reason: str = "stop"
    # Filled in as it is served.
    sent: int = 0
    hung_up: threading.Event = field(default_factory=threading.Event)  # the reader went away
    done: threading.Event = field(default_factory=threading.Event)  # served, whichever way

    @classmethod
    def of(cls, text: str, **options: Any) -> StreamReply:
        return cls(tokens(text), **options)


class StreamingGenerator:
    """Serves the scripted replies in order; records every request."""

    def __init__(self, *replies: StreamReply) -> None:
        self.replies = list(replies)
        self.served: list[StreamReply] = []
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def next_reply(self, request: dict[str, Any]) -> StreamReply:
        with self._lock:
            self.requests.append(request)
            reply = self.replies.pop(0)
            self.served.append(reply)
            return reply


def _chunk(content: str | None, finish: str | None = None, usage: bool = False) -> bytes:
    body: dict[str, Any] = {
        "id": "chatcmpl-fake-stream",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "generator-model",
        "choices": [
            {
                "index": 0,
                "delta": {"content": content} if content is not None else {},
                "finish_reason": finish,
            }
        ],
    }
    if usage:
        body["choices"] = []
        body["usage"] = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    return f"data: {json.dumps(body)}\n\n".encode()


@contextlib.contextmanager
def serve_streaming_generator(generator: StreamingGenerator) -> Iterator[str]:
    """Serve ``generator`` on 127.0.0.1; yields the base URL (``http://127.0.0.1:PORT/v1``)."""

    class _Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def do_GET(self) -> None:
            payload = json.dumps({"object": "list", "data": [{"id": "gen"}]}).encode()
            self._send_json(200, payload)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            request = json.loads(self.rfile.read(length) or b"{}")
            reply = generator.next_reply(request)
            try:
                self._serve(request, reply)
            finally:
                reply.done.set()

        def _serve(self, request: dict[str, Any], reply: StreamReply) -> None:
            if reply.status != 200:
                error = {"error": {"message": reply.message, "type": "server_error"}}
                self._send_json(reply.status, json.dumps(error).encode())
                return
            if not request.get("stream"):
                body = chat_completion("".join(reply.pieces), model="generator-model")
                self._send_json(200, json.dumps(body).encode())
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            try:
                for index, piece in enumerate(reply.pieces):
                    if reply.fault_after is not None and index == reply.fault_after:
                        self._fault(reply)
                        return
                    if reply.gate_before == index:
                        while not reply.gate.wait(0.05):
                            self._write(b": waiting\n\n")  # a comment: finds a hung-up reader
                    if reply.pause_s:
                        threading.Event().wait(reply.pause_s)
                    self._write(_chunk(piece))
                    reply.sent = index + 1
                if reply.fault_after is not None and reply.fault_after >= len(reply.pieces):
                    self._fault(reply)
                    return
                self._write(_chunk(None, reply.finish_reason))
                self._write(_chunk(None, usage=True))
                self._write(b"data: [DONE]\n\n")
            except OSError:
                reply.hung_up.set()

        def _fault(self, reply: StreamReply) -> None:
            """The fault in place of the next piece; "drop" closes the connection."""
            if reply.fault == "error_event":
                error = {"error": {"message": reply.message, "type": "x"}}
                self._write(f"data: {json.dumps(error)}\n\n".encode())
            elif reply.fault == "bad_json":
                self._write(b'data: {"choices": [{"delta": {"content": "The kettle\n\n')
            elif reply.fault == "not_a_string":
                self._write(_chunk(42))  # type: ignore[arg-type]
            elif reply.fault in ("keep_alive", "empty_deltas"):
                beat = b": keep-alive\n\n" if reply.fault == "keep_alive" else _chunk("")
                while not reply.gate.wait(0.05):  # until the reader hangs up (or the test ends)
                    self._write(beat)

        def _write(self, data: bytes) -> None:
            self.wfile.write(data)
            self.wfile.flush()

        def _send_json(self, status: int, payload: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    class _Server(http.server.ThreadingHTTPServer):
        def handle_error(self, request: Any, client_address: Any) -> None:
            pass

    server = _Server(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              name="fake-stream-generator", daemon=True)  # fmt: skip
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        for reply in generator.served:
            reply.gate.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
