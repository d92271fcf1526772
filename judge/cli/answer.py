"""`judge answer --question Q --evidence FILE`: write a cited answer, verify it, repair or
regenerate it, and print only what verified (else the configured fallback).

Exit 0 when the printed answer verified (passed, repaired or regenerated), 1 when it was
blocked or refused (the fallback was printed), 4 when a generator or verifier fault blocked it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from judge.answer.generator import DEFAULT_MAX_TOKENS
from judge.answer.loop import (
    AnswerOptions,
    AnswerResult,
    Fallback,
    Outcome,
    Progress,
    RepairStyle,
    answer,
    parse_passages,
)
from judge.audit.log import AuditLog, default_audit_path
from judge.cli.app import EXIT_NOT_PASSED, EXIT_PASS, EXIT_VERIFIER_ERROR
from judge.cli.common import add_judge_options, settings_from_args
from judge.config import Settings
from judge.errors import ConfigError, InputError
from judge.inputs.request import read_json
from judge.reports.console import data, make_console, printable


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "answer", help="answer a question from evidence with a verified, cited answer"
    )
    parser.add_argument("--question", "-q", help="the question (default: the file's 'question')")
    parser.add_argument(
        "--evidence",
        "-e",
        type=Path,
        required=True,
        help="JSON: a list of passages {id, text, source?}, or an object with 'evidence'",
    )
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    parser.add_argument(
        "--fallback",
        choices=[f.value for f in Fallback],
        default=Fallback.SAFE_MESSAGE.value,
        help="what to return when nothing verified (default: safe_message)",
    )
    parser.add_argument(
        "--repair",
        choices=[r.value for r in RepairStyle],
        default=RepairStyle.REMOVE.value,
        help="remove failing sentences, or remove and name them (hedge)",
    )
    parser.add_argument(
        "--max-regenerations", type=int, choices=range(4), help="override the setting (0-3)"
    )
    group = parser.add_argument_group("generator")
    group.add_argument("--generator-url", help="OpenAI-compatible endpoint (default: the judge's)")
    group.add_argument("--generator-model", help="model id on the generator endpoint")
    group.add_argument(
        "--max-tokens",
        type=int,
        default=DEFAULT_MAX_TOKENS,
        help=f"generator max_tokens (default {DEFAULT_MAX_TOKENS})",
    )
    parser.add_argument(
        "--audit-db", type=Path, help="audit log (default: $JUDGE_STATE_DIR/audit.sqlite3)"
    )
    parser.add_argument("--no-record", action="store_true", help="do not write the audit log")
    parser.add_argument("--quiet", action="store_true", help="no progress display on stderr")
    add_judge_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.no_judge:
        raise ConfigError("'judge answer' always verifies with the judge: drop --no-judge")
    settings = settings_from_args(args)
    if args.max_regenerations is not None:
        settings = settings.model_copy(update={"max_regenerations": args.max_regenerations})
    data = _read_json(args.evidence)
    question = args.question or (data.get("question") if isinstance(data, dict) else None)
    if not isinstance(question, str) or not question.strip():
        raise InputError("give --question, or a 'question' in the evidence file", field="question")
    options = AnswerOptions(
        fallback=Fallback(args.fallback),
        repair_style=RepairStyle(args.repair),
        generator_base_url=args.generator_url,
        generator_model=args.generator_model,
        max_tokens=args.max_tokens,
    )
    evidence = parse_passages(data)
    from judge.cli.preflight import resolve_reachable

    settings = asyncio.run(resolve_reachable(settings))
    with _audit(args, settings) as audit, _progress(args.quiet) as progress:
        result = asyncio.run(
            answer(question, evidence, settings, options=options, audit=audit, progress=progress)
        )
    if args.json:
        print(result.model_dump_json(indent=2))
    else:
        print(printable(result.text))
        _summary(result)
    return exit_code(result)


def exit_code(result: AnswerResult) -> int:
    if result.verified:
        return EXIT_PASS
    return EXIT_VERIFIER_ERROR if result.fault else EXIT_NOT_PASSED


def _read_json(path: Path) -> Any:
    return read_json(path, field="evidence")


@contextlib.contextmanager
def _audit(args: argparse.Namespace, settings: Settings) -> Iterator[AuditLog | None]:
    if args.no_record:
        yield None
        return
    with AuditLog.open(args.audit_db or default_audit_path(settings)) as audit:
        yield audit


@contextlib.contextmanager
def _progress(quiet: bool) -> Iterator[Progress | None]:
    if quiet:
        yield None
        return
    console = Console(stderr=True)
    with console.status("starting") as status:
        yield lambda message: status.update(message)


def _summary(result: AnswerResult) -> None:
    console = make_console(sys.stderr)
    line = Text(result.outcome.value, style="green" if result.verified else "red")
    if result.outcome is Outcome.BLOCKED and result.fallback is not None:
        line.append(f" (fallback: {result.fallback.value})")
    line.append(
        f"  steps {len(result.steps)}  generator calls {result.generator_calls}  "
        f"judge calls {result.judge_calls}  {result.seconds:.1f} s  answer {result.answer_id}"
    )
    drafting = result.drafting
    if drafting.grammar is not None:
        line.append(f"  drafts under the {drafting.grammar.value} citation grammar")
    console.print(line, soft_wrap=True)
    if drafting.note:
        console.print(Text("  note: ") + data(drafting.note))
    for reason in result.reasons:
        console.print(Text("  - ") + data(reason))
