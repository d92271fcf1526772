"""Streamed against buffered verification through the guard endpoint, on the dev answers.

Each answer goes through ``POST /v1/chat/completions`` with ``stream: true`` twice, in one
run and interleaved answer by answer (the order alternating, so neither mode always finds the
judge server's prompt cache warm): ``stream_mode = "buffered"`` (the whole reply generated,
then verified, then sent) and ``"sentences"`` (each sentence sent once verified). The client is
the openai SDK's streaming client; it times the first verified text and the end.

Two generators:

* ``scripted`` (default): this script's own small server replays the dev answer's text as a
  token stream at ``--rate`` tokens per second (cl100k tokens), and takes as long to answer a
  request without ``stream`` (what the buffered mode asks);
* ``embedded``: the embedded model itself writes a cited summary of the record's passages
  (temperature 0), served by the same llama.cpp server as the judge, as in a one-box setup.

The judge is the embedded judge (``judge local up``; ``--judge-url`` for another), with the
verdict cache off so both modes pay for every call, and the search citation policy (the dev
answers cite nothing). Give each mode a server of its own (``--streamed-judge-url``, a second
``judge local up`` with another state directory): on one server the second run of an answer
finds all the first run's prompts in the server's prompt cache and answers in seconds. The
embedded generator is the mode's own server. Reported: time to the first verified text, total
time, judge calls per claim, and each claim's verdict and the final action in both modes, with
every difference.

    python -m benchmarks.harness.streaming --judge-url URL --streamed-judge-url URL2 --model ID
        [--answers 10]
        [--embedded-answers 4] [--rate 30] [--max-evidence-chars 2800] [--out DIR]

``--cold-warm`` times instead what a fresh ``judge serve`` costs its first request: for
``--rounds`` fresh processes (the tree ``--serve-tree``, default this one) on an instant judge
that supports every claim and the scripted generator, the time from the spawn to ``/healthz``
and ``/readyz``, then ``--requests`` streamed dev answers one after another: the first
verified sentence and the total of the first request (cold) against the later ones (warm).
It needs no model:

    python -m benchmarks.harness.streaming --cold-warm --rounds 8 --requests 4 --rate 200

Judge: two embedded judge servers (``judge local up``, the second with its own state
directory), or any two endpoints of one model; none with ``--cold-warm`` (about 3 minutes for
8 rounds on the shared development machine). Time on the 2-core development machine, shared
(STREAMING.md): a median of 60-77 s per answer and mode; ``--answers 10`` with the scripted
generator about 25 minutes for both modes, three answers with the embedded one about 9.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import statistics
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import openai
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from benchmarks.common import DEV_ANSWERS
from judge.audit.log import AuditLog
from judge.config import Settings
from judge.pipeline.claims.sentences import split_answer
from judge.pipeline.entail.tokens import encoding
from judge.service.app import ServeOptions, create_app

MODES = ("buffered", "sentences")
DESCRIPTION = "Streamed against buffered verification through the guard endpoint."


# --- the scripted generator ------------------------------------------------------------------


def token_pieces(text: str) -> list[str]:
    """``text`` as a model streams it: one piece per cl100k token."""
    enc = encoding()
    return [enc.decode([token]) for token in enc.encode(text)]


def scripted_generator(texts: dict[str, str], rate: float) -> Starlette:
    """Answers with ``texts[key]``, the key named in the system message (``record: KEY``), at
    ``rate`` tokens per second; a request without ``stream`` waits for the whole text's time."""

    async def completions(request: Request) -> Response:
        body = await request.json()
        text = texts[_record_key(body["messages"][0]["content"])]
        pieces = token_pieces(text)
        if not body.get("stream"):
            await asyncio.sleep(len(pieces) / rate)
            return JSONResponse(_completion(text, len(pieces)))

        async def events() -> AsyncIterator[bytes]:
            for piece in pieces:
                await asyncio.sleep(1 / rate)
                yield _chunk({"content": piece}, None)
            yield _chunk({}, "stop")
            yield b"data: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    async def models(_: Request) -> Response:
        return JSONResponse({"object": "list", "data": [{"id": "scripted"}]})

    return Starlette(
        routes=[
            Route("/v1/chat/completions", completions, methods=["POST"]),
            Route("/v1/models", models),
        ]
    )


def _record_key(system: str) -> str:
    return system.rsplit("record: ", 1)[1].removesuffix(")").strip()


def _chunk(delta: dict[str, Any], finish: str | None) -> bytes:
    body = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "scripted",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(body)}\n\n".encode()


def _completion(text: str, tokens: int) -> dict[str, Any]:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": "scripted",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text},
             "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 0, "completion_tokens": tokens, "total_tokens": tokens},
    }  # fmt: skip


@contextlib.contextmanager
def serving(app: Any) -> Iterator[str]:
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("a server did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


# --- one request -------------------------------------------------------------------------------


@dataclass
class Run:
    record: str
    generator: str
    mode: str
    first_text_s: float | None  # the first text shown: a verified sentence, or a refusal
    first_verified_s: float | None  # the first verified sentence (None: nothing verified went out)
    total_s: float
    text: str
    outcome: str
    action: str
    verdicts: list[tuple[str, str]]
    claims: int
    judge_calls: int
    first_release_end: int | None = None  # where the first released sentence ends
    first_sentence_tokens: int = 0  # tokens generated up to its end
    first_judge_s: float | None = None
    releases: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)


def ask(
    url: str,
    record: dict[str, Any],
    mode: str,
    generator: str,
    model: str,
    key: str,
    max_tokens: int = 300,
) -> Run:
    client = openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=1800)
    passages = "\n".join(f"[{p['id']}] {p['text']}" for p in record["evidence"])
    messages: list[Any] = [
        {"role": "system", "content": "Answer only from the passages. End each sentence with "
         f"the id of the passage it comes from in brackets, like [l0]. (record: {key})"},
        {"role": "user", "content": f"Passages:\n{passages}\n\nSummarise what the passages say "
         "in three sentences."},
    ]  # fmt: skip
    grounding = {"evidence": record["evidence"], "citation_policy": "search", "stream_mode": mode}
    started = time.perf_counter()
    first: float | None = None
    first_verified: float | None = None
    text = ""
    last: Any = None
    stream = client.chat.completions.create(
        model=model, messages=messages, stream=True, temperature=0.0, seed=0,
        max_tokens=max_tokens,
        extra_body={"grounding": grounding},
    )  # fmt: skip
    for chunk in stream:
        content = chunk.choices[0].delta.content if chunk.choices else None
        now = time.perf_counter() - started
        if content and first is None:
            first = now
        # A streamed sentence comes in a chunk of its own; the last chunk carries the notice.
        final = bool(chunk.choices) and chunk.choices[0].finish_reason is not None
        if content and first_verified is None and mode == "sentences" and not final:
            first_verified = now
        text += content or ""
        last = chunk
    total = time.perf_counter() - started
    field_ = last.model_extra["grounding"]
    verification = field_["verification"]
    if mode == "buffered" and field_["outcome"] in ("passed", "repaired"):
        first_verified = first
    verdicts = [(v["claim"]["id"], v["label"]) for v in verification["verdicts"]]
    claims = sum(1 for claim_id, _ in verdicts if claim_id != "conclusion")
    run = Run(
        record=record["id"],
        generator=generator,
        mode=mode,
        first_text_s=first,
        first_verified_s=first_verified,
        total_s=total,
        text=text,
        outcome=field_["outcome"],
        action=verification["action"],
        verdicts=verdicts,
        claims=claims,
        judge_calls=verification["judge_calls"],
        reasons=verification["reasons"],
    )
    stream_info = field_.get("stream")
    if stream_info:
        run.releases = [s["release"] for s in stream_info["sentences"]]
        released = [s for s in stream_info["sentences"] if s["release"] == "released"]
        if released:
            run.first_release_end = released[0]["span"][1]
            first_claim = released[0]["claims"][0] if released[0]["claims"] else None
            for verdict in verification["verdicts"]:
                judged = verdict.get("judge")
                if verdict["claim"]["id"] == first_claim and judged:
                    run.first_judge_s = judged["latency_s"]
    return run


# --- the benchmark ------------------------------------------------------------------------------


def sample(
    path: Path, count: int, seed: int, min_sentences: int, max_evidence_chars: int
) -> list[dict[str, Any]]:
    """``count`` dev answers of ``min_sentences`` sentences or more whose evidence holds at most
    ``max_evidence_chars`` characters, spread over the datasets, the longest answers first."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    multi = [
        r
        for r in records
        if len(split_answer(r["answer"])[0]) >= min_sentences
        and sum(len(p["text"]) for p in r["evidence"]) <= max_evidence_chars
    ]
    random.Random(seed).shuffle(multi)
    multi.sort(key=lambda r: -len(split_answer(r["answer"])[0]))
    by_dataset: dict[str, list[dict[str, Any]]] = {}
    for record in multi:
        by_dataset.setdefault(record["dataset"], []).append(record)
    chosen: list[dict[str, Any]] = []
    while len(chosen) < count and any(by_dataset.values()):
        for group in by_dataset.values():
            if group and len(chosen) < count:
                chosen.append(group.pop(0))
    return chosen


def run_all(args: argparse.Namespace, out: Path) -> list[Run]:
    records = sample(
        DEV_ANSWERS, args.answers, args.seed, args.min_sentences, args.max_evidence_chars
    )
    texts = {r["id"]: r["answer"] for r in records}
    runs: list[Run] = []
    with contextlib.ExitStack() as stack:
        scripted_url = stack.enter_context(serving(scripted_generator(texts, args.rate)))
        # Each mode has its own judge server when two are given: the second run of an answer
        # would otherwise find every prompt of the first in the server's prompt cache.
        judges = {
            "buffered": args.judge_url,
            "sentences": args.streamed_judge_url or args.judge_url,
        }
        guards = {
            (generator, mode): stack.enter_context(
                guard(args, judges[mode], generator_url, out / f"{generator}-{mode}")
            )
            for mode in MODES
            for generator, generator_url in (("scripted", scripted_url), ("embedded", judges[mode]))
        }
        plan: list[tuple[str, dict[str, Any], str]] = []
        if "scripted" in args.generators:
            plan += [("scripted", r, args.generator_model or "scripted") for r in records]
        if "embedded" in args.generators:
            plan += [("embedded", r, args.model) for r in records[: args.embedded_answers]]
        for number, (generator, record, model) in enumerate(plan):
            modes = MODES if number % 2 == 0 else MODES[::-1]
            for mode in modes:
                try:
                    run = ask(
                        guards[generator, mode], record, mode, generator, model, record["id"],
                        args.max_tokens,
                    )  # fmt: skip
                except openai.APIStatusError as exc:
                    # A generator fault before any text (502): recorded, and the pair left out.
                    run = Run(record["id"], generator, mode, None, None, 0.0, "",
                              f"error {exc.status_code}", "none", [], 0, 0,
                              reasons=[exc.message])  # fmt: skip
                if generator == "scripted" and run.first_release_end is not None:
                    written = record["answer"][: run.first_release_end]
                    run.first_sentence_tokens = len(token_pieces(written))
                runs.append(run)
                with (out / "runs.jsonl").open("a", encoding="utf-8") as sink:
                    sink.write(json.dumps(asdict(run)) + "\n")
                first = f"{run.first_text_s:.1f}" if run.first_text_s is not None else "-"
                print(
                    f"{generator:8} {mode:9} {record['id'][:40]:40} first {first:>6} s  "
                    f"total {run.total_s:6.1f} s  {run.action:10} calls {run.judge_calls}",
                    flush=True,
                )
    return runs


@contextlib.contextmanager
def guard(
    args: argparse.Namespace, judge_url: str, generator_url: str, state: Path
) -> Iterator[str]:
    state.mkdir(parents=True, exist_ok=True)
    settings = Settings(
        base_url=judge_url,
        model=args.model,
        generator_base_url=generator_url,
        cache_enabled=False,
        timeout_s=600,
        state_dir=state,
        # A CPU-bound generator beside the judge: its first token and the gaps while a judge
        # call runs take far longer than the defaults allow.
        stream_first_text_timeout_s=600,
        stream_text_gap_timeout_s=600,
        stream_deadline_s=3600,
    )
    options = ServeOptions(request_timeout_s=1800, audit_path=state / "audit.sqlite3")
    with (
        AuditLog.open(state / "audit.sqlite3") as audit,
        serving(create_app(settings, options, audit=audit)) as url,
    ):
        yield url


# --- the report ---------------------------------------------------------------------------------


def report(runs: list[Run], rate: float) -> str:
    lines = []
    for generator in ("scripted", "embedded"):
        pairs = _pairs([r for r in runs if r.generator == generator])
        if not pairs:
            continue
        lines += _table(generator, pairs, rate)
    return "\n".join(lines)


def _pairs(runs: list[Run]) -> list[tuple[Run, Run]]:
    by_record: dict[str, dict[str, Run]] = {}
    for run in runs:
        by_record.setdefault(run.record, {})[run.mode] = run
    return [
        (modes["buffered"], modes["sentences"])
        for modes in by_record.values()
        if len(modes) == 2 and not any(run.outcome.startswith("error") for run in modes.values())
    ]


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _table(generator: str, pairs: list[tuple[Run, Run]], rate: float) -> list[str]:
    verified = [(b, s) for b, s in pairs if b.first_verified_s and s.first_verified_s]
    ratios = [b.first_verified_s / s.first_verified_s for b, s in verified
              if b.first_verified_s and s.first_verified_s]  # fmt: skip
    shown = [b.first_text_s / s.first_text_s for b, s in pairs
             if b.first_text_s and s.first_text_s]  # fmt: skip
    multi = [(b, s) for b, s in verified if b.claims >= 3]
    multi_ratios = [b.first_verified_s / s.first_verified_s for b, s in multi
                    if b.first_verified_s and s.first_verified_s]  # fmt: skip
    budget = [
        s.first_verified_s / (s.first_sentence_tokens / rate + s.first_judge_s)
        for _, s in pairs
        if s.first_verified_s and s.first_judge_s and s.first_sentence_tokens
    ]
    same_claims = [
        (b, s) for b, s in pairs if {c for c, _ in b.verdicts} == {c for c, _ in s.verdicts}
    ]
    calls_b = sum(b.judge_calls for b, _ in same_claims) / max(
        1, sum(b.claims for b, _ in same_claims)
    )
    calls_s = sum(s.judge_calls for _, s in same_claims) / max(
        1, sum(s.claims for _, s in same_claims)
    )
    same_action = sum(b.action == s.action for b, s in pairs)
    same_text = sum(b.text == s.text for b, s in pairs)

    def median_of(values: list[float | None]) -> str:
        kept = [v for v in values if v is not None]
        return f"{_median(kept):.1f} s ({len(kept)})" if kept else "-"

    lines = [
        f"### Generator: {generator} ({len(pairs)} answers)",
        "",
        "| | buffered | streamed |",
        "|---|---|---|",
        f"| time to the first verified sentence, median (answers) | "
        f"{median_of([b.first_verified_s for b, _ in pairs])} | "
        f"{median_of([s.first_verified_s for _, s in pairs])} |",
        f"| buffered / streamed, first verified sentence, median ratio ({len(ratios)} answers "
        f"verified in both) | | {_median(ratios):.1f}x |",
        f"| the same, answers of 3 or more claims ({len(multi_ratios)}) | | "
        f"{_median(multi_ratios):.1f}x |",
        f"| time to the first text shown (a sentence, or a refusal), median | "
        f"{median_of([b.first_text_s for b, _ in pairs])} | "
        f"{median_of([s.first_text_s for _, s in pairs])} |",
        f"| buffered / streamed, first text shown, median ratio | | {_median(shown):.1f}x |",
        f"| total time, median | {_median([b.total_s for b, _ in pairs]):.1f} s | "
        f"{_median([s.total_s for _, s in pairs]):.1f} s |",
        f"| streamed / buffered total, median ratio | | "
        f"{_median([s.total_s / b.total_s for b, s in pairs]):.2f} |",
        f"| judge calls per claim ({len(same_claims)} answers with the same claims decided) | "
        f"{calls_b:.2f} | {calls_s:.2f} |",
        f"| judge calls, all answers | {sum(b.judge_calls for b, _ in pairs)} | "
        f"{sum(s.judge_calls for _, s in pairs)} |",
        f"| first verified sentence / (its generation at {rate:g} tok/s + its judge call), "
        f"median ({len(budget)}) | | {_median(budget):.2f} |",
        f"| same final action | | {same_action} of {len(pairs)} |",
        f"| same text shown | | {same_text} of {len(pairs)} |",
        "",
        "Differences, claim by claim:",
        "",
    ]
    for buffered, streamed in pairs:
        lines += _differences(buffered, streamed)
    return lines


def _differences(buffered: Run, streamed: Run) -> list[str]:
    found = []
    if buffered.text != streamed.text and buffered.generator == "embedded":
        found.append(f"- {buffered.record}: the generator wrote different texts in the two modes")
    b, s = dict(buffered.verdicts), dict(streamed.verdicts)
    for claim in sorted(set(b) | set(s), key=_claim_order):
        if b.get(claim) != s.get(claim):
            found.append(
                f"- {buffered.record} {claim}: buffered {b.get(claim, 'not judged')}, streamed "
                f"{s.get(claim, 'not judged')}"
            )
    if buffered.action != streamed.action:
        found.append(
            f"- {buffered.record}: action buffered {buffered.action}, streamed {streamed.action}"
        )
    return found


def _claim_order(claim: str) -> tuple[int, str]:
    digits = "".join(ch for ch in claim if ch.isdigit())
    return (int(digits) if digits else 10_000, claim)


# --- cold against warm ---------------------------------------------------------------------------


@dataclass
class ColdWarmRound:
    """One fresh `judge serve` process: how long until it answered its probes, then each
    streamed request in turn (the first one cold)."""

    live_s: float  # from the spawn to the first /healthz 200
    ready_s: float  # from the spawn to the first /readyz 200
    first_verified_s: list[float | None]  # per request, in order
    total_s: list[float]


def cold_warm(args: argparse.Namespace, out: Path) -> list[ColdWarmRound]:
    """``--rounds`` fresh ``judge serve`` processes on an instant judge that supports every
    claim (the rule-based fake, permissive) and the
    scripted generator; each answers ``--requests`` streamed dev answers one after another.
    The serve process runs the tree at ``--serve-tree`` (default: this one)."""
    from judge.testing import run_fake_openai_server
    from judge.testing.rule_judge import RuleJudge

    records = sample(DEV_ANSWERS, args.answers, args.seed, args.min_sentences, 10**9)
    texts = {r["id"]: r["answer"] for r in records}
    rounds: list[ColdWarmRound] = []
    with contextlib.ExitStack() as stack:
        # A judge that supports every claim at once: the time measured is the verifier's own.
        judge_url = stack.enter_context(run_fake_openai_server(RuleJudge(permissive=True).handler))
        generator_url = stack.enter_context(serving(scripted_generator(texts, args.rate)))
        for number in range(args.rounds):
            state = out / f"round-{number}"
            state.mkdir(parents=True, exist_ok=True)
            with serve_process(args.serve_tree, state, judge_url, generator_url) as (url, spawned):
                live_s, ready_s = _probe_times(url, spawned)
                firsts: list[float | None] = []
                totals: list[float] = []
                for index in range(args.requests):
                    record = records[(number + index) % len(records)]
                    key = record["id"]
                    run = ask(f"{url}/v1", record, "sentences", "scripted", "scripted", key)
                    firsts.append(run.first_verified_s)
                    totals.append(run.total_s)
            rounds.append(ColdWarmRound(live_s, ready_s, firsts, totals))
            print(
                f"round {number}: live {live_s:.2f} s, ready {ready_s:.2f} s, first verified "
                + ", ".join("-" if f is None else f"{f:.3f}" for f in firsts)
                + " s; total "
                + ", ".join(f"{t:.3f}" for t in totals)
                + " s",
                flush=True,
            )
            with (out / "cold_warm.jsonl").open("a", encoding="utf-8") as sink:
                sink.write(json.dumps(asdict(rounds[-1])) + "\n")
    return rounds


@contextlib.contextmanager
def serve_process(
    tree: Path, state: Path, judge_url: str, generator_url: str
) -> Iterator[tuple[str, float]]:
    """`judge serve` from ``tree`` as a child process on a free port; yields its URL and the
    moment it was spawned (perf_counter)."""
    import os
    import signal
    import socket
    import subprocess
    import sys

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {
        **os.environ,
        "PYTHONPATH": str(tree),
        "JUDGE_STATE_DIR": str(state),
        "JUDGE_CACHE_ENABLED": "false",
        "JUDGE_GENERATOR_BASE_URL": generator_url,
        "JUDGE_CITATION_POLICY": "search",
    }
    command = [
        sys.executable, "-m", "judge.cli", "serve", "--port", str(port), "--base-url", judge_url,
        "--model", "fake-judge", "--audit-db", str(state / "audit.sqlite3"),
    ]  # fmt: skip
    spawned = time.perf_counter()
    with (state / "serve.log").open("wb") as log:
        process = subprocess.Popen(command, cwd=tree, env=env, stdout=log, stderr=log)
    try:
        yield f"http://127.0.0.1:{port}", spawned
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)


def _probe_times(url: str, spawned: float) -> tuple[float, float]:
    import httpx

    live: float | None = None
    deadline = spawned + 120
    while time.perf_counter() < deadline:
        try:
            if live is None and httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                live = time.perf_counter() - spawned
            if live is not None and httpx.get(f"{url}/readyz", timeout=5).status_code == 200:
                return live, time.perf_counter() - spawned
        except httpx.HTTPError:
            pass
        time.sleep(0.01)
    raise RuntimeError(f"`judge serve` at {url} was not ready within 120 s")


def cold_warm_report(rounds: list[ColdWarmRound]) -> str:
    def med(values: list[float]) -> str:
        return f"{_median(values):.3f} s" if values else "-"

    cold_first = [r.first_verified_s[0] for r in rounds if r.first_verified_s[0] is not None]
    warm_first = [_median([f for f in r.first_verified_s[1:] if f is not None]) for r in rounds]
    cold_total = [r.total_s[0] for r in rounds]
    warm_total = [_median(r.total_s[1:]) for r in rounds]
    first_gap = [
        r.first_verified_s[0] - _median([f for f in r.first_verified_s[1:] if f is not None])
        for r in rounds
        if r.first_verified_s[0] is not None
    ]
    total_gap = [r.total_s[0] - _median(r.total_s[1:]) for r in rounds]
    lines = [
        f"### Cold against warm ({len(rounds)} fresh processes, "
        f"{len(rounds[0].total_s) if rounds else 0} requests each)",
        "",
        "| | median |",
        "|---|---|",
        f"| spawn to /healthz 200 | {med([r.live_s for r in rounds])} |",
        f"| spawn to /readyz 200 | {med([r.ready_s for r in rounds])} |",
        f"| first verified sentence, first request (cold) | {med(cold_first)} |",
        f"| first verified sentence, later requests (warm) | {med(warm_first)} |",
        f"| cold minus warm, first verified sentence (per process) | {med(first_gap)} |",
        f"| total, first request (cold) | {med(cold_total)} |",
        f"| total, later requests (warm) | {med(warm_total)} |",
        f"| cold minus warm, total (per process) | {med(total_gap)} |",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=DESCRIPTION)
    parser.add_argument(
        "--cold-warm",
        action="store_true",
        help="time a fresh `judge serve` (scripted judge and generator) on its first request "
        "and on the next ones; needs no model",
    )
    parser.add_argument("--rounds", type=int, default=5, help="--cold-warm: fresh processes")
    parser.add_argument("--requests", type=int, default=4, help="--cold-warm: per process")
    parser.add_argument(
        "--serve-tree",
        type=Path,
        default=Path(__file__).resolve().parents[2],
        help="--cold-warm: the source tree `judge serve` runs from (default: this one)",
    )
    parser.add_argument("--judge-url", help="the judge's base URL (…/v1)")
    parser.add_argument("--model", help="the judge's model id")
    parser.add_argument(
        "--streamed-judge-url",
        help="a second judge server of the same model for the streamed runs (default: the one)",
    )
    parser.add_argument("--generator-model", help="the model id sent to the scripted generator")
    parser.add_argument("--answers", type=int, default=10)
    parser.add_argument("--embedded-answers", type=int, default=4)
    parser.add_argument("--rate", type=float, default=30.0, help="scripted tokens per second")
    parser.add_argument("--seed", type=int, default=37)
    parser.add_argument("--min-sentences", type=int, default=2)
    parser.add_argument(
        "--max-evidence-chars",
        type=int,
        default=2800,
        help="leave out answers with longer evidence (judge calls on 2 cores are slow)",
    )
    parser.add_argument(
        "--generators", default="scripted,embedded", help="which generators to run (comma list)"
    )
    parser.add_argument("--max-tokens", type=int, default=300, help="the generator's max_tokens")
    parser.add_argument(
        "--report", type=Path, nargs="+", help="only print the report of these runs.jsonl files"
    )
    parser.add_argument("--out", type=Path, help="folder for runs.jsonl and report.md")
    args = parser.parse_args()
    if args.report:
        runs = [Run(**json.loads(line)) for path in args.report
                for line in path.read_text(encoding="utf-8").splitlines()]  # fmt: skip
        print(report(runs, args.rate))
        return
    out = args.out or Path(tempfile.mkdtemp(prefix="streaming-bench-"))
    out.mkdir(parents=True, exist_ok=True)
    if args.cold_warm:
        text = cold_warm_report(cold_warm(args, out))
        (out / "cold_warm.md").write_text(text + "\n", encoding="utf-8")
        print(text)
        return
    if not args.judge_url or not args.model:
        parser.error("--judge-url and --model are required (except with --cold-warm)")
    runs = run_all(args, out)
    text = report(runs, args.rate)
    (out / "report.md").write_text(text + "\n", encoding="utf-8")
    print(text)
    print(f"\nruns and report in {out}")


if __name__ == "__main__":
    main()
