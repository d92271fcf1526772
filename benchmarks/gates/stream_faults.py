"""The stream fault table: the guard endpoint's verified stream (``stream: true``) under every
generator, judge and client fault, with scripted servers on loopback.

Each row runs one request against the app served by uvicorn, with the scripted streaming
generator (:mod:`judge.testing.fake_stream`) and a scripted judge that supports every claim (the
rule-based fake, permissive: only the exact checks stand between a wrong value and the
client), or one that fails as the row says. It records what the client received (the HTTP
status, the verified text, the last chunk's outcome and how the stream ended, or the error),
in how many seconds, and what the audit log holds; and it checks that no byte the client
received carries the text that must not go out (a wrong value, the generator's error text).
The last row runs ``judge serve`` as a child process and sends it SIGTERM with streams open.

Time bounds are short here so the table runs in CI: first text 1 s, 1 s between text chunks,
a 6 s deadline, 2 s per sentence's judge calls and per send, 1 s of shutdown grace (the
defaults are 20, 15, 300, the request timeout, 30 and 10 s: docs/STREAMING.md).

    python -m benchmarks.gates.stream_faults              # the table, against the expected rows
    python -m benchmarks.gates.stream_faults --markdown   # the table as in STREAMING.md

The gate fails when a row's outcome differs from the committed one
(``gates/expected/stream_faults.json``), when forbidden text reached the client, or when a row
took longer than its bound. Judge: none (scripted). Time on the 2-core development machine:
about a minute.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from benchmarks.common import (
    ROOT,
    GateResult,
    compared_with,
    expected_file,
    finish,
    gate_parser,
    judged,
    read_expected,
    write_expected,
)
from judge.audit.log import AuditLog
from judge.pipeline.entail.llm_judge import build_http_judge
from judge.service.app import ServeOptions, create_app
from judge.testing import FAKE_MODEL, fake_settings, run_fake_openai_server
from judge.testing.fake_stream import (
    StreamingGenerator,
    StreamReply,
    serve_streaming_generator,
    tokens,
)
from judge.testing.rule_judge import RuleJudge

NAME = "stream_faults"
EVIDENCE = [
    {"id": "S1", "text": "The kettle costs 45 euros. Its warranty lasts 2 years."},
    {"id": "S2", "text": 'The maker says: "The kettle is safe to use every day."'},
]
GOOD = "The kettle costs 45 euros [S1]."
SECOND = "Its warranty lasts 2 years [S1]."
MESSAGES = [{"role": "user", "content": "What does the kettle cost?"}]
# A long run with no sentence end before its unit: the flush rule cut it there once.
RUN_ON = (
    "The kettle, which the shop sells in three colours and which many reviewers have praised "
    "for its quiet boil, its steady base, its long cord, its clear water window and its "
    "handle that stays cool, and which comes with a descaling guide, a spare filter and a "
    "printed manual in eleven languages, as the product page for the model explains at "
    "length for anyone who is thinking of buying one for a kitchen or an office, and which "
    "the maker describes as its best model yet, built to last for many years of daily use, "
    "costs 45"
)
FIRST_TEXT_S = 1.0
TEXT_GAP_S = 1.0
DEADLINE_S = 6.0
SENTENCE_S = 2.0
SEND_S = 2.0
GRACE_S = 1.0
BOUND_S = 10.0  # no row may take longer to end (the slowest bound here is the deadline)


@dataclass
class Seen:
    """What the client received."""

    status: int = 0
    text: str = ""
    outcome: str | None = None
    ended: str | None = None
    error: str | None = None
    raw: bytes = b""
    seconds: float = 0.0

    def describe(self) -> str:
        if self.status == 0:
            return f"({self.error})"
        if self.status != 200:
            return f"HTTP {self.status}: {self.error}"
        if self.outcome is None and self.error is None:
            return f"200, {len(self.text)} chars, then it hung up"
        shown = f"{len(self.text)} chars" if self.text else "no text"
        if self.error is not None:
            return f"200, {shown}, then an error event: {self.error}"
        return f"200, {shown}, last chunk: {self.outcome} ({self.ended})"


@dataclass
class Row:
    fault: str
    party: str
    client: str
    seconds: float
    audit: str
    result: dict[str, Any]
    problems: list[str] = field(default_factory=list)


@dataclass
class Scenario:
    fault: str
    party: str
    replies: list[StreamReply]
    forbidden: tuple[str, ...] = ()  # never in a byte the client receives
    unrecorded: bool = False  # nor in the audit record's reason (the generator's own text)
    judge: Callable[[httpx.Request], httpx.Response] | None = None
    client: str = "read"  # read | leave_after_text | leave_before_text
    hung_up: bool = False  # the generator must have been hung up on


def _yes() -> Callable[[httpx.Request], httpx.Response]:
    return RuleJudge(permissive=True).handler


def _failing_judge(kind: str) -> Callable[[httpx.Request], httpx.Response]:
    """A judge that answers its model list, and fails every verdict as ``kind`` says; "dies"
    answers the first verdict and then drops every connection."""
    yes = RuleJudge(permissive=True).handler
    calls = {"n": 0}

    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            return yes(request)
        calls["n"] += 1
        if kind == "error":
            return httpx.Response(500, json={"error": {"message": "judge down"}})
        if kind == "hang":
            time.sleep(SENTENCE_S + 3)
            return yes(request)
        if kind == "reset" or (kind == "dies" and calls["n"] > 1):
            raise ConnectionResetError("judge gone")
        return yes(request)

    return handler


def scenarios() -> list[Scenario]:
    wrong_unit = f"{RUN_ON} dollars [S1]. {SECOND}"
    quote = 'The maker says "the kettle is safe to use every day and every night" [S2]. ' + SECOND
    listed = "The kettle costs the following amount, in euros [S1]:\n40. The body is steel [S1]."
    error_text = "The kettle costs 40 euros and is free to return [S1]."
    return [
        Scenario(
            "value cut from its unit by the old flush rule",
            "generator",
            [StreamReply.of(wrong_unit)],
            forbidden=("dollars",),
        ),
        Scenario(
            "line break between number and unit",
            "generator",
            [StreamReply([*tokens(RUN_ON), "\n", "dollars [S1].", f" {SECOND}"])],
            forbidden=("dollars",),
        ),
        Scenario(
            "quotation cut before it closes",
            "generator",
            [StreamReply([*tokens(quote[:40]), quote[40:70], *tokens(quote[70:])])],
            forbidden=("every night", "safe to use"),
        ),
        Scenario("list-marker number", "generator", [StreamReply.of(listed)], forbidden=("40.",)),
        Scenario(
            "keep-alives mid-sentence",
            "generator",
            [StreamReply.of(f"{GOOD} Its warranty lasts", fault_after=10, fault="keep_alive")],
            forbidden=("warranty",),
            hung_up=True,
        ),
        Scenario(
            "keep-alives before any text",
            "generator",
            [StreamReply.of(GOOD, fault_after=0, fault="keep_alive")],
            hung_up=True,
        ),
        Scenario(
            "empty deltas mid-sentence",
            "generator",
            [StreamReply.of(f"{GOOD} Its warranty lasts", fault_after=10, fault="empty_deltas")],
            forbidden=("warranty",),
            hung_up=True,
        ),
        Scenario(
            "empty deltas before any text",
            "generator",
            [StreamReply.of(GOOD, fault_after=0, fault="empty_deltas")],
            hung_up=True,
        ),
        Scenario(
            "malformed first chunk: bad JSON",
            "generator",
            [StreamReply.of(GOOD, fault_after=0, fault="bad_json")],
            forbidden=("kettle",),
        ),
        Scenario(
            "malformed first chunk: delta not a string",
            "generator",
            [StreamReply.of(GOOD, fault_after=0, fault="not_a_string")],
        ),
        Scenario(
            "malformed later chunk: bad JSON",
            "generator",
            [StreamReply.of(f"{GOOD} {SECOND}", fault_after=10, fault="bad_json")],
            forbidden=("warranty",),
        ),
        Scenario(
            "error event carrying reply text, mid-stream",
            "generator",
            [
                StreamReply.of(
                    f"{GOOD} {SECOND}", fault_after=9, fault="error_event", message=error_text
                )
            ],
            forbidden=("free to return", "40 euros"),
            unrecorded=True,
        ),
        Scenario(
            "HTTP 500 whose body carries reply text",
            "generator",
            [StreamReply([], status=500, message=error_text)],
            forbidden=("free to return", "40 euros", "judge"),
            unrecorded=True,
        ),
        Scenario(
            "connection dropped mid-stream",
            "generator",
            [StreamReply.of(f"{GOOD} {SECOND}", fault_after=9)],
            forbidden=("warranty",),
        ),
        Scenario(
            "judge fails (HTTP 500)",
            "judge",
            [StreamReply.of(f"{GOOD} {SECOND}")],
            forbidden=("kettle",),
            judge=_failing_judge("error"),
        ),
        Scenario(
            "judge hangs",
            "judge",
            [StreamReply.of(f"{GOOD} {SECOND}")],
            forbidden=("kettle",),
            judge=_failing_judge("hang"),
        ),
        Scenario(
            "judge resets the connection",
            "judge",
            [StreamReply.of(f"{GOOD} {SECOND}")],
            forbidden=("kettle",),
            judge=_failing_judge("reset"),
        ),
        Scenario(
            "judge dies after its first call",
            "judge",
            [StreamReply.of(f"{GOOD} {SECOND}")],
            forbidden=("warranty",),
            judge=_failing_judge("dies"),
        ),
        Scenario(
            "client disconnects mid-stream",
            "client",
            [StreamReply.of(f"{GOOD} {SECOND}", fault_after=10, fault="keep_alive")],
            client="leave_after_text",
            hung_up=True,
        ),
        Scenario(
            "client disconnects before any text",
            "client",
            [StreamReply.of(GOOD, fault_after=0, fault="keep_alive")],
            client="leave_before_text",
            hung_up=True,
        ),
    ]


# --- running a row ---------------------------------------------------------------------------


@contextlib.contextmanager
def _served(app: Any) -> Iterator[str]:
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="critical"))
    thread = threading.Thread(target=server.run, name="stream-faults", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the service did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        _ready(f"http://127.0.0.1:{port}")  # as an orchestrator would wait
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def _ready(url: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/readyz", timeout=5).status_code == 200:
                return
        time.sleep(0.05)
    raise RuntimeError(f"the service at {url} was not ready within 60 s")


def _settings(folder: Path, generator_url: str, judge_url: str) -> Any:
    return fake_settings(
        base_url=judge_url,
        state_dir=folder,
        generator_base_url=generator_url,
        timeout_s=SENTENCE_S + 1,
        stream_first_text_timeout_s=FIRST_TEXT_S,
        stream_text_gap_timeout_s=TEXT_GAP_S,
        stream_deadline_s=DEADLINE_S,
        stream_send_timeout_s=SEND_S,
    )


def _body(model: str = "gen") -> dict[str, Any]:
    return {
        "model": model,
        "messages": MESSAGES,
        "stream": True,
        "grounding": {"evidence": EVIDENCE},
    }


def read_stream(url: str, client: str = "read", model: str = "gen") -> Seen:
    """One streamed request as a client reads it; ``leave_after_text`` hangs up after the
    first verified text, ``leave_before_text`` after a moment without any."""
    seen = Seen()
    started = time.perf_counter()
    timeout = httpx.Timeout(BOUND_S + 5, connect=5)
    try:
        with httpx.stream(
            "POST", f"{url}/chat/completions", json=_body(model), timeout=timeout
        ) as response:
            seen.status = response.status_code
            if response.status_code != 200:
                seen.raw = response.read()
                seen.error = _error_message(seen.raw)
                return seen
            for line in response.iter_lines():
                seen.raw += line.encode() + b"\n"
                _take(seen, line)
                if client == "leave_after_text" and seen.text:
                    return seen
    except httpx.ReadTimeout:
        if client != "leave_before_text":
            seen.error = "the client's read timed out"
    finally:
        seen.seconds = time.perf_counter() - started
    return seen


def _leave_before_text(url: str) -> Seen:
    """A client that sends its request and goes away before any byte comes back."""
    seen = Seen(status=0)
    started = time.perf_counter()
    with contextlib.suppress(httpx.HTTPError):
        httpx.post(f"{url}/chat/completions", json=_body(), timeout=FIRST_TEXT_S / 2)
    seen.seconds = time.perf_counter() - started
    seen.error = "the client went away before any byte"
    return seen


def _take(seen: Seen, line: str) -> None:
    if not line.startswith("data: {"):
        return
    event = json.loads(line.removeprefix("data: "))
    if "error" in event:
        seen.error = event["error"].get("message")
        return
    choice = (event.get("choices") or [{}])[0]
    grounding = event.get("grounding")
    if grounding is not None:
        seen.outcome = grounding["outcome"]
        seen.ended = grounding["stream"]["ended"]
        return
    seen.text += choice.get("delta", {}).get("content") or ""


def _error_message(raw: bytes) -> str:
    try:
        message: str = json.loads(raw)["error"]["message"]
    except (ValueError, KeyError, TypeError):
        return raw.decode("utf-8", "replace")[:200]
    return message


def _audit_line(audit: AuditLog, count: int, wait_s: float = 5.0) -> tuple[str, dict[str, Any]]:
    """The ``count``-th chat record (waited for), as a table cell and as figures."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline and audit.count(kind="chat") < count:
        time.sleep(0.05)
    records = list(audit.iter_since(kind="chat"))
    if len(records) < count:
        return "nothing", {"records": 0}
    record = records[count - 1]
    extra = record.extra or {}
    reason = extra.get("stop_reason") or ""
    kinds = reason.split(": ", 1)[0] if extra.get("ended") == "stopped" else reason
    line = f"{record.action}, {extra.get('outcome')}, ended {extra.get('ended')}: {kinds}"
    return line, {
        "action": record.action,
        "ended": extra.get("ended"),
        "outcome": extra.get("outcome"),
        "_reason": reason,
    }


def run_rows(group: list[Scenario], folder: Path) -> list[Row]:
    """The rows of scenarios that share a judge, one after another on one service."""
    folder.mkdir(parents=True, exist_ok=True)
    generator = StreamingGenerator(*[reply for s in group for reply in s.replies])
    with contextlib.ExitStack() as stack:
        generator_url = stack.enter_context(serve_streaming_generator(generator))
        judge_url = stack.enter_context(run_fake_openai_server(group[0].judge or _yes()))
        settings = _settings(folder, generator_url, judge_url)
        judge = build_http_judge(settings, base_url=judge_url, model=FAKE_MODEL)
        audit = stack.enter_context(AuditLog.open(folder / "audit.sqlite3"))
        options = ServeOptions(request_timeout_s=SENTENCE_S, shutdown_grace_s=GRACE_S)
        url = stack.enter_context(_served(create_app(settings, options, judge=judge, audit=audit)))
        return [_row(scenario, url, audit, count) for count, scenario in enumerate(group, start=1)]


def _row(scenario: Scenario, url: str, audit: AuditLog, count: int) -> Row:
    if scenario.client == "leave_before_text":
        seen = _leave_before_text(url)
    else:
        seen = read_stream(url, scenario.client)
    audit_line, recorded = _audit_line(audit, count)
    hung_up = all(reply.hung_up.wait(5) or reply.done.wait(5) for reply in scenario.replies)
    result = {
        "status": seen.status,
        "outcome": seen.outcome,
        "ended": seen.ended,
        "error_event": seen.error is not None and seen.status == 200,
        "audit": {k: v for k, v in recorded.items() if not k.startswith("_")},
    }
    problems = [
        f"{scenario.fault}: {text!r} reached the client"
        for text in scenario.forbidden
        if text.encode() in seen.raw or text in seen.text
    ]
    if scenario.unrecorded:
        problems += [
            f"{scenario.fault}: {text!r} in the audit record's reason"
            for text in scenario.forbidden
            if text in str(recorded.get("_reason"))
        ]
    if seen.seconds > BOUND_S:
        problems.append(f"{scenario.fault}: took {seen.seconds:.1f} s (bound {BOUND_S:g} s)")
    if scenario.hung_up and not hung_up:
        problems.append(f"{scenario.fault}: the generator was not hung up on")
    return Row(
        scenario.fault, scenario.party, seen.describe(), seen.seconds, audit_line, result, problems
    )


def concurrent_row(folder: Path) -> Row:
    """Three streams at once: one that passes, one with a wrong value, one that stalls."""
    folder.mkdir(parents=True, exist_ok=True)
    replies = {
        "pass": StreamReply.of(f"{GOOD} {SECOND}"),
        "wrong": StreamReply.of(f"{SECOND} The kettle costs 40 euros [S1]. {GOOD}"),
        "stall": StreamReply.of(f"{GOOD} Its warranty", fault_after=8, fault="keep_alive"),
    }
    generator = RoutedGenerator(replies)
    with contextlib.ExitStack() as stack:
        generator_url = stack.enter_context(serve_streaming_generator(generator))
        judge_url = stack.enter_context(run_fake_openai_server(_yes()))
        settings = _settings(folder, generator_url, judge_url)
        judge = build_http_judge(settings, base_url=judge_url, model=FAKE_MODEL)
        audit = stack.enter_context(AuditLog.open(folder / "audit.sqlite3"))
        options = ServeOptions(request_timeout_s=SENTENCE_S)
        url = stack.enter_context(_served(create_app(settings, options, judge=judge, audit=audit)))
        seen: dict[str, Seen] = {}
        started = time.perf_counter()
        threads = [threading.Thread(target=_reader(seen, key, url)) for key in replies]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(BOUND_S + 10)
        seconds = time.perf_counter() - started
        deadline = time.monotonic() + 5
        while audit.count(kind="chat") < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        records = list(audit.iter_since(kind="chat"))
    outcomes = {k: f"{s.outcome} ({s.ended})" for k, s in sorted(seen.items())}
    ended = sorted(str((r.extra or {}).get("ended")) for r in records)
    problems = []
    if "40 euros" in seen.get("wrong", Seen()).text:
        problems.append("three streams: the wrong value reached its client")
    if "warranty" in seen.get("stall", Seen()).text:
        problems.append("three streams: the stalled sentence reached its client")
    if seconds > BOUND_S:
        problems.append(f"three streams: took {seconds:.1f} s (bound {BOUND_S:g} s)")
    return Row(
        "three concurrent streams (pass, wrong value, stall)",
        "client",
        "; ".join(f"{k}: {v}" for k, v in outcomes.items()),
        seconds,
        f"{len(records)} records, ended {', '.join(ended)}",
        {"outcomes": outcomes, "audit": {"records": len(records), "ended": ended}},
        problems,
    )


def _reader(seen: dict[str, Seen], key: str, url: str) -> Callable[[], None]:
    def read() -> None:
        seen[key] = read_stream(url, model=key)

    return read


class RoutedGenerator(StreamingGenerator):
    """Answers each request with the reply its model name names."""

    def __init__(self, replies: dict[str, StreamReply]) -> None:
        super().__init__(*replies.values())
        self.by_key = replies

    def next_reply(self, request: dict[str, Any]) -> StreamReply:
        with self._lock:
            self.requests.append(request)
            reply = self.by_key[request["model"]]
            self.served.append(reply)
            return reply


def sigterm_row(folder: Path) -> Row:
    """`judge serve` with two streams open on a stalling generator, sent SIGTERM."""
    folder.mkdir(parents=True, exist_ok=True)
    replies = [
        StreamReply.of(f"{GOOD} Its warranty", fault_after=8, fault="keep_alive"),
        StreamReply.of(f"{GOOD} Its warranty", fault_after=8, fault="keep_alive"),
    ]
    generator = StreamingGenerator(*replies)
    with contextlib.ExitStack() as stack:
        generator_url = stack.enter_context(serve_streaming_generator(generator))
        judge_url = stack.enter_context(run_fake_openai_server(_yes()))
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "JUDGE_STATE_DIR": str(folder),
            "JUDGE_HTTP_RETRIES": "0",
            "JUDGE_CACHE_ENABLED": "false",
            "JUDGE_GENERATOR_BASE_URL": generator_url,
            # The generator stalls: the streams stay open until the signal, not their bound.
            "JUDGE_STREAM_TEXT_GAP_TIMEOUT_S": "60",
            # This generator stalls on every call, a grammar probe too: no probe, so the
            # signal finds both streams open rather than one still probing.
            "JUDGE_GENERATOR_GRAMMAR": "off",
        }
        command = [
            sys.executable, "-m", "judge.cli", "serve", "--port", str(port), "--base-url",
            judge_url, "--model", FAKE_MODEL, "--audit-db", str(folder / "audit.sqlite3"),
            "--shutdown-grace", str(GRACE_S),
        ]  # fmt: skip
        log = stack.enter_context((folder / "serve.log").open("wb"))
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=log)
        try:
            url = f"http://127.0.0.1:{port}"
            _wait_ready(url, process)
            seen: list[Seen] = []
            threads = [
                threading.Thread(target=lambda: seen.append(read_stream(f"{url}/v1")))
                for _ in replies
            ]
            for thread in threads:
                thread.start()
            for reply in replies:
                _wait_sent(reply)
            signalled = time.perf_counter()
            process.send_signal(signal.SIGTERM)
            code = process.wait(timeout=GRACE_S + 30)
            exited = time.perf_counter() - signalled
            for thread in threads:
                thread.join(10)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(10)
        with AuditLog.open(folder / "audit.sqlite3", create=False) as audit:
            records = list(audit.iter_since(kind="chat"))
    ended = sorted(str((r.extra or {}).get("ended")) for r in records)
    problems = []
    if exited > GRACE_S + 5 + 2:
        problems.append(f"SIGTERM: the process took {exited:.1f} s to exit")
    if any("warranty" in s.text for s in seen):
        problems.append("SIGTERM: the stalled sentence reached a client")
    outcomes = sorted(f"{s.outcome} ({s.ended})" for s in seen)
    return Row(
        "SIGTERM with two streams open",
        "service",
        f"both: {', '.join(outcomes)}; the process exited ({code}) {exited:.1f} s after the signal",
        exited,
        f"{len(records)} records, ended {', '.join(ended)}",
        {"outcomes": outcomes, "exit": code, "audit": {"records": len(records), "ended": ended}},
        problems,
    )


def _wait_ready(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                return
        time.sleep(0.1)
    raise RuntimeError(f"`judge serve` at {url} never became ready (exit {process.poll()})")


def _wait_sent(reply: StreamReply) -> None:
    deadline = time.monotonic() + 30
    while reply.sent < 8 and time.monotonic() < deadline:
        time.sleep(0.02)


# --- the gate ----------------------------------------------------------------------------------


def measure(folder: Path) -> list[Row]:
    every = scenarios()
    shared = [s for s in every if s.judge is None]
    rows = run_rows(shared, folder / "shared")
    by_row = {s.fault: row for s, row in zip(shared, rows, strict=True)}
    for number, scenario in enumerate(s for s in every if s.judge is not None):
        [by_row[scenario.fault]] = run_rows([scenario], folder / f"judge-{number}")
    rows = [by_row[s.fault] for s in every]
    rows.append(concurrent_row(folder / "concurrent"))
    rows.append(sigterm_row(folder / "sigterm"))
    return rows


def markdown(rows: list[Row]) -> str:
    lines = [
        "| fault | party | what the client receives | seconds | what the audit log holds |",
        "|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row.fault} | {row.party} | {row.client} | {row.seconds:.1f} | {row.audit} |"
        )
    return "\n".join(lines)


def regressions(rows: list[Row], expected: dict[str, Any] | None) -> list[str]:
    found = [problem for row in rows for problem in row.problems]
    if expected is None:
        return found
    was = expected.get("rows", {})
    for row in rows:
        if row.fault not in was:
            found.append(f"{row.fault}: no expected row (record it with --write-expected)")
        elif was[row.fault] != row.result:
            found.append(f"{row.fault}: {was[row.fault]} -> {row.result}")
    return found


def run(expected: Path | None) -> tuple[GateResult, list[Row]]:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="stream-faults-") as folder:
        rows = measure(Path(folder))
    seconds = time.perf_counter() - started
    problems = regressions(rows, read_expected(expected))
    clean = sum(not row.problems for row in rows)
    summary = f"{len(rows)} faults, {clean} ended closed with nothing forbidden sent"
    report = markdown(rows)
    return judged(NAME, summary, problems, seconds, report), rows


def gate(quick: bool = False, expected: Path | None = None) -> GateResult:
    """The stream fault table against the committed rows."""
    return run(expected or expected_file(NAME))[0]


def main() -> int:
    parser = gate_parser(__doc__, NAME)
    parser.add_argument("--markdown", action="store_true", help="print only the table")
    parser.add_argument("--json", type=Path, help="write every row here")
    args = parser.parse_args()
    result, rows = run(compared_with(args))
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in rows], indent=1) + "\n")
    if args.write_expected:
        rows_by_fault = {row.fault: row.result for row in rows}
        write_expected(args.write_expected, {"rows": rows_by_fault}, result.seconds)
    if args.markdown:
        print(markdown(rows))
        return 0 if result.status != "FAIL" else 1
    return finish(result)


if __name__ == "__main__":
    sys.exit(main())
