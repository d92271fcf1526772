"""`examples/multi_hop.json` against a judge whose replies carry a score fault, through the CLI
(`judge verify`, a subprocess on a loopback server) and through POST /v1/verify (the service in
process). The judge is the red-team fake in its permissive mode: it supports every claim, so the
answer passes unless a verdict without a readable score is refused.

    python -m benchmarks.faults.score_faults   # prints the table in benchmarks/FAILSAFE.md

Judge: none (the red team's rule-based judge, on a loopback server of :mod:`judge.testing`).
Time on the 2-core development machine: not measured (seconds).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from starlette.testclient import TestClient

from benchmarks.common import ROOT
from judge.audit.log import AuditLog
from judge.config import Settings
from judge.judges.transport import default_http_client
from judge.pipeline.entail.llm_judge import build_http_judge
from judge.service.app import ServeOptions, create_app
from judge.testing import run_fake_openai_server
from judge.testing.rule_judge import FAKE_MODEL, SCORE_FAULT_NAMES, RuleJudge, ScoreFault

EXAMPLE = ROOT / "examples" / "multi_hop.json"


def cli(base_url: str, state: Path, *extra: str) -> tuple[int, str]:
    env = {**os.environ, "JUDGE_STATE_DIR": str(state), "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-c", "from judge.cli.app import main; raise SystemExit(main())"]
    args = ["verify", str(EXAMPLE), "--base-url", base_url, "--model", FAKE_MODEL, "--no-cache"]
    done = subprocess.run([*argv, *args, *extra], capture_output=True, text=True, env=env)
    return done.returncode, done.stderr.strip()[-120:]


def post(
    fault: ScoreFault | None, state: Path, *, allow_label_only: bool = False
) -> tuple[int, str]:
    config = Settings(
        base_url="http://fake.invalid/v1",
        model=FAKE_MODEL,
        http_retries=0,
        cache_enabled=False,
        state_dir=state,
        allow_label_only=allow_label_only,
    )
    transport = RuleJudge(permissive=True, score_fault=fault).transport
    judge = build_http_judge(config, http_client=default_http_client(config, transport))
    audit = AuditLog.open(state / "audit.sqlite3")
    try:
        app = create_app(config, ServeOptions(), judge=judge, audit=audit)
        with TestClient(app) as client:
            reply = client.post("/v1/verify", content=EXAMPLE.read_bytes())
        body = reply.json()
        labels = sorted({v["label"] for v in body.get("verdicts", [])})
        return reply.status_code, f"{body.get('action')} ({', '.join(labels)})"
    finally:
        audit.close()


def main() -> None:
    print("| judge reply | CLI exit | POST /v1/verify |")
    print("| --- | ---: | --- |")
    for fault in (None, *SCORE_FAULT_NAMES):
        with tempfile.TemporaryDirectory() as tmp:
            state = Path(tmp)
            handler = RuleJudge(permissive=True, score_fault=fault).handler
            with run_fake_openai_server(handler) as url:
                code, _ = cli(url, state)
            status, outcome = post(fault, state)
        print(f"| {fault or 'scored (0.9)'} | {code} | {status} {outcome} |")
    with tempfile.TemporaryDirectory() as tmp:
        status, outcome = post("missing", Path(tmp), allow_label_only=True)
    print(f"| missing, allow_label_only=true | | {status} {outcome} |")


if __name__ == "__main__":
    main()
