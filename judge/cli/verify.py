"""`judge verify REQUEST.json`: verify one answer and print the verdicts and the action."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

from judge.cli.app import EXIT_INPUT_ERROR, EXIT_NOT_PASSED, EXIT_PASS, EXIT_VERIFIER_ERROR
from judge.cli.common import add_judge_options, settings_from_args
from judge.cli.progress import claims_progress, wanted
from judge.config import Settings
from judge.errors import AuditError
from judge.pipeline.inputs import load_request
from judge.reports.terminal import render_table
from judge.schemas import Action, Label, VerifyRequest, VerifyResponse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("verify", help="verify an answer against its evidence")
    parser.add_argument("request", type=Path, help="request JSON file (see schemas/request.json)")
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
    request = load_request(args.request)
    started = time.perf_counter()
    response = asyncio.run(_verify(request, settings, args))
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
    return exit_code(response)


async def _verify(
    request: VerifyRequest, settings: Settings, args: argparse.Namespace
) -> VerifyResponse:
    from judge.pipeline.runner import verify

    if not args.no_judge:
        from judge.cli.preflight import resolve_reachable

        await resolve_reachable(settings)
    with claims_progress(wanted(args.progress)):
        return await verify(request, settings, use_judge=not args.no_judge)


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
