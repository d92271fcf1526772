"""A scripted OpenAI-compatible judge server for tests, behind the real HTTP stack.

:class:`FakeJudgeServer` answers ``POST /v1/chat/completions`` and ``GET /v1/models`` through an
``httpx.MockTransport`` (in process) or :func:`run_fake_openai_server` (a real loopback server,
for CLI subprocess and service tests). Every chat request is recorded as parsed JSON.

A script is either a callable ``(request_json) -> spec`` or a sequence of specs used in order.
A spec is a response body (``dict``, answered with HTTP 200), an ``httpx.Response`` or an
exception to raise (``httpx.ReadTimeout``, ``httpx.ConnectError``). Helpers below build each.
:func:`rule_based_judge` is the default script: it decides by word overlap, so tests that run
the whole pipeline get meaningful verdicts.
"""

from __future__ import annotations

import contextlib
import http.server
import itertools
import json
import math
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import httpx

from judge.config import Settings
from judge.judges.cache import VerdictCache
from judge.judges.http import HttpJudge, build_http_judge
from judge.judges.rule_based import RuleJudge
from judge.judges.transport import FailFastTransport
from judge.pipeline.entail.verdict import label_value_offset

FAKE_MODEL = "fake-judge"
FAKE_BASE_URL = "http://fake-judge.test/v1"
LABELS = ("supported", "unsupported", "contradicted")
# The yes/no variant's answers: it has no contradiction answer, so "contradicted" reads "no".
YES_NO = {"supported": "yes", "unsupported": "no", "contradicted": "no"}

Spec = dict[str, Any] | httpx.Response | BaseException
Script = Callable[[dict[str, Any]], Spec]

_ids = itertools.count(1)


def fake_settings(**overrides: Any) -> Settings:
    """Settings for tests against the fake: no HTTP retries, one re-ask, no cache."""
    values: dict[str, Any] = {
        "base_url": FAKE_BASE_URL,
        "http_retries": 0,
        "reasks": 1,
        "cache_enabled": False,
        # Most tests read the judge's reason and quote; label_only has its own tests.
        "verdict_variant": "label_first",
    }
    values.update(overrides)
    return Settings(**values)


# --- response builders -------------------------------------------------------------------------


def chat_completion(
    content: str,
    *,
    finish_reason: str = "stop",
    logprobs: list[dict[str, Any]] | None = None,
    model: str = FAKE_MODEL,
    prompt_tokens: int = 120,
    completion_tokens: int = 30,
) -> dict[str, Any]:
    """An OpenAI chat-completions response body."""
    return {
        "id": f"chatcmpl-fake-{next(_ids)}",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish_reason,
                "logprobs": {"content": logprobs} if logprobs is not None else None,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def verdict_json(
    label: str,
    reason: str = "checked against the evidence",
    quote: str = "",
    ids: Sequence[str] = (),
    *,
    variant: str = "label_first",
) -> str:
    fields: dict[str, Any] = {
        "label": label,
        "reason": reason,
        "evidence_quote": quote,
        "evidence_ids": list(ids),
    }
    if variant == "yes_no":
        return json.dumps({"answer": YES_NO[label]})
    if variant == "contradiction":
        return json.dumps({"answer": "yes" if label == "contradicted" else "no"})
    order: tuple[str, ...] = ("label", "reason", "evidence_quote", "evidence_ids")
    if variant == "quote_first":
        order = ("evidence_quote", "evidence_ids", "label", "reason")
    elif variant == "label_only":
        order = ("label",)
    return json.dumps({name: fields[name] for name in order}, ensure_ascii=False)


def _entry(token: str, logprob: float, top: Sequence[tuple[str, float]] = ()) -> dict[str, Any]:
    return {
        "token": token,
        "logprob": logprob,
        "bytes": list(token.encode("utf-8")),
        "top_logprobs": [
            {"token": t, "logprob": lp, "bytes": list(t.encode("utf-8"))} for t, lp in top
        ]
        or [{"token": token, "logprob": logprob, "bytes": list(token.encode("utf-8"))}],
    }


def logprob_content(
    content: str,
    alternatives: Mapping[str, float],
    *,
    chosen: str,
    lead: str = "",
    key: str = "label",
) -> list[dict[str, Any]]:
    """Logprob entries for ``content`` whose label-value token is ``lead + chosen``.

    ``alternatives`` maps each top token at that position to its probability (tokens include
    the ``lead``, as servers report them); every other token gets probability 1.
    """
    start = label_value_offset(content, key)
    if start is None or not content.startswith(chosen, start):
        raise ValueError("content has no label value starting with the chosen token")
    head, tail = content[: start - len(lead)], content[start + len(chosen) :]
    if not content[:start].endswith(lead):
        raise ValueError("lead does not precede the label value")
    top = sorted(((t, math.log(p)) for t, p in alternatives.items()), key=lambda x: -x[1])
    own = dict(top).get(lead + chosen, math.log(0.5))
    return (
        [_entry(piece, 0.0) for piece in _chunks(head)]
        + [_entry(lead + chosen, own, top)]
        + [_entry(piece, 0.0) for piece in _chunks(tail)]
    )


def _chunks(text: str) -> list[str]:
    return [piece for piece in re.findall(r"\s?[A-Za-z_]+|\s?\d+|\s?[^\sA-Za-z_\d]+|\s+", text)]


def label_alternatives(scores: Mapping[str, float]) -> dict[str, float]:
    """Whole-label tokens with the given probabilities."""
    return {label: p for label, p in scores.items() if p > 0}


def verdict_response(
    label: str = "supported",
    reason: str = "checked against the evidence",
    quote: str = "",
    ids: Sequence[str] = (),
    *,
    variant: str = "label_first",
    scores: Mapping[str, float] | None = None,
    finish_reason: str = "stop",
    scored: bool = True,
) -> dict[str, Any]:
    """A verdict answer with logprobs for the label token: ``scores``, or by default 0.9 for
    ``label``. ``scored=False`` sends no logprobs (a verdict whose score cannot be read)."""
    content = verdict_json(label, reason, quote, ids, variant=variant)
    if scores is None and scored:
        scores = confident(label)
    logprobs = None
    if scores is not None and variant == "yes_no":
        answers: dict[str, float] = {}
        for name, p in label_alternatives(scores).items():
            answers[YES_NO[name]] = answers.get(YES_NO[name], 0.0) + p
        logprobs = logprob_content(content, answers, chosen=YES_NO[label], key="answer")
    elif scores is not None and variant == "contradiction":
        p_yes = scores.get("contradicted", 0.0)
        chosen = "yes" if label == "contradicted" else "no"
        alternatives = {"yes": p_yes, "no": 1.0 - p_yes}
        logprobs = logprob_content(content, alternatives, chosen=chosen, key="answer")
    elif scores is not None:
        logprobs = logprob_content(content, label_alternatives(scores), chosen=label)
    return chat_completion(content, logprobs=logprobs, finish_reason=finish_reason)


def confident(label: str, p: float = 0.9) -> dict[str, float]:
    """Scores that give ``label`` probability ``p`` and share the rest."""
    return {name: (p if name == label else (1 - p) / 2) for name in LABELS}


def invalid_json_response() -> dict[str, Any]:
    return chat_completion('{"label": "supported", "reason": "the evidence says so"')


def truncated_response() -> dict[str, Any]:
    return chat_completion('{"label": "supported", "reason": "the evid', finish_reason="length")


def facts_response(facts: Sequence[str]) -> dict[str, Any]:
    return chat_completion(json.dumps({"facts": list(facts)}))


def conclusion_response(conclusion: str) -> dict[str, Any]:
    return chat_completion(json.dumps({"conclusion": conclusion}))


def http_error(status: int, message: str = "fake server error") -> httpx.Response:
    # retry-after-ms keeps the openai client's retry sleep at a millisecond in tests.
    return httpx.Response(
        status,
        json={"error": {"message": message, "type": "server_error", "code": status}},
        headers={"retry-after-ms": "1"},
    )


def read_timeout() -> httpx.ReadTimeout:
    return httpx.ReadTimeout("fake read timeout")


def connection_refused() -> httpx.ConnectError:
    return httpx.ConnectError("[Errno 111] Connection refused")


# --- the default script: the project's one rule-based judge ----------------------------------

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


def rule_based_judge(request_json: dict[str, Any]) -> Spec:
    """Answer any judge request as :class:`judge.judges.rule_based.RuleJudge` does (the rules
    the red team runs too, without obeying injections): verdicts by content words and
    negation, facts by splitting on ' and ', conclusions from the answer's last sentence."""
    return _RULES.respond(request_json)


_RULES = RuleJudge()


# --- the server --------------------------------------------------------------------------------


class FakeJudgeServer:
    """Scripted chat completions behind ``httpx.MockTransport``; records every request."""

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
