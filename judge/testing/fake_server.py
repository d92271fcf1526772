"""A scripted OpenAI-compatible judge server, behind the real HTTP stack.

:class:`FakeJudgeServer` answers ``POST /v1/chat/completions`` and ``GET /v1/models`` through an
``httpx.MockTransport`` (in process) or :func:`run_fake_openai_server` (a real loopback server,
for a CLI in a subprocess or a service). Every chat request is recorded as parsed JSON.

A script is either a callable ``(request_json) -> spec`` or a sequence of specs used in order.
A spec is a response body (``dict``, answered with HTTP 200), an ``httpx.Response`` or an
exception to raise (``httpx.ReadTimeout``, ``httpx.ConnectError``); :mod:`judge.testing.replies`
builds them. :func:`rule_based_judge` is the default script: it answers as
:class:`judge.testing.rule_judge.RuleJudge` does, by word overlap and negation, so whatever runs
the whole pipeline against it gets meaningful, deterministic verdicts.

    with run_fake_openai_server(FakeJudgeServer().handler) as base_url:
        ...  # judge verify --base-url <base_url> --model fake-judge
"""

from __future__ import annotations

import contextlib
import http.server
import json
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import httpx

from judge.config import Settings
from judge.judges.cache import VerdictCache
from judge.judges.transport import FailFastTransport
from judge.pipeline.entail.llm_judge import HttpJudge, build_http_judge
from judge.testing.replies import FAKE_MODEL, http_error
from judge.testing.rule_judge import RuleJudge

FAKE_BASE_URL = "http://fake-judge.test/v1"

Spec = dict[str, Any] | httpx.Response | BaseException
Script = Callable[[dict[str, Any]], Spec]


def fake_settings(**overrides: Any) -> Settings:
    """Settings for a judge on the fake server: no HTTP retries, one re-ask, no cache, the
    verdict variant that carries a reason and a quote (``label_first``), and drafts without a
    citation grammar (``generator_grammar = off``: probing for one would take a scripted reply;
    a test of the grammar sets it)."""
    values: dict[str, Any] = {
        "base_url": FAKE_BASE_URL,
        "http_retries": 0,
        "reasks": 1,
        "cache_enabled": False,
        "verdict_variant": "label_first",
        "generator_grammar": "off",
    }
    values.update(overrides)
    return Settings(**values)


# --- reading a judge request -------------------------------------------------------------------

_FENCE = re.compile(r"<<<([A-Z]+)-([0-9a-f]+)>>>\n(.*?)\n<<<END-\1-\2>>>", re.DOTALL)


def fenced(request_json: Mapping[str, Any]) -> dict[str, str]:
    """The fenced blocks of the request's user message, by kind (EVIDENCE, CLAIM, ...)."""
    user = next(m["content"] for m in request_json["messages"] if m["role"] == "user")
    return {kind: body for kind, _nonce, body in _FENCE.findall(user)}


def requested_variant(request_json: Mapping[str, Any]) -> str:
    """The verdict variant a judge request asks for, read from its JSON schema's name."""
    name = request_json.get("response_format", {}).get("json_schema", {}).get("name", "")
    variants = {
        "VerdictQuoteFirst": "quote_first",
        "VerdictLabelOnly": "label_only",
        "VerdictYesNo": "yes_no",
        "VerdictContradiction": "contradiction",
    }
    return variants.get(name, "label_first")


# --- the default script: the project's one rule-based judge ------------------------------------

_RULES = RuleJudge()


def rule_based_judge(request_json: dict[str, Any]) -> Spec:
    """Answer any judge request as :class:`judge.testing.rule_judge.RuleJudge` does (the rules
    the red team runs too, without obeying injections): verdicts by content words and
    negation, facts by splitting on ' and ', conclusions from the answer's last sentence."""
    return _RULES.respond(request_json)


# --- the server --------------------------------------------------------------------------------


class FakeJudgeServer:
    """Scripted chat completions behind ``httpx.MockTransport``; records every request.

    Queued specs (:meth:`push`, or a sequence given as ``script``) are answered first, in order;
    then the callable script, if any; with neither left, HTTP 599.
    """

    def __init__(
        self,
        script: Script | Iterable[Spec] | None = None,
        *,
        models: Sequence[str] = (FAKE_MODEL,),
    ) -> None:
        self.models = list(models)
        self.requests: list[dict[str, Any]] = []
        self.model_list_calls = 0
        self._lock = threading.Lock()
        self._script: Script | None
        self._queue: list[Spec]
        if script is None:
            self._script, self._queue = rule_based_judge, []
        elif callable(script):
            self._script, self._queue = script, []
        else:
            self._script, self._queue = None, list(script)

    def push(self, *specs: Spec) -> None:
        """Queue more answers (used before the callable script, if any)."""
        with self._lock:
            self._queue.extend(specs)

    def handler(self, request: httpx.Request) -> httpx.Response:
        """Answer one HTTP request; a spec that is an exception is raised."""
        path = request.url.path.rstrip("/")
        if request.method == "GET" and path.endswith("/models"):
            with self._lock:
                self.model_list_calls += 1
            data = [{"id": m, "object": "model", "owned_by": "fake"} for m in self.models]
            return httpx.Response(200, json={"object": "list", "data": data})
        if request.method == "POST" and path.endswith("/chat/completions"):
            body = json.loads(request.content)
            with self._lock:
                self.requests.append(body)
                spec = self._queue.pop(0) if self._queue else None
            if spec is None:
                if self._script is None:
                    return http_error(599, "fake judge script exhausted")
                spec = self._script(body)
            if isinstance(spec, BaseException):
                raise spec
            if isinstance(spec, httpx.Response):
                return spec
            return httpx.Response(200, json=spec)
        return httpx.Response(404, json={"error": {"message": f"no route {path}"}})

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handler)

    def http_client(self, *, fail_fast: bool = True) -> httpx.AsyncClient:
        """A client on this fake; ``fail_fast`` wraps it as the judge's own client is wrapped."""
        transport: httpx.AsyncBaseTransport = self.transport
        if fail_fast:
            transport = FailFastTransport(transport)
        return httpx.AsyncClient(transport=transport)

    def judge(
        self,
        settings: Settings | None = None,
        *,
        cache: VerdictCache | None = None,
        model: str | None = FAKE_MODEL,
        fail_fast: bool = True,
        variant: str | None = None,
    ) -> HttpJudge:
        """The verifier's HTTP judge on this fake (settings: :func:`fake_settings`)."""
        settings = settings or fake_settings()
        return build_http_judge(
            settings,
            base_url=FAKE_BASE_URL,
            model=model,
            http_client=self.http_client(fail_fast=fail_fast),
            cache=cache,
            variant=variant,  # type: ignore[arg-type]
        )


@contextlib.contextmanager
def run_fake_openai_server(
    handler: Callable[[httpx.Request], httpx.Response],
) -> Iterator[str]:
    """Serve ``handler`` (e.g. ``FakeJudgeServer().handler``) on 127.0.0.1; yields the base URL
    (``http://127.0.0.1:PORT/v1``). A handler that raises drops the connection unanswered."""

    class _Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            request = httpx.Request(
                self.command,
                f"http://{self.headers.get('Host', '127.0.0.1')}{self.path}",
                headers=dict(self.headers.items()),
                content=body,
            )
            try:
                response = handler(request)
            except Exception:
                self.close_connection = True
                return
            payload = response.read()
            self.send_response(response.status_code)
            for name, value in response.headers.items():
                if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = _serve
        do_POST = _serve

        def log_message(self, format: str, *args: Any) -> None:
            pass

    class _Server(http.server.ThreadingHTTPServer):
        request_queue_size = 256  # bursts of concurrent clients (load tests) must not be reset

        def handle_error(self, request: Any, client_address: Any) -> None:
            pass  # a client that hung up (a timeout test) is not an error here

    server = _Server(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, name="fake-openai", daemon=True
    )
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
