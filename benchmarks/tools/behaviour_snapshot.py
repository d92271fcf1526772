"""Snapshot what `judge verify --json` decides, to compare two versions of the code.

Runs the CLI on every file in `examples/` and on a fixed, stratified sample of dev claims (each
claim a structured request citing its record's passages), and writes one JSON line per request
with the action, labels, scores and evidence pointers: everything but timings, ids and cache
flags. Two snapshots taken before and after a change are compared with `--compare`.

    python -m benchmarks.tools.behaviour_snapshot --fake-judge \
        --out before.jsonl=/path/to/old/tree --out after.jsonl=/path/to/new/tree
    python -m benchmarks.tools.behaviour_snapshot --compare before.jsonl after.jsonl

Each ``--out FILE=TREE`` runs the CLI with ``PYTHONPATH=TREE`` (without ``=TREE``, the
installed package); several are interleaved request by request.

Judge: none with ``--fake-judge`` (the rule-based script of :mod:`judge.testing`'s fake server,
on loopback); else the embedded judge (or the one ``JUDGE_BASE_URL`` names). Time on the
2-core development machine: 55 requests on two trees with the fake judge, about 18 min with
other work running beside it (benchmarks/LAYOUT.md); with the embedded judge the run in
history/2026-12-01-layout.md was stopped after 22 pairs on a saturated machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.common import DEV_CLAIMS, ROOT
from judge.testing import FAKE_MODEL, FakeJudgeServer, run_fake_openai_server

VOLATILE = {
    "request_id",
    "seconds",
    "latency_s",
    "cached",
    "created_at",
    "fence",
    "nonce",
    "audit_id",
}


def dev_requests(count: int) -> list[tuple[str, dict[str, Any]]]:
    """Every n-th dev claim, so the sample spans every dataset and label."""
    records = [json.loads(line) for line in DEV_CLAIMS.read_text().splitlines() if line.strip()]
    step = max(1, len(records) // count)
    chosen = records[::step][:count]
    out: list[tuple[str, dict[str, Any]]] = []
    for record in chosen:
        # One passage, so records with many passages stay under the per-claim citation cap
        # and reach the judge.
        text = "\n\n".join(e["text"] for e in record["evidence"])
        request = {
            "evidence": [{"id": "E1", "text": text}],
            "claims": [{"text": record["claim"], "chunk_id": "E1"}],
        }
        out.append((f"dev:{record['id']}", request))
    return out


def strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: strip(v) for k, v in sorted(value.items()) if k not in VOLATILE}
    if isinstance(value, list):
        return [strip(v) for v in value]
    if isinstance(value, float):
        return round(value, 4)
    return value


def run_cli(path: Path, env: dict[str, str]) -> dict[str, Any]:
    """`judge verify --json` on one request file, as a user runs it."""
    proc = subprocess.run(
        ["judge", "verify", "--json", str(path)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        body: dict[str, Any] = json.loads(proc.stdout)
    except json.JSONDecodeError:
        body = {"stdout": proc.stdout[-500:], "stderr": proc.stderr[-500:]}
    return {"exit": proc.returncode, "response": strip(body)}


def snapshot(
    outs: list[tuple[Path, str | None]], dev_count: int, judge_env: dict[str, str]
) -> None:
    """Run every request under each (output file, PYTHONPATH) in turn, request by request, so
    two versions of the code see the same machine and the same judge server."""
    jobs: list[tuple[str, Path]] = [
        (f"example:{p.name}", p) for p in sorted((ROOT / "examples").glob("*.json"))
    ]
    tmp = Path(tempfile.mkdtemp())
    for name, request in dev_requests(dev_count):
        path = tmp / (name.replace(":", "_").replace("/", "_") + ".json")
        path.write_text(json.dumps(request))
        jobs.append((name, path))
    # No verdict cache (a run served from the last one would compare nothing), and a generous
    # timeout: a slow, shared machine must not turn into verifier errors.
    base = {**os.environ, "JUDGE_CACHE_ENABLED": "false", "JUDGE_TIMEOUT_S": "900", **judge_env}
    sinks = [out.open("w") for out, _ in outs]
    try:
        for number, (name, path) in enumerate(jobs, start=1):
            for sink, (_, pythonpath) in zip(sinks, outs, strict=True):
                env = dict(base)
                if pythonpath:
                    env["PYTHONPATH"] = pythonpath
                else:
                    env.pop("PYTHONPATH", None)
                result = run_cli(path, env)
                sink.write(json.dumps({"name": name, **result}, sort_keys=True) + "\n")
                sink.flush()
                print(f"{number}/{len(jobs)} {name}: exit {result['exit']}", file=sys.stderr)
    finally:
        for sink in sinks:
            sink.close()


def decisions(row: dict[str, Any]) -> dict[str, Any]:
    """What a user acts on: the exit code, the action, and per claim its text, label, evidence
    pointers and check outcomes. Scores are compared apart: each run (a process) fences its prompts
    with its own nonce, so the judge's probabilities move in the last digits between runs."""
    response = row["response"]
    return {
        "exit": row["exit"],
        "action": response.get("action"),
        "claims": [
            {
                "text": v["claim"]["text"],
                "label": v["label"],
                "evidence": [(e["passage_id"], e["start"], e["end"]) for e in v["evidence"]],
                "checks": [(c["check"], c["status"]) for c in v["checks"]],
            }
            for v in response.get("verdicts", [])
        ],
    }


def scores(row: dict[str, Any]) -> list[float]:
    return [v["score"] for v in row["response"].get("verdicts", []) if v.get("score") is not None]


def compare(before: Path, after: Path) -> int:
    def load(path: Path) -> dict[str, Any]:
        rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        return {row["name"]: row for row in rows}

    old, new = load(before), load(after)
    missing = [name for name in old if name not in new]
    differing = [n for n in old if n in new and decisions(old[n]) != decisions(new[n])]
    deltas = [
        abs(a - b)
        for n in old
        if n in new
        for a, b in zip(scores(old[n]), scores(new[n]), strict=False)
    ]
    verdicts = sum(len(decisions(row)["claims"]) for row in old.values())
    print(
        f"{len(old)} requests, {verdicts} verdicts compared: {len(differing)} requests differ "
        f"in action, label, evidence or checks; {len(missing)} missing"
    )
    if deltas:
        print(
            f"P(supported): {len(deltas)} scores, mean |difference| "
            f"{sum(deltas) / len(deltas):.4f}, largest {max(deltas):.4f}"
        )
    for name in differing:
        print(f"  differs: {name}: {decisions(old[name])} -> {decisions(new[name])}")
    return 1 if differing or missing else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out",
        action="append",
        default=[],
        metavar="FILE[=PYTHONPATH]",
        help="a snapshot file, optionally with the source tree to run (repeat to interleave)",
    )
    parser.add_argument("--dev", type=int, default=50, help="dev claims to include")
    parser.add_argument(
        "--fake-judge",
        action="store_true",
        help="judge with judge.testing's rule-based fake judge on loopback (deterministic, "
        "fast) instead of the embedded model",
    )
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    if not args.out:
        parser.error("--out or --compare is required")
    outs: list[tuple[Path, str | None]] = []
    for item in args.out:
        file, _, pythonpath = item.partition("=")
        outs.append((Path(file), pythonpath or None))
    if not args.fake_judge:
        snapshot(outs, args.dev, {})
        return 0
    with run_fake_openai_server(FakeJudgeServer().handler) as base_url:
        snapshot(outs, args.dev, {"JUDGE_BASE_URL": base_url, "JUDGE_MODEL": FAKE_MODEL})
    return 0


if __name__ == "__main__":
    sys.exit(main())
