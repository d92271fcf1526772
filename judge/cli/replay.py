"""`judge replay ID`: re-run a logged request against the current judge and list what changed.

The judge is asked again: the verdict cache is neither read nor written unless ``--cache`` is
given, since cached verdicts would hide exactly the changes a replay is for. Exit 0 when every
verdict label and the action are unchanged, 1 when any changed, 3 when the record is missing
or fails its integrity check, 4 when the judge could not answer (every claim a verifier error:
an outage, not a regression). The replay is itself recorded (kind ``replay``, with the id it
replayed), unless it was an outage.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from judge.audit.log import AuditLog
from judge.cli.app import EXIT_NOT_PASSED, EXIT_PASS
from judge.cli.audit import audit_path
from judge.cli.common import add_judge_options, settings_from_args
from judge.config import Settings
from judge.errors import AuditError, InputError, JudgeUnavailable
from judge.pipeline.entail.connect import judge_for_run
from judge.pipeline.runner import verify
from judge.protocols import Judge
from judge.reports.console import printable
from judge.schemas import Label, VerifyResponse


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("replay", help="re-run a logged request and show changed verdicts")
    parser.add_argument("id", help="record id (the response's request_id)")
    parser.add_argument(
        "--audit-db", type=Path, help="audit log (default: $JUDGE_STATE_DIR/audit.sqlite3)"
    )
    parser.add_argument("--no-record", action="store_true", help="do not log the replay")
    parser.add_argument(
        "--cache", action="store_true", help="allow cached verdicts (default: ask the judge again)"
    )
    add_judge_options(parser)
    parser.set_defaults(run=run)


@dataclass(frozen=True)
class Change:
    claim_id: str
    before: str | None  # None: the claim did not exist
    after: str | None
    claim: str


def compare(before: VerifyResponse, after: VerifyResponse) -> list[Change]:
    """Label changes by claim id, claims that appeared or vanished, and the action."""
    old = {v.claim.id: v for v in before.verdicts}
    new = {v.claim.id: v for v in after.verdicts}
    changes: list[Change] = []
    for claim_id in [*old, *(k for k in new if k not in old)]:
        a, b = old.get(claim_id), new.get(claim_id)
        label_a = a.label.value if a else None
        label_b = b.label.value if b else None
        text_a = a.claim.text if a else None
        text_b = b.claim.text if b else None
        if label_a != label_b or text_a != text_b:
            changes.append(Change(claim_id, label_a, label_b, text_b or text_a or ""))
    if before.action is not after.action:
        changes.append(Change("(action)", before.action.value, after.action.value, ""))
    return changes


@dataclass(frozen=True)
class Replay:
    record_id: str
    before: VerifyResponse
    after: VerifyResponse
    changes: list[Change]


async def replay(
    audit: AuditLog,
    record_id: str,
    settings: Settings,
    *,
    judge: Judge | None = None,
    use_judge: bool = True,
    record: bool = True,
) -> Replay:
    """Verify a logged request again and compare; the replay is logged unless ``record`` is
    false."""
    logged = audit.get(record_id)
    if logged is None:
        raise InputError(f"no record with id {record_id!r}", field="id")
    tampered = audit.check_record(record_id)
    if tampered is not None:
        raise AuditError(f"record {record_id} cannot be replayed: {tampered}")
    request = logged.verify_request()
    before = logged.verify_response()
    async with judge_for_run(settings, judge, use_judge=use_judge) as opened:
        after = await verify(request, settings, judge=opened)
    outage = _outage(after)
    if outage is not None:
        raise JudgeUnavailable(f"replay of {record_id} got no verdict from the judge: {outage}")
    changes = compare(before, after)
    if record:
        audit.record(
            request, after, kind="replay", extra={"replay_of": record_id, "changes": len(changes)}
        )
    return Replay(record_id, before, after, changes)


def _outage(after: VerifyResponse) -> str | None:
    """The judge's error when every claim is a verifier error, else ``None``."""
    if not after.verdicts or any(v.label is not Label.VERIFIER_ERROR for v in after.verdicts):
        return None
    return after.verdicts[0].error or after.verdicts[0].reason


def run(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    if not args.cache:
        settings = settings.model_copy(update={"cache_enabled": False})
    path = args.audit_db or audit_path(args)
    with AuditLog.open(path, create=False) as audit:
        result = asyncio.run(
            replay(audit, args.id, settings, use_judge=not args.no_judge, record=not args.no_record)
        )
    report(result, sys.stdout)
    return EXIT_NOT_PASSED if result.changes else EXIT_PASS


def report(result: Replay, out: TextIO) -> None:
    replay_id = result.after.request_id
    if not result.changes:
        out.write(f"{result.record_id}: no verdict changed (replay {replay_id})\n")
        return
    out.write(f"{result.record_id}: {len(result.changes)} change(s) (replay {replay_id})\n")
    for change in result.changes:
        before = change.before or "(absent)"
        after = change.after or "(absent)"
        # Claim ids and text come from the logged request: data, shown with escapes.
        suffix = f"  {printable(change.claim)}" if change.claim else ""
        out.write(f"  {printable(change.claim_id)}: {before} -> {after}{suffix}\n")
