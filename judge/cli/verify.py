"""`judge verify REQUEST.json`: verify one answer and print the verdicts and the action."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from judge.cli.app import EXIT_INPUT_ERROR, EXIT_NOT_PASSED, EXIT_PASS, EXIT_VERIFIER_ERROR
from judge.cli.common import add_judge_options, settings_from_args
from judge.pipeline.inputs import load_request
from judge.pipeline.runner import verify
from judge.reports.terminal import render_table
from judge.schemas import Action, Label, VerifyResponse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("verify", help="verify an answer against its evidence")
    parser.add_argument("request", type=Path, help="request JSON file (see schemas/request.json)")
    parser.add_argument("--json", action="store_true", help="print the full response as JSON")
    parser.add_argument("--html", type=Path, help="also write a self-contained HTML report")
    add_judge_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    request = load_request(args.request)
    response = asyncio.run(verify(request, settings, use_judge=not args.no_judge))
    if args.json:
        print(response.model_dump_json(indent=2))
    else:
        render_table(response, sys.stdout)
    if args.html:
        from judge.reports.html import write_report

        write_report(args.html, request, response)
    return exit_code(response)


def exit_code(response: VerifyResponse) -> int:
    if response.limits_exceeded:
        print(f"judge: error: {response.limits_exceeded[0]}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    if any(v.label is Label.VERIFIER_ERROR for v in response.verdicts):
        return EXIT_VERIFIER_ERROR
    return EXIT_PASS if response.action is Action.PASS else EXIT_NOT_PASSED
