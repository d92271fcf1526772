"""A repeated `judge verify` after each thing its kept output was built from has changed.

Runs `judge verify --json REQUEST` as fresh processes against the running embedded judge (or
any judge named by JUDGE_BASE_URL and JUDGE_MODEL), in a new state directory, and changes one
input between runs: nothing, a verdict-cache entry rewritten, the verdict entries deleted, a
calibration file written, the request edited. Prints one JSON line per run: exit code, action,
judge calls, wall seconds and the labels.

    judge local up
    python -m benchmarks.faults.repeat_faults examples/refund_policy.json

Judge: the embedded judge, already running (``judge local up``), or the one ``JUDGE_BASE_URL``
and ``JUDGE_MODEL`` name. Time on the 2-core development machine: about a minute for the
refund example's seven runs (23 s for each run the judge decides, 0.2-1.4 s for the others;
FAILSAFE.md).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import diskcache

from benchmarks.common import local_judge_endpoint, timed_verify
from judge.judges.cache_store import STORE_SETTINGS


def _verify(request: Path, env: dict[str, str]) -> dict[str, Any]:
    done, wall = timed_verify(request, env)
    row: dict[str, Any] = {"exit": done.returncode, "wall_s": round(wall, 2)}
    try:
        response = json.loads(done.stdout)
    except ValueError:
        return {**row, "stderr": done.stderr.strip()[-200:]}
    return {
        **row,
        "action": response["action"],
        "judge_calls": response["judge_calls"],
        "labels": [v["label"] for v in response["verdicts"]],
    }


def _verdict_keys(store: diskcache.Cache) -> list[str]:
    return [k for k in store if not str(k).startswith("output:")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("request", type=Path)
    args = parser.parse_args()
    base_url = os.environ.get("JUDGE_BASE_URL", "")
    model = os.environ.get("JUDGE_MODEL", "")
    if not (base_url and model):
        local_url, model = local_judge_endpoint(model or None)
        base_url = base_url or local_url
    with tempfile.TemporaryDirectory(prefix="judge-repeat-faults-") as scratch:
        state = Path(scratch) / "state"
        request = Path(scratch) / "request.json"
        request.write_bytes(args.request.read_bytes())
        env = {
            **os.environ,
            "JUDGE_STATE_DIR": str(state),
            "JUDGE_BASE_URL": base_url,
            "JUDGE_MODEL": model,
        }

        def store() -> diskcache.Cache:
            return diskcache.Cache(str(state / "cache"), **STORE_SETTINGS)

        def rewrite_one_entry() -> None:
            with store() as cache:
                cache[_verdict_keys(cache)[0]] = '{"format": 1}'

        def delete_entries() -> None:
            with store() as cache:
                for key in _verdict_keys(cache):
                    del cache[key]

        def write_calibration() -> None:
            calibration = {"t_entail": 0.99, "t_contra": 0.5}
            (state / "calibration.json").write_text(json.dumps(calibration), encoding="utf-8")

        def edit_request() -> None:
            data = json.loads(request.read_text(encoding="utf-8"))
            data["answer"] = data["answer"].replace("14 days", "two weeks")
            request.write_text(json.dumps(data), encoding="utf-8")

        steps: list[tuple[str, Callable[[], None] | None]] = [
            ("first run", None),
            ("identical repeat", None),
            ("one verdict entry rewritten", rewrite_one_entry),
            ("verdict entries deleted, kept output left", delete_entries),
            ("identical repeat", None),
            ("calibration file written (t_entail 0.99)", write_calibration),
            ("request edited (14 days -> two weeks)", edit_request),
        ]
        for name, change in steps:
            if change is not None:
                change()
            print(json.dumps({"step": name, **_verify(request, env)}), flush=True)


if __name__ == "__main__":
    main()
