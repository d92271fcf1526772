"""Drafts that cite by construction: `judge answer` and the guard endpoint with the embedded model
as generator and judge, with and without the citation grammar, on the dev answers' questions.

Items, by fixed rules (no model involved):

* the question of a development answer record is answer_dev.py's rule on its first sentence
  (by the verifier's splitter): ``Is this true? <sentence> Answer from the evidence.``;
* an **answerable** item asks it of its own record's evidence;
* a **mismatched** item asks it of the evidence of a record from another dataset, so no passage
  holds its answer: the truthful outcome is a refusal.

The sample is drawn with ``random.Random(--seed)``: the first ``--answerable N`` records of one
seeded shuffle and the first ``--mismatched M`` of another (each paired with a partner from
another dataset, drawn with the seed and its own id), so a smaller sample in the same ratio is
the start of a larger one; mismatched items are spread evenly among the answerable ones.
Records are taken from those
whose evidence has at most ``--max-evidence-chars`` characters (on a 2-core CPU the embedded
model reads a long transcript for minutes per call). ``--all`` takes all 100 records both ways,
whatever their length.

Modes: ``grammar`` (``generator_grammar = auto``: the endpoint is probed, and the embedded
llama.cpp server takes the GBNF grammar) and ``prompt`` (``generator_grammar = off``). For each
item the modes run one after the other, so drift in the machine's load falls on both.

Surfaces:

* ``answer``: ``judge answer --json --no-cache`` as a fresh process per question;
* ``guard``: ``judge serve`` (one per mode) with the embedded server as its judge and, through a
  recording proxy, as its generator; one streamed chat completion per question
  (``stream_mode`` sentences) whose messages are the prompt `judge answer` drafts with
  (``generate.j2``: the fenced passages ``[S1]``..., the question, the citation rule and the
  refusal sentence), so that the two surfaces differ by what they do with a reply, not by the
  prompt. The proxy keeps each raw reply, which the client never sees unless it verified.

Measured per surface and mode: the share of drafts (every generator reply: drafts and
regenerations) whose every sentence cites a passage of the request (or that are the refusal
sentence alone); the share of answerable questions that end in a verified answer; on mismatched
questions, the share refused, the share refused truthfully (the refusal's kind matches what
happened: "no answer in the evidence" only when every draft was the refusal sentence, "failed
verification" only when a draft was rejected by the checks) and the kinds; generator calls
(probes included), judge calls and wall seconds per question.

    judge local up
    python -m benchmarks.harness.cited_drafts --answerable 24 --mismatched 8 --out-dir /tmp/cd
    python -m benchmarks.harness.cited_drafts --all --out-dir /tmp/cd-all   # hours on a CPU

Rows go to ``results.jsonl`` as each question ends; a rerun with the same ``--out-dir`` skips
the rows already there, so a long run can be stopped and resumed. ``summary.md`` holds the table.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx
import openai

from benchmarks.common import (
    DEV_ANSWERS,
    LoggingProxy,
    claim_question,
    local_judge_endpoint,
    read_jsonl,
)
from judge.answer.grammar import cites_every_sentence
from judge.answer.loop import AnswerOptions, generate_prompt
from judge.answer.relevance import check_answer, is_refusal
from judge.config import load_settings
from judge.pipeline.ledger import freeze_ledger
from judge.prompts.rendering import new_nonce
from judge.reading.sentences import split_sentences
from judge.schemas import Passage

MODES = {"grammar": "auto", "prompt": "off"}
SURFACES = ("answer", "guard")
VERIFIED = {"passed", "repaired", "regenerated"}
TIMEOUT_S = 600.0  # one judge or generator call on a loaded 2-core CPU


@dataclass(frozen=True)
class Item:
    key: str  # unique: kind and record ids
    kind: str  # answerable | mismatched
    record: str
    dataset: str
    question: str
    evidence_of: str
    evidence: list[dict[str, str]]


def first_sentence(text: str) -> str:
    sentences = split_sentences(text, strict=False)
    return sentences[0].text if sentences else text


def question_of(record: dict[str, Any]) -> str:
    return claim_question(first_sentence(record["answer"]))


def evidence_chars(record: dict[str, Any]) -> int:
    return sum(len(p["text"]) for p in record["evidence"])


def draw(
    records: Sequence[dict[str, Any]],
    *,
    answerable: int,
    mismatched: int,
    seed: int,
    max_chars: int | None,
) -> list[Item]:
    """The seeded sample (see the module docstring); ``max_chars`` None: no length limit. A
    smaller sample is the start of a larger one with the same seed."""
    pool = [r for r in records if max_chars is None or evidence_chars(r) <= max_chars]
    own, asked = pool[:], pool[:]
    random.Random(seed).shuffle(own)
    random.Random(seed + 1).shuffle(asked)
    answerable_items = [_item("answerable", r, r) for r in own[:answerable]]
    mismatched_items = []
    for record in asked[:mismatched]:
        partners = [p for p in pool if p["dataset"] != record["dataset"]]
        partner = random.Random(f"{seed}:{record['id']}").choice(partners)
        mismatched_items.append(_item("mismatched", record, partner))
    return interleaved(answerable_items, mismatched_items)


def interleaved(first: Sequence[Item], second: Sequence[Item]) -> list[Item]:
    """Both lists in one, ``second`` spread evenly through ``first`` (3:1 gives a a a b a a a
    b ...), so a run stopped early has measured both kinds."""
    if not second:
        return list(first)
    every = max(1, round(len(first) / len(second)))
    out: list[Item] = []
    rest = list(second)
    for index, item in enumerate(first, start=1):
        out.append(item)
        if index % every == 0 and rest:
            out.append(rest.pop(0))
    return out + rest


def _item(kind: str, record: dict[str, Any], evidence_of: dict[str, Any]) -> Item:
    evidence = [{"id": p["id"], "text": p["text"]} for p in evidence_of["evidence"]]
    key = f"{kind}:{record['id']}:{evidence_of['id']}"
    question = question_of(record)
    return Item(key, kind, record["id"], record["dataset"], question, evidence_of["id"], evidence)


# --- judge answer ------------------------------------------------------------------------------


def run_answer(
    item: Item, mode: str, out: Path, endpoint: tuple[str, str], timeout: float
) -> dict[str, Any]:
    evidence = out / "evidence" / f"{_slug(item.key)}.json"
    evidence.parent.mkdir(parents=True, exist_ok=True)
    evidence.write_text(json.dumps(item.evidence, ensure_ascii=False), encoding="utf-8")
    base_url, model = endpoint
    command = [
        sys.executable, "-m", "judge.cli.app", "answer", "-q", item.question, "-e", str(evidence),
        "--json", "--quiet", "--no-cache", "--base-url", base_url, "--model", model,
        "--timeout", str(TIMEOUT_S), "--audit-db", str(out / f"answer-{mode}.sqlite3"),
    ]  # fmt: skip
    env = {**os.environ, "JUDGE_GENERATOR_GRAMMAR": MODES[mode]}
    started = time.perf_counter()
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout, env=env, check=False
        )
        result = json.loads(done.stdout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    except json.JSONDecodeError:
        return {"error": (done.stderr.strip() or "no output")[-500:]}
    seconds = time.perf_counter() - started
    drafts = [s for s in result["steps"] if s.get("cites_every_sentence") is not None]
    refusal = result.get("refusal")
    return {
        "outcome": result["outcome"],
        "verified": result["outcome"] in VERIFIED,
        "refused": result["outcome"] == "refused",
        "refusal": refusal,
        "truthful": _answer_truthful(refusal, drafts) if refusal else None,
        "drafts": len(drafts),
        "drafts_citing": sum(bool(s["cites_every_sentence"]) for s in drafts),
        "constrained": sum(bool(s.get("constrained")) for s in drafts),
        "generator_calls": result["generator_calls"] + result["drafting"]["probe_calls"],
        "judge_calls": result["judge_calls"],
        "seconds": round(seconds, 1),
        "drafting": result["drafting"],
        "text": result["text"],
        "draft_texts": [s["text"] for s in drafts],
    }


def _answer_truthful(refusal: str, drafts: Sequence[dict[str, Any]]) -> bool:
    """A "no answer" refusal only when every draft was the refusal sentence; a "failed
    verification" one only when some draft said something (which the checks then rejected)."""
    said = [bool(d["text"]) and not is_refusal(d["text"]) for d in drafts]
    if refusal == "no_answer":
        return bool(drafts) and not any(said)
    # A draft that said something and still ended in a refusal was rejected by the checks.
    return any(said)


# --- the guard endpoint ------------------------------------------------------------------------


class RecordingProxy(LoggingProxy):
    """The counting proxy, also keeping the text of each completion it forwards (streamed or
    not), by tag."""

    def __init__(self, upstream: str) -> None:
        super().__init__(upstream, timeout_s=TIMEOUT_S * 4)
        self.replies: dict[str, list[tuple[dict[str, Any], str]]] = {}
        self._replies_lock = threading.Lock()

    def forward(
        self, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        status, kept, payload = super().forward(method, path, headers, body)
        if method == "POST" and path.rstrip("/").endswith("completions"):
            tag = path.lstrip("/").partition("/")[0]
            try:
                request = json.loads(body)
            except ValueError:
                request = {}
            with self._replies_lock:
                self.replies.setdefault(tag, []).append((request, _reply_text(payload)))
        return status, kept, payload

    def taken(self, tag: str) -> list[tuple[dict[str, Any], str]]:
        """The replies kept under ``tag`` since the last call."""
        with self._replies_lock:
            return self.replies.pop(tag, [])


def _reply_text(payload: bytes) -> str:
    text = payload.decode("utf-8", errors="replace")
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
            return str(data["choices"][0]["message"]["content"] or "")
        except (ValueError, KeyError, IndexError, TypeError):
            return ""
    pieces = []
    for line in text.splitlines():
        if not line.startswith("data: ") or line == "data: [DONE]":
            continue
        try:
            chunk = json.loads(line[6:])
            pieces.append(chunk["choices"][0]["delta"].get("content") or "")
        except (ValueError, KeyError, IndexError, TypeError):
            continue
    return "".join(pieces)


@contextlib.contextmanager
def serving_guard(
    mode: str, out: Path, endpoint: tuple[str, str], generator_url: str
) -> Iterator[str]:
    base_url, model = endpoint
    port = _free_port()
    env = {
        **os.environ,
        "JUDGE_STATE_DIR": str(out / f"guard-{mode}-state"),
        "JUDGE_GENERATOR_BASE_URL": generator_url,
        "JUDGE_GENERATOR_MODEL": model,
        "JUDGE_GENERATOR_GRAMMAR": MODES[mode],
    }
    command = [
        sys.executable, "-m", "judge.cli.app", "serve", "--port", str(port),
        "--base-url", base_url, "--model", model, "--no-cache", "--timeout", str(TIMEOUT_S),
        "--request-timeout", str(TIMEOUT_S * 6), "--audit-db", str(out / f"guard-{mode}.sqlite3"),
    ]  # fmt: skip
    log = (out / f"guard-{mode}.log").open("w", encoding="utf-8")
    process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/readyz", timeout=5).status_code == 200:
                    break
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"judge serve did not start: see {log.name}")
            time.sleep(0.5)
        yield f"{url}/v1"
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()


def run_guard(
    item: Item, mode: str, url: str, proxy: RecordingProxy, endpoint: tuple[str, str]
) -> dict[str, Any]:
    messages = guard_messages(item)
    grounding = {
        "evidence": [p["text"] for p in item.evidence],
        "question": item.question,
        "stream_mode": "sentences",
    }
    client = openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=TIMEOUT_S * 8)
    usage_before = proxy.usage(mode)
    proxy.taken(mode)
    started = time.perf_counter()
    try:
        chunks: list[Any] = list(
            client.chat.completions.create(
                model=endpoint[1],
                messages=messages,  # type: ignore[arg-type]
                stream=True,
                temperature=0.0,
                extra_body={"grounding": grounding},
            )
        )
    except openai.OpenAIError as exc:
        return {"error": f"{type(exc).__name__}: {exc}"[:500]}
    seconds = time.perf_counter() - started
    last = chunks[-1].model_extra or {}
    field = last.get("grounding") or {}
    outcome = field.get("outcome")
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    replies = [reply for request, reply in proxy.taken(mode) if not _is_probe(request)]
    ids = [f"S{n}" for n in range(1, len(item.evidence) + 1)]
    refusal = _guard_refusal_kind(text) if outcome == "refused" else None
    released = sum(s["release"] == "released" for s in field.get("stream", {}).get("sentences", []))
    usage = proxy.usage(mode)
    return {
        "outcome": outcome,
        "verified": outcome in ("passed", "repaired") and released > 0,
        "refused": outcome == "refused",
        "refusal": refusal,
        "truthful": _guard_truthful(refusal, replies) if refusal else None,
        "drafts": len(replies),
        "drafts_citing": sum(cites_every_sentence(r, ids) for r in replies),
        "constrained": len(replies) if (field.get("drafting") or {}).get("grammar") else 0,
        "generator_calls": usage.calls - usage_before.calls,
        "judge_calls": field.get("verification", {}).get("judge_calls"),
        "seconds": round(seconds, 1),
        "drafting": field.get("drafting"),
        "text": text,
        "draft_texts": replies,
    }


def guard_messages(item: Item) -> list[dict[str, str]]:
    """`judge answer`'s drafting prompt over the passages as the guard numbers string evidence
    (S1, S2, ...)."""
    passages = [Passage(id=f"S{n}", text=p["text"]) for n, p in enumerate(item.evidence, 1)]
    ledger = freeze_ledger(passages, load_settings())
    prompt = generate_prompt(item.question, ledger, nonce=new_nonce(), options=AnswerOptions())
    return [dict(m) for m in prompt.messages()]


def _is_probe(request: dict[str, Any]) -> bool:
    return request.get("max_tokens") == 4 and not request.get("stream")


def _guard_refusal_kind(text: str) -> str:
    if "no passage of the evidence bears" in text or "found no answer in the evidence" in text:
        return "no_answer"
    return "failed_verification"


def _guard_truthful(refusal: str, replies: Sequence[str]) -> bool:
    refusals = [r for r in replies if is_refusal(r)]
    if refusal == "no_answer":
        return bool(replies) and len(refusals) == len(replies)
    return any(not is_refusal(r) for r in replies)


# --- the run -----------------------------------------------------------------------------------


def summarise(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    table = []
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["surface"], row["mode"]), []).append(row)
    for (surface, mode), group in sorted(groups.items()):
        done = [r for r in group if "error" not in r]
        answerable = [r for r in done if r["kind"] == "answerable"]
        mismatched = [r for r in done if r["kind"] == "mismatched"]
        drafts = sum(r["drafts"] for r in done)
        seconds = [r["seconds"] for r in done]
        table.append(
            {
                "surface": surface,
                "mode": mode,
                "questions": len(done),
                "errors": len(group) - len(done),
                "drafts": drafts,
                "drafts_citing": sum(r["drafts_citing"] for r in done),
                "answerable": len(answerable),
                "verified": sum(r["verified"] for r in answerable),
                "verified_addressing": sum(r["verified"] and addresses(r) for r in answerable),
                "mismatched": len(mismatched),
                "mismatched_refused": sum(r["refused"] for r in mismatched),
                "mismatched_truthful": sum(bool(r["truthful"]) for r in mismatched),
                "mismatched_verified": sum(r["verified"] for r in mismatched),
                "refusal_kinds": dict(Counter(r["refusal"] for r in mismatched if r["refusal"])),
                "generator_calls_per_q": _mean([r["generator_calls"] for r in done]),
                "probe_calls_per_q": _mean([probe_calls(r) for r in done]),
                "judge_calls_per_q": _mean([r["judge_calls"] or 0 for r in done]),
                "seconds_per_q_mean": _mean(seconds),
                "seconds_per_q_median": round(statistics.median(seconds), 1) if seconds else None,
            }
        )
    return table


def probe_calls(row: dict[str, Any]) -> int:
    """The probes among a row's generator calls (the guard probes once per service)."""
    if row["surface"] == "answer":
        return int((row.get("drafting") or {}).get("probe_calls") or 0)
    return int(row["generator_calls"]) - int(row["drafts"])


def addresses(row: dict[str, Any]) -> bool:
    """Whether the returned text addresses the question by the answer check's rule
    (judge/answer/relevance.py): a verified "Yes, this is true. [S1]" does not."""
    return check_answer(row["question"], [row["text"]]).answers


def markdown(table: Sequence[dict[str, Any]]) -> str:
    lines = [
        "| surface | mode | drafts citing every sentence | answerable verified (addressing the "
        "question) | mismatched refused (truthfully) | refusal kinds | generator calls / q "
        "(probes) | judge calls / q | s / q (median) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in table:
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(row["refusal_kinds"].items())) or "-"
        lines.append(
            f"| {row['surface']} | {row['mode']} | {_share(row['drafts_citing'], row['drafts'])} "
            f"| {_share(row['verified'], row['answerable'])} ({row['verified_addressing']}) "
            f"| {_share(row['mismatched_refused'], row['mismatched'])} "
            f"({row['mismatched_truthful']}) | {kinds} | {row['generator_calls_per_q']} "
            f"({row['probe_calls_per_q']}) "
            f"| {row['judge_calls_per_q']} | {row['seconds_per_q_mean']} "
            f"({row['seconds_per_q_median']}) |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    # SIGTERM closes the servers this run started, as Ctrl-C does.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEV_ANSWERS)
    parser.add_argument("--answerable", type=int, default=24)
    parser.add_argument("--mismatched", type=int, default=8)
    parser.add_argument("--seed", type=int, default=44)
    parser.add_argument("--max-evidence-chars", type=int, default=2200)
    parser.add_argument("--all", action="store_true", help="every record, both ways, any length")
    parser.add_argument("--surfaces", default=",".join(SURFACES))
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--model", help="model id (default: the embedded server's)")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per question")
    parser.add_argument("--out-dir", type=Path)
    args = parser.parse_args(argv)

    records = read_jsonl(args.data)
    if args.all:
        items = draw(records, answerable=len(records), mismatched=len(records), seed=args.seed,
                     max_chars=None)  # fmt: skip
    else:
        items = draw(
            records,
            answerable=args.answerable,
            mismatched=args.mismatched,
            seed=args.seed,
            max_chars=args.max_evidence_chars,
        )
    out = args.out_dir or Path(tempfile.mkdtemp(prefix="cited-drafts-"))
    out.mkdir(parents=True, exist_ok=True)
    (out / "items.json").write_text(json.dumps([asdict(i) for i in items], indent=1))
    endpoint = local_judge_endpoint(args.model)
    surfaces = [s for s in args.surfaces.split(",") if s]
    modes = [m for m in args.modes.split(",") if m]
    results = out / "results.jsonl"
    rows = [json.loads(line) for line in results.open()] if results.exists() else []
    done = {(r["surface"], r["mode"], r["key"]) for r in rows}
    print(f"{len(items)} items, {len(done)} rows already in {results}", file=sys.stderr)
    with contextlib.ExitStack() as stack:
        proxy = RecordingProxy(endpoint[0])
        stack.enter_context(proxy)
        guards = {}
        if "guard" in surfaces:
            for mode in modes:
                guards[mode] = stack.enter_context(
                    serving_guard(mode, out, endpoint, proxy.base_url(mode))
                )
        for item in items:
            for surface in surfaces:
                for mode in modes:
                    if (surface, mode, item.key) in done:
                        continue
                    if surface == "answer":
                        row = run_answer(item, mode, out, endpoint, args.timeout)
                    else:
                        row = run_guard(item, mode, guards[mode], proxy, endpoint)
                    row = {"surface": surface, "mode": mode, **asdict(item), **row}
                    row.pop("evidence")
                    rows.append(row)
                    with results.open("a", encoding="utf-8") as fh:
                        fh.write(json.dumps(row, ensure_ascii=False) + "\n")
                    print(_progress(row), file=sys.stderr, flush=True)
    table = summarise(rows)
    (out / "summary.json").write_text(json.dumps(table, indent=1))
    (out / "summary.md").write_text(markdown(table))
    print(markdown(table))
    print(f"results: {results}", file=sys.stderr)
    return 0


def _progress(row: dict[str, Any]) -> str:
    if "error" in row:
        return f"{row['surface']:6} {row['mode']:7} {row['key']}: ERROR {row['error'][:120]}"
    return (
        f"{row['surface']:6} {row['mode']:7} {row['kind']:10} {row['outcome']:12} "
        f"citing {row['drafts_citing']}/{row['drafts']} refusal {row['refusal']} "
        f"{row['seconds']} s  {row['record']}"
    )


def _mean(values: Sequence[float]) -> float | None:
    return round(statistics.fmean(values), 1) if values else None


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f} %)" if whole else "-"


def _slug(key: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in key)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


if __name__ == "__main__":
    raise SystemExit(main())
