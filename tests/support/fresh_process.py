"""`judge verify --json` in a fresh interpreter, reporting which modules the run loaded."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_SCRIPT = """
import json, sys
from judge.cli.app import main
code = main(["verify", "--json", sys.argv[1]])
loaded = sorted(m for m in json.loads(sys.argv[2]) if m in sys.modules)
print(json.dumps({"code": code, "loaded": loaded}), file=sys.stderr)
"""


@dataclass(frozen=True)
class FreshRun:
    code: int
    loaded: list[str]  # those of the watched modules the run imported
    response: dict[str, Any]


def verify_in_fresh_process(
    request: Path, env: Mapping[str, str], watched: Sequence[str]
) -> FreshRun:
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(request), json.dumps(list(watched))],
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return FreshRun(int(report["code"]), list(report["loaded"]), json.loads(done.stdout))
