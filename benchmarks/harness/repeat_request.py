"""An identical request verified again: the first `judge verify` against its repeats.

Each run is a fresh `judge verify --json REQUEST` process, as a user or a script runs it. The
first one starts from an empty verdict cache (a new `JUDGE_STATE_DIR`); the repeats reuse it.
Every run goes to the embedded judge already running (`judge local up` first), named by its
URL and model id as the embedded judge names it, so no run pays for starting a server.

    judge local up
    python -m benchmarks.harness.repeat_request examples/refund_policy.json --repeats 5

Judge: the embedded judge, already running (``judge local up``). Time on the 2-core
development machine: 17-21 s for the first run of the refund example, 0.12-0.17 s per
replayed repeat and 1.1-1.4 s per run from the verdict cache (seventh round, RESULTS.md):
about a minute with ``--repeats 5``.

Prints one JSON line per run (wall seconds of the process, the seconds the response reports,
judge calls) and a summary: the first run over the median repeat, by wall clock and by the
response's own time. An identical repeat prints the output `judge verify` kept from the first
run (judge/cli/output_cache.py) without loading the pipeline. For comparison, the same request
is then run through the pipeline from the verdict cache: each of those runs sets a variable of
its own, so its command is not identical and the kept output does not apply.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.common import local_judge_endpoint, timed_verify


def run_once(request: Path, env: dict[str, str]) -> dict[str, Any]:
    done, wall = timed_verify(request, env)
    if done.returncode not in (0, 1):
        raise SystemExit(f"judge verify exited {done.returncode}: {done.stderr.strip()}")
    response = json.loads(done.stdout)
    return {
        "wall_s": round(wall, 3),
        "verify_s": round(float(response["seconds"]), 3),
        "judge_calls": int(response["judge_calls"]),
        "action": response["action"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("request", type=Path)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    base_url, model = local_judge_endpoint(None)
    with tempfile.TemporaryDirectory(prefix="judge-repeat-") as state_dir:
        env = {
            **os.environ,
            "JUDGE_STATE_DIR": state_dir,
            "JUDGE_BASE_URL": base_url,
            "JUDGE_MODEL": model,
        }
        first = run_once(args.request, env)
        print(json.dumps({"run": "first", **first}), flush=True)
        repeats = []
        for index in range(args.repeats):
            row = run_once(args.request, env)
            print(json.dumps({"run": f"repeat {index + 1}", **row}), flush=True)
            repeats.append(row)
        piped = []
        for index in range(args.repeats):
            row = run_once(args.request, {**env, "REPEAT_REQUEST_RUN": str(index)})
            print(json.dumps({"run": f"through the pipeline {index + 1}", **row}), flush=True)
            piped.append(row)
    wall = statistics.median(r["wall_s"] for r in repeats)
    verify = statistics.median(r["verify_s"] for r in repeats)
    summary: dict[str, Any] = {
        "first_wall_s": first["wall_s"],
        "first_verify_s": first["verify_s"],
        "repeat_median_wall_s": wall,
        "repeat_median_verify_s": verify,
        "speedup_wall": round(first["wall_s"] / wall, 1),
        "speedup_verify": round(first["verify_s"] / max(verify, 1e-3), 1),
        "repeat_judge_calls": sorted({r["judge_calls"] for r in repeats}),
        "pipeline_median_wall_s": statistics.median(r["wall_s"] for r in piped),
        "pipeline_median_verify_s": statistics.median(r["verify_s"] for r in piped),
        "pipeline_judge_calls": sorted({r["judge_calls"] for r in piped}),
    }
    print(json.dumps({"summary": summary}), flush=True)


if __name__ == "__main__":
    main()
