"""Measurements behind benchmarks/AUDIT.md: the audit log under faults, -shm SIGBUS, a real full
disk, slow clients against `judge serve`, and replay against the real judge.

    python -m benchmarks.faults.audit_faults family     # the redteam audit-faults family
    python -m benchmarks.faults.audit_faults shm        # truncated read-only -shm: old vs new
    python -m benchmarks.faults.audit_faults disk       # a real full filesystem (root: tmpfs)
    python -m benchmarks.faults.audit_faults slow --clients 80 [--stock]
    python -m benchmarks.faults.audit_faults replay     # real judge: $JUDGE_BASE_URL, $JUDGE_MODEL

Each prints what it saw; nothing here is a timed assertion.

Judge: none but for ``replay`` (the rule-based judge, or no judge at all); ``replay`` needs a
real one. Time on the 2-core development machine (AUDIT.md): ``family`` 42 s; ``slow`` about
40 s (the clients' cap); ``replay`` 558 s to verify and record two claims and 162 s to replay
them from the cache, on a shared embedded judge; ``shm`` and ``disk``: not measured.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from benchmarks.common import ROOT

REQUEST: dict[str, Any] = {
    "evidence": [
        {
            "id": "P1",
            "source": "docs/policy.md",
            "text": "Unopened items may be returned within 30 days of delivery for a refund.",
        },
        {
            "id": "T1",
            "source": "docs/timing.md",
            "text": "Refunds are issued within 5 to 7 business days after the item is received.",
        },
    ],
    "claims": [
        {"text": "Unopened items may be returned within 30 days.", "chunk_id": "P1"},
        {"text": "Refunds are issued within 5 to 7 business days.", "chunk_id": "T1"},
    ],
}


def family(_: argparse.Namespace) -> None:
    from rich.console import Console

    from judge.config import Settings
    from judge.redteam import audit_faults

    started = time.perf_counter()
    runs = audit_faults.run_all(Settings())
    audit_faults.render(runs, Console(width=200, highlight=False))
    for run in runs:
        print(f"- {run.fault}: service said {run.detail or 'HTTP 200'!r}")
    print(f"{len(runs)} faults in {time.perf_counter() - started:.1f} s")


_SHM_CHILD = r"""
import os, sqlite3, sys
kind, directory = sys.argv[1], sys.argv[2]
def break_shm(path):
    shm = path + "-shm"
    if os.path.exists(shm):
        os.truncate(shm, 0)
        os.chmod(shm, 0o400)
if kind in ("audit-wal", "audit-new"):
    if kind == "audit-wal":  # the pragmas of the previous release
        conn = sqlite3.connect(os.path.join(directory, "a.db"), isolation_level=None)
        conn.execute("PRAGMA journal_mode = WAL")
        write = lambda i: conn.execute("INSERT INTO t VALUES (?)", (i,))
        conn.execute("CREATE TABLE t (x)")
    else:
        sys.path.insert(0, sys.argv[3])
        from judge.audit.log import AuditLog
        from judge.schemas import (
            Action, Claim, ClaimVerdict, Label, Passage, VerifyRequest, VerifyResponse,
        )
        def make_pair(rid):
            text = "Unopened items can be returned within 30 days."
            request = VerifyRequest(
                evidence=[Passage(id="S1", text="Unopened items may be returned within 30 days.")],
                answer=text + " [S1]",
            )
            claim = Claim(id="c1", text=text, citations=("S1",))
            response = VerifyResponse(
                request_id=rid, action=Action.PASS, ledger_hash="sha256:" + "b" * 64,
                verdicts=[ClaimVerdict(claim=claim, label=Label.SUPPORTED, score=0.93)],
            )
            return request, response
        log = AuditLog.open(os.path.join(directory, "a.db"))
        write = lambda i: log.record(*make_pair(f"r{i}"))
    write(0)
    break_shm(os.path.join(directory, "a.db"))
    for i in range(1, 20):
        write(i)
else:
    import diskcache
    if kind == "cache-default":
        store = diskcache.Cache(directory)
    else:
        sys.path.insert(0, sys.argv[3])
        from judge.judges.cache_store import STORE_SETTINGS
        store = diskcache.Cache(directory, **STORE_SETTINGS)
    store.set("k0", "v")
    break_shm(os.path.join(directory, "cache.db"))
    for i in range(1, 20):
        store.set(f"k{i}", "v" * 100)
print("20 writes done")
"""


def shm(_: argparse.Namespace) -> None:
    for kind in ("audit-wal", "audit-new", "cache-default", "cache-new"):
        with tempfile.TemporaryDirectory() as directory:
            done = subprocess.run(
                [sys.executable, "-c", _SHM_CHILD, kind, directory, str(ROOT)],
                capture_output=True,
                text=True,
                cwd=ROOT,
            )
        code = done.returncode
        what = f"killed by signal {-code}" if code < 0 else f"exit {code}"
        print(f"{kind:14} {what:22} {done.stdout.strip() or done.stderr.strip()[-120:]}")


def disk(args: argparse.Namespace) -> None:
    import httpx
    from fastapi.testclient import TestClient

    from judge.audit.log import AuditLog
    from judge.config import Settings
    from judge.pipeline.entail.llm_judge import build_http_judge
    from judge.service.app import ServeOptions, create_app
    from judge.testing.rule_judge import FAKE_BASE_URL, FAKE_MODEL, RuleJudge

    mount = Path(tempfile.mkdtemp(prefix="judge-small-fs-"))
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={args.size_kib}k", "tmpfs", str(mount)], check=True
    )
    try:
        settings = Settings(
            state_dir=mount, base_url=FAKE_BASE_URL, model=FAKE_MODEL, http_retries=0,
            cache_enabled=False,
        )  # fmt: skip
        judge = build_http_judge(
            settings, http_client=httpx.AsyncClient(transport=RuleJudge().transport)
        )
        path = mount / "audit.sqlite3"
        app = create_app(settings, ServeOptions(audit_path=path), judge=judge)
        released: list[str] = []
        statuses: dict[int, int] = {}
        with TestClient(app) as client:
            first_refusal = ""
            not_ready_at: int | None = None
            for n in range(args.requests):
                if not_ready_at is None and client.get("/readyz").status_code == 503:
                    not_ready_at = n
                reply = client.post("/v1/verify", json=REQUEST)
                statuses[reply.status_code] = statuses.get(reply.status_code, 0) + 1
                if reply.status_code == 200:
                    released.append(reply.json()["request_id"])
                elif not first_refusal:
                    first_refusal = f"request {n + 1}: {reply.json()['detail']}"
            ready = client.get("/readyz")
        with AuditLog.open(path, create=False) as log:
            recorded = sum(log.get(rid) is not None for rid in released)
            chain = log.verify_chain()
        print(f"tmpfs {args.size_kib} KiB, {args.requests} requests: statuses {statuses}")
        print(f"200s recorded: {recorded}/{len(released)}; chain intact: {chain.intact}")
        print(f"/readyz first 503 before request {not_ready_at}; first 503: {first_refusal}")
        print(f"/readyz {ready.status_code}: {ready.json()['checks'].get('audit')}")
    finally:
        subprocess.run(["umount", str(mount)], check=False)
        mount.rmdir()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


_STOCK_SERVER = r"""
import sys, uvicorn
sys.path.insert(0, sys.argv[3])
from judge.config import load_settings
from judge.service.app import ServeOptions, create_app
app = create_app(load_settings(), ServeOptions(audit_path=sys.argv[2], use_judge=False))
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""


def slow(args: argparse.Namespace) -> None:
    port = _free_port()
    state = tempfile.mkdtemp(prefix="judge-slow-")
    audit = os.path.join(state, "audit.sqlite3")
    code = str(args.code or ROOT)
    env = {**os.environ, "JUDGE_STATE_DIR": state, "PYTHONPATH": code}
    if args.stock:
        argv = [sys.executable, "-c", _STOCK_SERVER, str(port), audit, code]
    else:
        argv = [sys.executable, "-m", "judge", "serve", "--port", str(port), "--no-judge",
                "--audit-db", audit]  # fmt: skip
    server = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        results: dict[str, list[float]] = {"slow headers": [], "slow body": []}
        lock = threading.Lock()

        def client(kind: str) -> None:
            if kind == "slow headers":
                first, drip = b"POST /v1/verify HTTP/1.1\r\n", b"X-Slow: 1\r\n"
            else:
                first = (
                    b"POST /v1/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    b"Content-Length: 100000\r\n\r\n"
                )
                drip = b" "
            started = time.monotonic()
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
                    conn.sendall(first)
                    conn.settimeout(args.gap)
                    while time.monotonic() - started < args.cap:
                        try:
                            if conn.recv(65536) == b"":
                                break
                        except TimeoutError:
                            pass
                        try:
                            conn.sendall(drip)
                        except OSError:
                            break
            except OSError:
                pass
            with lock:
                results[kind].append(time.monotonic() - started)

        threads = [
            threading.Thread(target=client, args=(kind,))
            for kind in results
            for _ in range(args.clients)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        label = f"uvicorn.run of {code}" if args.stock else "judge serve (10 s bounds)"
        for kind, held in results.items():
            cut = sum(h < args.cap - 0.5 for h in held)
            print(
                f"{label}: {kind}: {len(held)} clients, held min {min(held):.1f} s, "
                f"median {statistics.median(held):.1f} s, max {max(held):.1f} s; "
                f"{cut} disconnected before the {args.cap:g} s cap"
            )
    finally:
        server.terminate()
        server.wait(10)


def replay_real(args: argparse.Namespace) -> None:
    from judge.audit.log import AuditLog
    from judge.cli.replay import replay
    from judge.config import load_settings
    from judge.inputs.request import parse_request
    from judge.pipeline.runner import verify

    settings = load_settings()
    with tempfile.TemporaryDirectory() as state:
        # The shared judge can be slow: a long per-call timeout, one claim at a time.
        update = {"state_dir": Path(state), "cache_enabled": True, "timeout_s": 300.0,
                  "concurrency": 1}  # fmt: skip
        settings = settings.model_copy(update=update)
        request = parse_request({**REQUEST, "claims": REQUEST["claims"][: args.claims]})
        started = time.perf_counter()
        first = asyncio.run(verify(request, settings))
        print(f"recorded verify: {time.perf_counter() - started:.2f} s, "
              f"labels {[v.label.value for v in first.verdicts]}")  # fmt: skip
        with AuditLog.open(Path(state) / "audit.sqlite3") as log:
            log.record(request, first)
            rid = first.request_id
            for label, cache in (("--cache", True), ("default", False)):
                run_settings = settings.model_copy(update={"cache_enabled": cache})
                started = time.perf_counter()
                try:
                    result = asyncio.run(replay(log, rid, run_settings, record=False))
                except Exception as exc:
                    print(f"replay {label}: {type(exc).__name__}: {exc}")
                    continue
                calls = sum(v.judge.calls for v in result.after.verdicts if v.judge)
                cached = [bool(v.judge and v.judge.cached) for v in result.after.verdicts]
                print(
                    f"replay {label}: {time.perf_counter() - started:.2f} s, judge calls {calls}, "
                    f"cached {cached}, changes {len(result.changes)}"
                )
            dead = settings.model_copy(
                update={"base_url": "http://127.0.0.1:9/v1", "cache_enabled": False}
            )
            try:
                asyncio.run(replay(log, rid, dead, record=False))
                print("dead judge: no error (unexpected)")
            except Exception as exc:
                print(f"dead judge: {type(exc).__name__}: {exc}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("family").set_defaults(run=family)
    sub.add_parser("shm").set_defaults(run=shm)
    small = sub.add_parser("disk")
    small.add_argument("--size-kib", type=int, default=1600)
    small.add_argument("--requests", type=int, default=600)
    small.set_defaults(run=disk)
    slow_parser = sub.add_parser("slow")
    slow_parser.add_argument("--clients", type=int, default=80, help="of each kind")
    slow_parser.add_argument("--gap", type=float, default=1.0, help="seconds between bytes")
    slow_parser.add_argument("--cap", type=float, default=40.0, help="client gives up after")
    slow_parser.add_argument("--stock", action="store_true", help="the previous uvicorn setup")
    slow_parser.add_argument(
        "--code", type=Path, help="with --stock: a checkout of the previous release to serve"
    )
    slow_parser.set_defaults(run=slow)
    real = sub.add_parser("replay")
    real.add_argument("--claims", type=int, default=2, help="claims of the request (1 or 2)")
    real.set_defaults(run=replay_real)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
