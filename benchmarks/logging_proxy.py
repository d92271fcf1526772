"""A counting proxy in front of an OpenAI-compatible server, for side-by-side benchmarks.

Every request to ``http://127.0.0.1:PORT/<tag>/v1/...`` is forwarded to ``UPSTREAM/...`` and
counted under ``<tag>``: calls, prompt and completion tokens (from the response's ``usage``),
HTTP errors and upstream seconds. Systems measured through it are counted the same way,
whatever their own counters report. Non-streaming requests only (streamed responses are
forwarded whole but their tokens are not counted).

    python benchmarks/logging_proxy.py --upstream http://127.0.0.1:8080/v1 --log calls.jsonl
"""

from __future__ import annotations

import argparse
import contextlib
import http.server
import json
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx

HOP_HEADERS = frozenset(
    {"host", "content-length", "transfer-encoding", "connection", "keep-alive", "accept-encoding"}
)


@dataclass
class Usage:
    calls: int = 0  # chat or text completions
    other_requests: int = 0  # model listing and the like
    prompt_tokens: int = 0
    # Prompt tokens the server computed (llama.cpp's ``timings.prompt_n``): the rest came from
    # its prefix cache. Equal to prompt_tokens for servers that do not report it.
    prefill_tokens: int = 0
    completion_tokens: int = 0
    errors: int = 0  # HTTP status >= 400 or no answer from upstream
    truncated: int = 0  # finish_reason "length": the output hit max_tokens
    seconds: float = 0.0  # upstream time, summed over calls


class LoggingProxy:
    """Start with :meth:`start` (or as a context manager); ``base_url(tag)`` is what a client
    is given instead of the upstream URL."""

    def __init__(
        self, upstream: str, *, port: int = 0, log_path: Path | None = None, timeout_s: float = 600
    ) -> None:
        self.upstream = upstream.rstrip("/")
        self._usage: dict[str, Usage] = {}
        self._lock = threading.Lock()
        self._log = log_path.open("a", encoding="utf-8") if log_path else None
        self._client = httpx.Client(timeout=httpx.Timeout(timeout_s, connect=10.0))
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", port), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def base_url(self, tag: str) -> str:
        return f"http://127.0.0.1:{self.port}/{tag}/v1"

    def usage(self, tag: str) -> Usage:
        with self._lock:
            return Usage(**asdict(self._usage.get(tag, Usage())))

    def start(self) -> LoggingProxy:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._client.close()
        if self._log:
            self._log.close()

    def __enter__(self) -> LoggingProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def forward(
        self, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        tag, _, rest = path.lstrip("/").partition("/")
        rest = rest.removeprefix("v1").lstrip("/")
        sent = {k: v for k, v in headers.items() if k.lower() not in HOP_HEADERS}
        started = time.perf_counter()
        try:
            response = self._client.request(
                method, f"{self.upstream}/{rest}", headers=sent, content=body
            )
            status, payload = response.status_code, response.content
            kept = {k: v for k, v in response.headers.items() if k.lower() not in HOP_HEADERS}
        except httpx.HTTPError as exc:
            status, kept = 502, {"content-type": "application/json"}
            payload = json.dumps({"error": {"message": f"proxy: {type(exc).__name__}"}}).encode()
        self._count(tag, rest, status, payload, time.perf_counter() - started)
        return status, kept, payload

    def _count(self, tag: str, path: str, status: int, payload: bytes, seconds: float) -> None:
        completion = path.endswith("completions")
        prompt = produced = computed = 0
        finish = None
        if completion and status < 400:
            try:
                data: Any = json.loads(payload)
                usage = data.get("usage") or {}
                prompt = int(usage.get("prompt_tokens") or 0)
                produced = int(usage.get("completion_tokens") or 0)
                computed = int((data.get("timings") or {}).get("prompt_n", prompt))
                finish = (data.get("choices") or [{}])[0].get("finish_reason")
            except (ValueError, AttributeError, IndexError, TypeError):
                pass  # a streamed or malformed body: the call still counts
        with self._lock:
            usage_row = self._usage.setdefault(tag, Usage())
            if completion:
                usage_row.calls += 1
                usage_row.prompt_tokens += prompt
                usage_row.prefill_tokens += computed
                usage_row.completion_tokens += produced
                usage_row.seconds += seconds
                usage_row.truncated += finish == "length"
            else:
                usage_row.other_requests += 1
            usage_row.errors += status >= 400
            if self._log:
                row = {
                    "tag": tag,
                    "path": path,
                    "status": status,
                    "prompt_tokens": prompt,
                    "prefill_tokens": computed,
                    "completion_tokens": produced,
                    "finish_reason": finish,
                    "seconds": round(seconds, 3),
                }
                self._log.write(json.dumps(row) + "\n")
                self._log.flush()

    def _handler_class(self) -> type[http.server.BaseHTTPRequestHandler]:
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                status, headers, payload = proxy.forward(
                    self.command, self.path, dict(self.headers.items()), body
                )
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = _serve
            do_POST = _serve

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upstream", required=True, help="e.g. http://127.0.0.1:8080/v1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log", type=Path, help="one JSON line per request")
    args = parser.parse_args()
    with LoggingProxy(args.upstream, port=args.port, log_path=args.log) as proxy:
        print(f"proxying {proxy.upstream} at {proxy.base_url('TAG')}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
