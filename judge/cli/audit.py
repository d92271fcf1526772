"""`judge audit show ID`, `judge audit export` and `judge audit verify`: read the audit log.

``verify`` exits 0 when the hash chain holds, 1 naming the first broken link otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path
from typing import TextIO

from judge.audit.log import AuditLog, default_audit_path, parse_since
from judge.cli.app import EXIT_NOT_PASSED, EXIT_PASS
from judge.config import load_settings
from judge.errors import InputError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("audit", help="read the audit log")
    actions = parser.add_subparsers(dest="audit_command", required=True)

    show = actions.add_parser("show", help="print one record as JSON")
    show.add_argument("id", help="record id (the response's request_id)")
    add_audit_options(show)
    show.set_defaults(run=run_show)

    export = actions.add_parser("export", help="write records as JSON Lines, oldest first")
    export.add_argument("--since", help="ISO 8601 time, or a duration ago: 90s, 30m, 1h, 7d, 2w")
    export.add_argument("--kind", help="only records of this kind (verify, replay, answer_step)")
    export.add_argument("--out", type=Path, help="output file (default: standard output)")
    add_audit_options(export)
    export.set_defaults(run=run_export)

    check = actions.add_parser("verify", help="check the hash chain: exit 1 if tampered with")
    check.add_argument(
        "--expect-head", metavar="HASH", help="the head hash a previous verify printed"
    )
    add_audit_options(check)
    check.set_defaults(run=run_verify)


def add_audit_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, help="settings file (.toml or .json)")
    parser.add_argument(
        "--audit-db", type=Path, help="audit log (default: $JUDGE_STATE_DIR/audit.sqlite3)"
    )


def audit_path(args: argparse.Namespace) -> Path:
    path: Path | None = getattr(args, "audit_db", None)
    return path or default_audit_path(load_settings(getattr(args, "config", None)))


def run_show(args: argparse.Namespace) -> int:
    with AuditLog.open(audit_path(args), create=False) as audit:
        record = audit.get(args.id)
    if record is None:
        raise InputError(f"no record with id {args.id!r}", field="id")
    print(json.dumps(record.to_json(), indent=2, ensure_ascii=False))
    return 0


def run_export(args: argparse.Namespace) -> int:
    since = parse_since(args.since) if args.since else None
    with AuditLog.open(audit_path(args), create=False) as audit:
        if args.out is None:
            count = _write(audit, since, args.kind, sys.stdout)
        else:
            with args.out.open("w", encoding="utf-8") as out:
                count = _write(audit, since, args.kind, out)
            print(f"{count} records written to {args.out}", file=sys.stderr)
    return 0


def _write(audit: AuditLog, since: datetime | None, kind: str | None, out: TextIO) -> int:
    count = 0
    for record in audit.iter_since(since, kind=kind):
        out.write(json.dumps(record.to_json(), ensure_ascii=False, sort_keys=True) + "\n")
        count += 1
    return count


def run_verify(args: argparse.Namespace) -> int:
    with AuditLog.open(audit_path(args), create=False) as audit:
        report = audit.verify_chain()
        expected = args.expect_head
        anchored = expected is None or expected == report.head or audit.holds_hash(expected)
    if report.breaks:
        first = report.breaks[0]
        print(f"audit log tampered with: {first.describe()}")
        for more in report.breaks[1:]:
            print(f"  also: {more.describe()}")
        return EXIT_NOT_PASSED
    if not anchored:
        # Records logged after the expected head are fine; a head no longer in the chain
        # means the newest records were removed, or the chain was rewritten.
        print(f"audit log tampered with: head {expected} is no longer in the chain")
        return EXIT_NOT_PASSED
    print(f"audit log intact: {report.records} records, head {report.head}")
    return EXIT_PASS
