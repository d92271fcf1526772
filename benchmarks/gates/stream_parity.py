"""Streamed against buffered verification on the dev answers and the red-team corpus: every
reply the buffered path blocks is stopped by the stream before its offending text goes out.

Each reply (the 100 dev answers, every red-team case that carries an answer) is verified
buffered and streamed with the same scripted judge, twice: the rule-based fake, and its
permissive variant that says yes to everything, so that only the exact checks stand between a
wrong value and the reader (:mod:`judge.testing.stream_parity`). The stream is fed in
model-sized tokens; every second reply the buffered path blocks (up to 2,000 characters) also
one character at a time and in random pieces of 1 to 12 characters. Reported per judge: replies,
replies blocked buffered, those whose offending text the stream released (must be 0), replies
whose failing claims' text the stream released (must be 0), and replies whose streamed
sentences or labels differ from the buffered ones.

    python -m benchmarks.gates.stream_parity [--quick]   # --quick: token chunks only

The gate fails on any reply leaked, and when the share of replies with the buffered sentences
and labels falls below the committed one (``gates/expected/stream_parity.json``). Judge: none
(scripted, in process). Time on the 2-core development machine, shared: about 4 minutes
(--quick about 3).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from benchmarks.common import (
    DEV_ANSWERS,
    GateResult,
    compared_with,
    expected_file,
    finish,
    gate_parser,
    judged,
    missing_data,
    percent,
    read_expected,
    skipped,
    write_expected,
)
from judge.api import evidence_passages
from judge.config import Settings
from judge.errors import InputError
from judge.redteam.runner import JudgeChoice, judge_settings
from judge.redteam.suite import build_suite, default_seeds
from judge.schemas import Passage, VerifyResponse
from judge.testing.stream_parity import (
    JUDGES,
    Chunking,
    JudgeKind,
    Parity,
    buffered_verdict,
    chunked,
    rule_judge,
    stream_parity,
)

NAME = "stream_parity"
MAX_CHARS_CHUNKED = 2000  # one character at a time costs a split per character
CHUNKED_STRIDE = 2  # every second reply (blocked, short enough) is also fed by characters


@dataclass(frozen=True)
class Reply:
    source: str
    evidence: list[Passage]
    answer: str
    question: str | None
    settings: Settings


def replies(dev: bool = True) -> Iterator[Reply]:
    """The dev answers (when present) and every red-team case that carries an answer (its own
    settings), on the fake judge's settings; cases with a scripted judge fault are left out."""
    base = judge_settings(Settings(), JudgeChoice("fake"))
    if dev and missing_data(DEV_ANSWERS) is None:
        for line in DEV_ANSWERS.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            yield Reply(
                f"dev/{record['id']}", evidence_passages(record["evidence"]), record["answer"],
                None, base,
            )  # fmt: skip
    for case in build_suite(default_seeds()):
        request = case.request
        if not isinstance(request, dict) or "answer" not in request or case.judge_fault:
            continue
        try:
            evidence = evidence_passages(request["evidence"])
        except InputError:
            continue  # refused before any verification, streamed or not
        settings = base.model_copy(update=dict(case.settings)) if case.settings else base
        yield Reply(case.id, evidence, request["answer"], request.get("question"), settings)


async def measure(quick: bool) -> tuple[dict[str, Any], list[str]]:
    counts: dict[str, Counter[str]] = {judge: Counter() for judge in JUDGES}
    leaks: list[str] = []
    for number, reply in enumerate(replies()):
        for kind in JUDGES:
            count = counts[kind]
            buffered = await buffered_verdict(
                reply.evidence, reply.answer, reply.question, reply.settings,
                rule_judge(reply.settings, kind),
            )  # fmt: skip
            first = await _compare(reply, kind, "tokens", buffered, count, leaks)
            count["replies"] += 1
            count["blocked"] += first.blocked
            count["same_sentences"] += first.same_sentences
            count["same_labels"] += first.same_labels
            chunked_too = number % CHUNKED_STRIDE == 0 and len(reply.answer) <= MAX_CHARS_CHUNKED
            if first.blocked and not quick and chunked_too:
                for how in ("chars", "random"):
                    await _compare(reply, kind, how, buffered, count, leaks)
    figures = {
        kind: {
            "replies": c["replies"],
            "blocked": c["blocked"],
            "leaked": c["leaked"],
            "released_failing": c["released_failing"],
            "same_sentences_rate": percent(c["same_sentences"], c["replies"]),
            "same_labels_rate": percent(c["same_labels"], c["replies"]),
            "runs": {how: c[f"runs_{how}"] for how in ("tokens", "chars", "random")},
        }
        for kind, c in counts.items()
    }
    return figures, leaks


async def _compare(
    reply: Reply,
    kind: JudgeKind,
    how: Chunking,
    buffered: VerifyResponse | None,
    count: Counter[str],
    leaks: list[str],
) -> Parity:
    parity = await stream_parity(
        reply.evidence, reply.answer, reply.question, reply.settings,
        lambda: rule_judge(reply.settings, kind), chunked(reply.answer, how),
        buffered=buffered,
    )  # fmt: skip
    count[f"runs_{how}"] += 1
    if parity.leaked:
        count["leaked"] += 1
        leaks.append(f"{kind} {how} {reply.source}: offending text released")
    if parity.released_failing:
        count["released_failing"] += 1
        leaks.append(f"{kind} {how} {reply.source}: a failing claim released")
    return parity


def regressions(figures: dict[str, Any], expected: dict[str, Any] | None) -> list[str]:
    found = []
    for kind, now in figures.items():
        if now["leaked"]:
            found.append(f"{kind} judge: {now['leaked']} blocked replies' offending text released")
        if now["released_failing"]:
            found.append(f"{kind} judge: {now['released_failing']} failing claims released")
        was = (expected or {}).get(kind)
        for rate in ("same_sentences_rate", "same_labels_rate"):
            if was is not None and now[rate] < was[rate]:
                found.append(f"{kind} judge: {rate} {was[rate]} -> {now[rate]}")
    return found


def report(figures: dict[str, Any], leaks: list[str]) -> str:
    lines = [
        "| judge | replies | blocked buffered | offending text released | failing claims "
        "released | same sentences | same labels | streams run (tokens / chars / random) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for kind, row in figures.items():
        runs = row["runs"]
        lines.append(
            f"| {kind} | {row['replies']} | {row['blocked']} | {row['leaked']} | "
            f"{row['released_failing']} | {row['same_sentences_rate']:.2f} % | "
            f"{row['same_labels_rate']:.2f} % | {runs['tokens']} / {runs['chars']} / "
            f"{runs['random']} |"
        )
    return "\n".join([*lines, "", *leaks])


def gate(quick: bool = False, expected: Any = None) -> GateResult:
    """Buffered against streamed on the corpus: no blocked reply's offending text sent."""
    return _run(quick, expected or expected_file(NAME))[0]


def _run(quick: bool, expected: Any) -> tuple[GateResult, dict[str, Any]]:
    if not any(True for _ in replies(dev=False)):
        return skipped(NAME, "no red-team replies"), {}
    started = time.perf_counter()
    figures, leaks = asyncio.run(measure(quick))
    seconds = time.perf_counter() - started
    problems = regressions(figures, read_expected(expected))
    summary = ", ".join(
        f"{kind}: {row['leaked']} of {row['blocked']} blocked replies leaked"
        for kind, row in figures.items()
    )
    return judged(NAME, summary, problems, seconds, report(figures, leaks)), figures


def main() -> int:
    parser = gate_parser(__doc__, NAME, quick="token chunks only")
    args = parser.parse_args()
    result, figures = _run(args.quick, compared_with(args))
    if args.write_expected:
        write_expected(args.write_expected, figures, result.seconds)
    return finish(result)


if __name__ == "__main__":
    raise SystemExit(main())
