"""Scaling `judge batch` over a pool of judge replicas; results in benchmarks/SCALE.md.

Replicas are `benchmarks.tools.fake_replica` processes: a fixed latency per call and a bounded
number of calls at once, standing in for GPU replicas, so the numbers are ratios: how close to
linear throughput grows with replicas, and where the verifier's own CPU becomes the bound.

    python -m benchmarks.harness.scale throughput   # (a) 1, 2, 4, 8 replicas, local and Ray
    python -m benchmarks.harness.scale cpu          # (b) verifier CPU per claim, instant judge
    python -m benchmarks.harness.scale kill         # (c) one replica killed mid-run
    python -m benchmarks.harness.scale resume       # an interrupted batch resumed
    python -m benchmarks.harness.scale embedded --records 10 --gguf MODEL.gguf   # (d)
    python -m benchmarks.harness.scale all --json results.json

Records are dev claims (../shared/data/dev/dev_claims.jsonl) sent as uncited answers with the
search citation policy, the way logged traffic without citations would be checked; the
verdict cache is off so every claim is judged.

Judge: none for (a)-(c) and the resume run (the fake replicas); the embedded judge's weights
(``--gguf``) and its llama.cpp server for (d). Time on the 2-core development machine (shared,
load average 10 to 16; SCALE.md): (a) about 8 minutes for its eight runs of 400 records (local
engine 105 s with one replica to 19 s with eight, Ray 134 s to 34 s); (c) 15.6 s; (d) 473 s
and 646 s for its two set-ups; (b) and the resume run: not measured.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.common import DEV_CLAIMS, ROOT

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


# --- inputs and replicas -----------------------------------------------------------------------


def write_records(path: Path, count: int) -> Path:
    """``count`` requests built from dev claims (cycled, with distinct ids)."""
    claims = [json.loads(line) for line in DEV_CLAIMS.read_text(encoding="utf-8").splitlines()]
    with path.open("w", encoding="utf-8") as handle:
        for i in range(count):
            claim = claims[i % len(claims)]
            request = {"id": f"{claim['id']}#{i}", "evidence": claim["evidence"]}
            request["answer"] = claim["claim"]
            handle.write(json.dumps(request) + "\n")
    return path


@contextlib.contextmanager
def replicas(count: int, latency_s: float, slots: int) -> Iterator[list[tuple[str, int]]]:
    """``count`` fake replica processes; yields (base URL, pid) pairs."""
    command = [
        sys.executable, "-m", "benchmarks.tools.fake_replica",
        "--latency", str(latency_s), "--slots", str(slots),
    ]  # fmt: skip
    processes = [
        subprocess.Popen(
            command, cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        for _ in range(count)
    ]
    try:
        urls = []
        for process in processes:
            assert process.stdout is not None
            urls.append((process.stdout.readline().strip(), process.pid))
        yield urls
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
            process.wait()


def batch_settings(urls: list[str], state_dir: Path) -> Any:
    from judge.config import load_settings

    return load_settings(
        base_url=",".join(urls),
        model="fake-judge",
        citation_policy="search",
        cache_enabled=False,
        state_dir=state_dir,
    )


def run_once(
    records: Path,
    urls: list[str],
    work: Path,
    *,
    engine: str,
    concurrency: int,
    workers: int = 2,
    use_judge: bool = True,
) -> dict[str, Any]:
    """One in-process `judge batch` run; its summary plus wall and driver CPU seconds."""
    from judge.batch.job import BatchOptions, run_batch

    out = work / f"out-{engine}-{len(urls)}-{time.monotonic_ns()}.jsonl"
    options = BatchOptions(
        inputs=[str(records)],
        out=out,
        engine=engine,
        concurrency=concurrency,
        workers=workers,
        batch_size=concurrency,  # an actor verifies one batch at a time, all of it at once
        progress_every_s=1e9,
        use_judge=use_judge,
    )
    settings = batch_settings(urls, work / "state")
    started, cpu = time.perf_counter(), time.process_time()
    with open(os.devnull, "w") as devnull, contextlib.redirect_stderr(devnull):
        summary = run_batch(options, settings)
    result = summary.as_dict()
    result["wall_s"] = round(time.perf_counter() - started, 3)
    result["driver_cpu_s"] = round(time.process_time() - cpu, 3)
    result["rows"] = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return result


# --- (a) throughput ----------------------------------------------------------------------------


def warm_up(urls: list[str], work: Path) -> None:
    """One small run first, so imports and first-use set-up do not count in the measured ones."""
    run_once(write_records(work / "warm.jsonl", 20), urls, work, engine="local", concurrency=8)


def throughput(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    records = write_records(work / "records.jsonl", args.records)
    out: dict[str, Any] = {"latency_s": args.latency, "slots": args.slots, "runs": []}
    counts = [int(n) for n in args.replicas.split(",")]
    with replicas(max(counts), args.latency, args.slots) as pool:
        urls = [url for url, _ in pool]
        warm_up(urls, work)
        for engine in args.engines.split(","):
            for count in counts:
                concurrency = args.concurrency if engine == "local" else args.concurrency // 2
                run = run_once(records, urls[:count], work, engine=engine, concurrency=concurrency)
                calls_per_record = run["judge_calls"] / max(run["records"], 1)
                ideal = count * args.slots / args.latency / max(calls_per_record, 1e-9)
                rate = run["steady_records_per_s"] or run["records_per_s"]
                entry = {
                    "engine": engine,
                    "replicas": count,
                    "records": run["records"],
                    "errors": run["errors"],
                    "judge_calls": run["judge_calls"],
                    "seconds": run["seconds"],
                    "records_per_s": run["records_per_s"],
                    "steady_records_per_s": rate,
                    "ideal_records_per_s": round(ideal, 2),
                    "driver_cpu_share": round(run["driver_cpu_s"] / run["wall_s"], 2),
                }
                out["runs"].append(entry)
                print(json.dumps(entry), file=sys.stderr)
    return out


# --- (b) CPU per claim -------------------------------------------------------------------------


def cpu(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    records = write_records(work / "records-cpu.jsonl", args.records)
    with replicas(1, 0.0, 256) as pool:
        warm_up([pool[0][0]], work)
        run = run_once(records, [pool[0][0]], work, engine="local", concurrency=16)
        exact = run_once(
            records, [pool[0][0]], work, engine="local", concurrency=16, use_judge=False
        )
    judged = sum(1 for row in run["rows"] for v in row["verdicts"] if v.get("judge"))
    claims = sum(len(row["verdicts"]) for row in run["rows"])
    cpu_s = run["driver_cpu_s"]
    return {
        "records": run["records"],
        "claims": claims,
        "judged_claims": judged,
        "judge_calls": run["judge_calls"],
        "driver_cpu_s": cpu_s,
        "wall_s": run["wall_s"],
        "cpu_ms_per_record": round(1000 * cpu_s / run["records"], 2),
        # The same records with --no-judge: parsing, checks, alignment and policy only.
        "no_judge_cpu_ms_per_record": round(1000 * exact["driver_cpu_s"] / exact["records"], 2),
        "cpu_ms_per_claim": round(1000 * cpu_s / max(claims, 1), 2),
        "cpu_ms_per_judge_call": round(1000 * cpu_s / max(run["judge_calls"], 1), 2),
        "claims_per_core_s": round(claims / cpu_s, 1) if cpu_s else None,
        "judge_calls_per_core_s": round(run["judge_calls"] / cpu_s, 1) if cpu_s else None,
    }


# --- (c) a replica killed mid-run --------------------------------------------------------------


def kill(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    records = write_records(work / "records-kill.jsonl", args.records)
    with replicas(4, args.latency, args.slots) as pool:
        urls = [url for url, _ in pool]
        victim_url, victim_pid = pool[0]
        expected_s = args.records * 1.5 * args.latency / (4 * args.slots)
        timer = threading.Timer(expected_s * 0.4, os.kill, (victim_pid, signal.SIGKILL))
        timer.start()
        try:
            run = run_once(records, urls, work, engine="local", concurrency=args.concurrency)
        finally:
            timer.cancel()
    rows = run["rows"]
    ids = [row["id"] for row in rows]
    undecided_pass = [
        row["id"]
        for row in rows
        if row["action"] == "pass"
        and (row["status"] != "ok" or any(v["label"] == "verifier_error" for v in row["verdicts"]))
    ]
    return {
        "records_in": args.records,
        "rows_out": len(rows),
        "unique_ids": len(set(ids)),
        "killed_after_s": round(expected_s * 0.4, 2),
        "killed": victim_url,
        "statuses": run["statuses"],
        "actions": run["actions"],
        "passed_without_verdict": len(undecided_pass),
        "seconds": run["seconds"],
    }


# --- an interrupted batch resumed --------------------------------------------------------------


def resume(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    records = write_records(work / "records-resume.jsonl", args.records)
    out = work / "resume-out.jsonl"
    with replicas(2, args.latency, args.slots) as pool:
        command = [
            sys.executable, "-m", "judge", "batch", str(records), "--out", str(out),
            "--base-url", ",".join(url for url, _ in pool), "--model", "fake-judge",
            "--policy", "search", "--no-cache", "--concurrency", "4",
        ]  # fmt: skip
        env = {**ENV, "JUDGE_STATE_DIR": str(work / "state-resume")}
        first = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL, cwd=ROOT)
        while not out.exists() or len(out.read_bytes().splitlines()) < args.records // 3:
            time.sleep(0.05)
        first.send_signal(signal.SIGKILL)
        first.wait()
        before = out.read_bytes().splitlines()
        torn = not out.read_bytes().endswith(b"\n")
        second = subprocess.run(command, env=env, capture_output=True, text=True, cwd=ROOT)
    after = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    ids = [row["id"] for row in after]
    done_line = next((ln for ln in second.stderr.splitlines() if "already done" in ln), "")
    return {
        "records_in": args.records,
        "lines_before_kill": len(before),
        "torn_last_line": torn,
        "lines_after_resume": len(after),
        "unique_ids": len(set(ids)),
        "resume_summary": done_line.strip(),
        "resume_exit": second.returncode,
    }


# --- (d) two 1-thread embedded servers against one 2-thread server ----------------------------


@contextlib.contextmanager
def llama_server(gguf: Path, threads: int, slots: int, log: Path) -> Iterator[str]:
    """One embedded llama.cpp judge server on ``gguf`` (launched as `judge local up` does)
    with its own thread count; yields its base URL once it answers, stops it after."""
    from judge.config import load_settings
    from judge.local_models.backends import plan_launch

    settings = load_settings()
    port = free_port()
    plan = plan_launch(settings, settings.local_model, "llamacpp", gguf, port, None)
    argv = [*plan.argv, "--threads", str(threads), "--parallel", str(slots)]
    with log.open("w") as handle:
        process = subprocess.Popen(argv, env={**ENV, **plan.env}, stdout=handle, stderr=handle)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 300
        import httpx

        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"llama.cpp server exited; see {log}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(url + "/models", timeout=2).status_code == 200:
                    break
            time.sleep(1)
        else:
            raise RuntimeError(f"llama.cpp server not ready in 300 s; see {log}")
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def embedded(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """The same claims through two 1-thread servers (a pool) and through one 2-thread server."""
    from judge.batch.job import BatchOptions, run_batch
    from judge.config import load_settings

    records = write_records(work / "records-embedded.jsonl", args.records)
    results: dict[str, Any] = {"records": args.records}

    def measure(name: str, urls: list[str]) -> None:
        out = work / f"embedded-{name}.jsonl"
        settings = load_settings(
            base_url=",".join(urls),
            citation_policy="search",
            cache_enabled=False,
            state_dir=work / f"state-{name}",
        )
        options = BatchOptions(inputs=[str(records)], out=out, concurrency=2, progress_every_s=1e9)
        with open(os.devnull, "w") as devnull, contextlib.redirect_stderr(devnull):
            summary = run_batch(options, settings).as_dict()
        results[name] = {
            key: summary[key]
            for key in ("records", "errors", "judge_calls", "seconds", "records_per_s")
        }
        print(name, json.dumps(results[name]), file=sys.stderr)

    if args.gguf is None:
        raise SystemExit("embedded: give --gguf, the judge model's GGUF file")
    with (
        llama_server(args.gguf, 1, 1, work / "llama-a.log") as a,
        llama_server(args.gguf, 1, 1, work / "llama-b.log") as b,
    ):
        measure("two_servers_1_thread", [a, b])
    with llama_server(args.gguf, 2, 2, work / "llama-c.log") as c:
        measure("one_server_2_threads", [c])
    return results


# --- report ------------------------------------------------------------------------------------


def markdown(results: dict[str, Any]) -> str:
    lines: list[str] = []
    if "throughput" in results:
        t = results["throughput"]
        lines += [
            f"Replicas: {t['latency_s'] * 1000:.0f} ms per call, {t['slots']} calls at once each.",
            "",
            "| engine | replicas | records | errors | calls | records/s | ideal | of ideal "
            "| vs 1 replica | driver CPU |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        base: dict[str, float] = {}
        for run in t["runs"]:
            rate = run["steady_records_per_s"]
            base.setdefault(run["engine"], rate)
            lines.append(
                f"| {run['engine']} | {run['replicas']} | {run['records']} | {run['errors']} "
                f"| {run['judge_calls']} | {rate:.1f} | {run['ideal_records_per_s']:.1f} "
                f"| {rate / run['ideal_records_per_s']:.0%} | {rate / base[run['engine']]:.2f}x "
                f"| {run['driver_cpu_share']:.0%} |"
            )
        lines.append("")
    for name in ("cpu", "kill", "resume", "embedded"):
        if name in results:
            lines += [f"{name}: `{json.dumps(results[name])}`", ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("throughput", "cpu", "kill", "resume", "embedded", "all"))
    parser.add_argument("--records", type=int, default=160)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per judge call")
    parser.add_argument("--slots", type=int, default=4, help="calls each replica serves at once")
    parser.add_argument("--replicas", default="1,2,4,8")
    parser.add_argument("--engines", default="local,ray")
    parser.add_argument("--concurrency", type=int, default=32, help="records at once (local)")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--gguf", type=Path, help="embedded: the judge model's GGUF file")
    args = parser.parse_args()
    parts = ("throughput", "cpu", "kill", "resume") if args.part == "all" else (args.part,)
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="judge-scale-") as tmp:
        for part in parts:
            results[part] = globals()[part](args, Path(tmp))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(markdown(results))


if __name__ == "__main__":
    main()
