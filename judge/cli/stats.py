"""`judge stats --since 7d`: actions, labels, verifier errors, failing sources and latency."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from judge.audit.log import AuditLog, parse_since
from judge.audit.stats import Stats, percentile
from judge.cli.audit import add_audit_options, audit_path
from judge.errors import InputError
from judge.reports.console import printable


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("stats", help="summarise the audit log")
    parser.add_argument(
        "--since", default="7d", help="ISO 8601 time, or a duration ago: 1h, 7d (default 7d)"
    )
    parser.add_argument("--kind", default="verify", help="records of this kind (default verify)")
    parser.add_argument("--top", type=int, default=10, help="failing sources to list")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    add_audit_options(parser)
    parser.set_defaults(run=run)


def collect(audit: AuditLog, since: str, kind: str | None) -> Stats:
    stats = Stats()
    for record in audit.iter_since(parse_since(since), kind=kind):
        if record.response is None:
            continue  # a step recorded without a verification holds nothing to count
        request = record.verify_request() if record.request is not None else None
        stats.add(request, record.verify_response(), record.latency_s)
    return stats


def run(args: argparse.Namespace) -> int:
    if args.top < 1:
        raise InputError("must be at least 1", field="top")
    with AuditLog.open(audit_path(args), create=False) as audit:
        stats = collect(audit, args.since, args.kind)
    if args.json:
        print(json.dumps(stats.to_json(args.top), indent=2, sort_keys=True))
    else:
        render(stats, args.since, args.top, sys.stdout)
    return 0


def render(stats: Stats, since: str, top: int, out: TextIO) -> None:
    out.write(f"answers since {since}: {stats.answers}\n")
    out.write(f"  by action: {_counts(stats.by_action)}\n")
    out.write(f"verdicts by label: {_counts(stats.by_label)}\n")
    out.write(f"verifier errors by class: {_counts(stats.errors_by_class)}\n")
    p50, p99 = percentile(stats.latencies, 50), percentile(stats.latencies, 99)
    if p50 is not None and p99 is not None:
        out.write(f"latency: p50 {p50:.3f} s, p99 {p99:.3f} s\n")
    ratio = stats.cache_hit_ratio
    if ratio is not None:
        out.write(f"cache hit ratio: {ratio:.2f} ({stats.cached} of {stats.judged} judged)\n")
    else:
        out.write("cache hit ratio: n/a (no judged verdicts)\n")
    sources = stats.top_sources(top)
    if not sources:
        out.write("failing sources: none\n")
        return
    out.write("top failing sources (failing claims / claims citing the source):\n")
    width = max(len(printable(r.source)) for r in sources)
    for r in sources:
        out.write(f"  {printable(r.source):<{width}}  {r.failing}/{r.claims}  {r.rate:.0%}\n")


def _counts(counter: dict[str, int]) -> str:
    if not counter:
        return "none"
    ordered = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
    return ", ".join(f"{printable(k)} {v}" for k, v in ordered)
