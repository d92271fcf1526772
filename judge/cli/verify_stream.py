"""`judge verify - --evidence FILE`: verify an answer read from standard input as it arrives.

For piping a generator's output: each sentence is verified as soon as it is complete, and
only verified sentences are written to standard output, in order, as they are decided; each
sentence's verdicts and the final action go to standard error. With ``--json`` standard output
carries JSON Lines instead: one object per decided sentence, then the result.
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import contextlib
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from judge.api import evidence_passages, stream_limits
from judge.cli.app import EXIT_INPUT_ERROR, EXIT_NOT_PASSED, EXIT_PASS, EXIT_VERIFIER_ERROR
from judge.config import Settings
from judge.errors import InputError
from judge.inputs.request import read_json
from judge.reports.console import printable
from judge.schemas import Label
from judge.stream import Release, StreamedSentence, StreamEnd, StreamResult, StreamVerification

READ_BYTES = 65_536


def run_stream(args: argparse.Namespace, settings: Settings) -> int:
    if args.evidence is None:
        raise InputError(
            "give --evidence FILE when the answer comes from standard input", "evidence"
        )
    passages, question = _evidence(args.evidence, args.question)
    return asyncio.run(_run(args, settings, passages, question, sys.stdin.buffer))


async def _run(
    args: argparse.Namespace,
    settings: Settings,
    passages: list[Any],
    question: str | None,
    stdin: BinaryIO,
) -> int:
    from judge.pipeline.entail.connect import judge_for_run

    if not args.no_judge:
        from judge.cli.preflight import resolve_reachable

        settings = await resolve_reachable(settings)
    out, err = sys.stdout, sys.stderr
    async with judge_for_run(settings, use_judge=not args.no_judge) as judge:
        verification = StreamVerification(
            evidence_passages(passages),
            settings,
            question=question,
            judge=judge,
            use_judge=not args.no_judge,
            limits=stream_limits(settings),
        )
        result: StreamResult | None = None
        events = verification.events(read_text(stdin))
        try:
            async for event in events:
                if isinstance(event, StreamResult):
                    result = event
                elif args.json:
                    _write(out, event.model_dump_json() + "\n")
                else:
                    _show(event, out, err)
        finally:
            await events.aclose()
    assert result is not None
    if args.audit or settings.audit_cli:
        # Recorded before the summary; the verified text was already written as it came.
        fault = _record(result, verification, settings, args.audit_db)
        if fault is not None:
            print(f"judge: verifier error: audit log unavailable: {fault}", file=err)
            return EXIT_VERIFIER_ERROR
    if args.json:
        _write(out, json.dumps({"result": result.model_dump(mode="json")}) + "\n")
    else:
        if result.released_text:
            _write(out, "\n")
        _summary(result, err)
    return exit_code(result)


async def read_text(stream: BinaryIO) -> AsyncIterator[str]:
    """Text as it arrives on ``stream`` (UTF-8); a byte sequence that is not UTF-8 raises
    ``InputError`` naming the answer."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    read = getattr(stream, "read1", stream.read)
    while True:
        data = await asyncio.to_thread(read, READ_BYTES)
        try:
            text = decoder.decode(data, final=not data)
        except UnicodeDecodeError as exc:
            raise InputError(f"standard input is not UTF-8: {exc.reason}", "answer") from None
        if text:
            yield text
        if not data:
            return


def exit_code(result: StreamResult) -> int:
    if result.response.limits_exceeded or result.ended is StreamEnd.INVALID:
        return EXIT_INPUT_ERROR
    if result.outcome == "verifier_error":
        return EXIT_VERIFIER_ERROR
    return EXIT_PASS if result.outcome == "passed" else EXIT_NOT_PASSED


def _record(
    result: StreamResult, verification: StreamVerification, settings: Settings, path: Path | None
) -> str | None:
    from judge.audit.log import AuditLog, default_audit_path
    from judge.errors import AuditError
    from judge.service.chat_stream import stream_summary

    extra = {"stream": True, "outcome": result.outcome,
             **stream_summary(result, verification.decided)}  # fmt: skip
    try:
        with AuditLog.open(path or default_audit_path(settings)) as audit:
            audit.record(verification.verified_request, result.response, kind="verify", extra=extra)
    except AuditError as exc:
        return str(exc)
    return None


def _evidence(path: Path, question: str | None) -> tuple[list[Any], str | None]:
    data = read_json(path, field="evidence")
    items = data.get("evidence") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise InputError("give a list of passages or an object with 'evidence'", "evidence")
    if question is None and isinstance(data, dict) and isinstance(data.get("question"), str):
        question = data["question"]
    return items, question


def _show(event: StreamedSentence, out: TextIO, err: TextIO) -> None:
    if event.release is Release.RELEASED:
        _write(out, printable(event.delta))
    mark = {Release.RELEASED: "ok", Release.WITHHELD: "withheld", Release.STOPPED: "STOPPED"}
    labels = ", ".join(
        f"{v.claim.id} {v.label.value}" + (f" {v.score:.2f}" if v.score is not None else "")
        for v in event.verdicts
    )
    with contextlib.suppress(OSError):
        print(
            f"[sentence {event.index + 1}: {mark[event.release]}; {labels or 'no claim'}; "
            f"{event.delay_s:.2f} s]",
            file=err,
            flush=True,
        )


def _summary(result: StreamResult, err: TextIO) -> None:
    response = result.response
    failing = [v for v in response.verdicts if v.label not in (Label.SUPPORTED, Label.NOT_FACTUAL)]
    lines = [f"action: {response.action.value.upper()}  outcome: {result.outcome}  "
             f"ended: {result.ended.value}"]  # fmt: skip
    if result.notice:
        lines.append(f"  {printable(result.notice)}")
    lines += [f"  - {v.claim.id} {v.label.value}: {printable(v.reason or v.error or '')}"
              for v in failing]  # fmt: skip
    first = f"{result.first_release_s:.2f} s" if result.first_release_s is not None else "none"
    lines.append(
        f"request {response.request_id}  judge calls {response.judge_calls}  "
        f"first verified sentence {first}  {response.seconds:.2f} s"
    )
    with contextlib.suppress(OSError):
        print("\n".join(lines), file=err, flush=True)


def _write(out: TextIO, text: str) -> None:
    with contextlib.suppress(OSError):
        out.write(text)
        out.flush()
