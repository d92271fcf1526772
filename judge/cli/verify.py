"""`judge verify REQUEST.json`: verify one answer and print the verdicts and the action."""

from __future__ import annotations

import argparse
import asyncio
import io
import logging
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from judge.cli import output_cache
from judge.cli.app import EXIT_INPUT_ERROR, EXIT_NOT_PASSED, EXIT_PASS, EXIT_VERIFIER_ERROR
from judge.cli.common import add_judge_options, say_report_written, settings_from_args
from judge.cli.progress import claims_progress, wanted
from judge.config import Settings, config_path
from judge.errors import AuditError, InputError
from judge.inputs.request import load_request
from judge.judges.cache import served_from_cache
from judge.judges.cache_store import recording
from judge.pipeline.entail.thresholds import calibration_path
from judge.reports.terminal import render_table
from judge.schemas import Action, Label, VerifyRequest, VerifyResponse

logger = logging.getLogger(__name__)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("verify", help="verify an answer against its evidence")
    parser.add_argument(
        "request",
        type=Path,
        help="request JSON file (see schemas/request.json), or - to verify an answer read from "
        "standard input as it arrives (with --evidence)",
    )
    parser.add_argument(
        "--evidence",
        "-e",
        type=Path,
        help="with -: JSON, a list of passages or an object with 'evidence' (and 'question')",
    )
    parser.add_argument("--question", "-q", help="with -: the question the answer is for")
    parser.add_argument("--json", action="store_true", help="print the full response as JSON")
    parser.add_argument("--html", type=Path, help="also write a self-contained HTML report")
    parser.add_argument(
        "--progress",
        action="store_true",
        help="report claims judged on stderr even when it is not a terminal",
    )
    parser.add_argument(
        "--audit",
        action="store_true",
        help="record the run in the audit log, for `judge replay ID` (setting: audit_cli)",
    )
    parser.add_argument(
        "--audit-db", type=Path, help="audit log (default: $JUDGE_STATE_DIR/audit.sqlite3)"
    )
    add_judge_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    if str(args.request) == "-":
        if args.html:
            raise InputError(
                "--html needs a request file, not an answer read as it arrives", "html"
            )
        from judge.cli.verify_stream import run_stream

        return run_stream(args, settings)
    if args.evidence is not None or args.question is not None:
        raise InputError(
            "--evidence and --question go with -, the answer read from stdin", "evidence"
        )
    request = load_request(args.request)
    started = time.perf_counter()
    with recording() as seen:
        response, base_url = asyncio.run(_verify(request, settings, args))
    if args.audit or settings.audit_cli:
        # Written before anything is shown, as the service does: a result someone saw has a
        # record. A log that cannot be written withholds the result, as a verifier error.
        try:
            _record(request, response, settings, args.audit_db, time.perf_counter() - started)
        except AuditError as exc:
            print(
                f"judge: verifier error: audit log unavailable, result withheld: {exc}",
                file=sys.stderr,
            )
            return EXIT_VERIFIER_ERROR
    if args.json:
        print(response.model_dump_json(indent=2))
    else:
        render_table(response, sys.stdout)
    if args.html:
        from judge.reports.html import write_report

        write_report(args.html, request, response)
        say_report_written(args.html)
    code = exit_code(response)
    _keep_output(args, settings, response, code, seen, base_url)
    return code


async def _verify(
    request: VerifyRequest, settings: Settings, args: argparse.Namespace
) -> tuple[VerifyResponse, str | None]:
    """The response, and the judge's base URL(s) when the run checked the judge answers."""
    from judge.pipeline.runner import verify

    if args.no_judge:
        with claims_progress(wanted(args.progress)):
            return await verify(request, settings), None
    from judge.cli.preflight import resolve_reachable
    from judge.pipeline.entail.connect import open_judge_or_unavailable

    settings = await resolve_reachable(settings)
    async with open_judge_or_unavailable(settings) as judge:
        with claims_progress(wanted(args.progress)):
            return await verify(request, settings, judge=judge), settings.base_url


def _record(
    request: VerifyRequest,
    response: VerifyResponse,
    settings: Settings,
    path: Path | None,
    latency_s: float,
) -> None:
    from judge.audit.log import AuditLog, default_audit_path

    with AuditLog.open(path or default_audit_path(settings)) as audit:
        audit.record(request, response, kind="verify", latency_s=latency_s)


def exit_code(response: VerifyResponse) -> int:
    if response.limits_exceeded:
        print(f"judge: error: {response.limits_exceeded[0]}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    if any(v.label is Label.VERIFIER_ERROR for v in response.verdicts):
        return EXIT_VERIFIER_ERROR
    return EXIT_PASS if response.action is Action.PASS else EXIT_NOT_PASSED


def _keep_output(
    args: argparse.Namespace,
    settings: Settings,
    response: VerifyResponse,
    code: int,
    seen: Mapping[str, str | None],
    base_url: str | None,
) -> None:
    """Keep what this run printed for an identical run to replay (see output_cache)."""
    key: str | None = getattr(args, "output_key", None)
    if key is None or code not in (EXIT_PASS, EXIT_NOT_PASSED) or not settings.cache_enabled:
        return
    if args.html or args.audit or settings.audit_cli:
        return
    if settings.cache_dir.resolve() != output_cache.store_directory().resolve():
        return  # a state_dir from a config file: a repeat could not find it before loading it
    judged = any(v.judge is not None for v in response.verdicts)
    if judged and not seen:
        return  # judged, yet no cache entry was seen: nothing to tell a stale replay by
    if (judged or seen) and settings.base_url and not settings.model:
        return  # the model is asked of the server on each run: a replay could not see it change
    try:
        files = {
            str(path.resolve()): output_cache.file_digest(path) for path in _inputs(args, settings)
        }
    except OSError:
        return  # a request from a pipe or a device is read once
    shown = _replayed(response)
    style: output_cache.Style = "json" if args.json else "table"
    if args.json:
        text = shown.model_dump_json(indent=2) + "\n"
    else:
        capture = _Capture(sys.stdout)
        render_table(shown, capture)
        text = capture.getvalue()
    parts = output_cache.split_at_seconds(text, style, response.request_id)
    if parts is None:
        return
    entry = output_cache.StoredOutput(
        head=parts[0],
        tail=parts[1],
        seconds_style=style,
        request_id=response.request_id,
        exit_code=code,
        files=files,
        verdicts=dict(seen),
        # The pipeline asks the judge to answer before each run; a replay asks the same.
        endpoints=[u.strip() for u in (base_url or "").split(",") if u.strip()],
        probe_timeout_s=settings.connect_timeout_s,
    )
    try:
        output_cache.save(key, entry)
    except Exception as exc:  # the kept output only spares a repeat; this run's result stands
        logger.warning("the output was not kept for a repeated run: %s", exc)


def _inputs(args: argparse.Namespace, settings: Settings) -> list[Path]:
    """The files a run reads besides the code: request, config and calibration."""
    config = config_path(args.config)
    return [Path(args.request), *([config] if config else []), calibration_path(settings)]


def _replayed(response: VerifyResponse) -> VerifyResponse:
    """``response`` as a repeat served from the cache shows it, its time printed as zero."""
    verdicts = [
        v if v.judge is None else v.model_copy(update={"judge": served_from_cache(v.judge)})
        for v in response.verdicts
    ]
    return response.model_copy(update={"verdicts": verdicts, "judge_calls": 0, "seconds": 0.0})


class _Capture(io.StringIO):
    """Text written as it would be to ``real``: a terminal's colours and width included."""

    def __init__(self, real: TextIO) -> None:
        super().__init__()
        self._real = real

    def isatty(self) -> bool:
        return self._real.isatty()

    def fileno(self) -> int:
        return self._real.fileno()
