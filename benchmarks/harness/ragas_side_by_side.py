"""RAGAS faithfulness and `judge eval` side by side on the same claim or answer records and judge.

Both systems talk to the same OpenAI-compatible endpoint (by default the embedded judge that
`judge local up` starts) through one counting proxy (``common.LoggingProxy``), so their calls
and tokens are counted the same way. They run one after the other, each one record at a time, and
the table gives balanced accuracy (supported vs not, or faithful vs hallucinated for answer
records; errors count as not supported), judge calls, prompt tokens, the prompt tokens the
server computed (the rest came from its prefix cache; llama.cpp reports it) and seconds per
record from this one run.

RAGAS lives in its own venv (``--setup-ragas`` creates it); it never enters the project's
environment. Its score is the share of supported statements, reported two ways: supported only
at 1.0, and supported at >= 0.5.

    python -m benchmarks.harness.ragas_side_by_side --setup-ragas --sample 20 --out-dir /tmp/side
    python -m benchmarks.harness.ragas_side_by_side --out-dir /tmp/side-full   # all records
    python -m benchmarks.harness.ragas_side_by_side --sample 20 -- --extractor sentence
    python -m benchmarks.harness.ragas_side_by_side --data ../shared/data/dev/dev_answers.jsonl \\
        --sample 8

Judge: the embedded judge (``judge local up``), or ``--base-url`` and ``--model``, for both
systems; options after ``--`` go to `judge eval`. Time on the 2-core development machine with
the embedded judge: per development answer, 26.5 s for RAGAS and 11.7 s for `judge eval`
(``--sample 8``: about 5 minutes in all, tenth round; RESULTS.md); per claim record, 16.6 s and
3.0 s (``--sample 10``, 2026-11-29; history). All 400 development claims take hours.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
import venv
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks.common import DEV_CLAIMS, ROOT, LoggingProxy, Usage, local_judge_endpoint
from judge.eval.metrics import balanced_accuracy, roc_auc
from judge.eval.records import load_records, read_predictions

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = DEV_CLAIMS
DEFAULT_VENV = ROOT / "benchmarks" / ".venv-ragas"
RAGAS_REQUIREMENT = "ragas==0.4.3"


@dataclass
class SystemResult:
    system: str
    records: int
    new_records: int  # costs are per record scored in this run
    errors: int
    balanced_accuracy: float | None
    roc_auc: float | None
    calls_per_record: float | None
    tokens_per_record: float | None
    prefill_per_record: float | None  # prompt tokens the server computed
    claims_per_record: float | None  # judge eval only: the claims it judged
    seconds_per_record: float | None
    truncated_outputs: int


def main() -> int:
    args = _parse_args()
    if args.setup_ragas:
        setup_ragas(args.ragas_venv)
    python = args.ragas_venv / "bin" / "python"
    if not python.exists():
        print(f"no RAGAS venv at {args.ragas_venv}: run with --setup-ragas", file=sys.stderr)
        return 2
    base_url, model = args.base_url, args.model
    if base_url is None:
        base_url, model = local_judge_endpoint(model)
    if model is None:
        print("give --model (the model id the endpoint serves)", file=sys.stderr)
        return 2

    out_dir: Path = args.out_dir or Path(tempfile.mkdtemp(prefix="ragas-side-by-side-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    records_path = out_dir / "records.jsonl"
    chosen = select_records(args.data, args.limit, args.sample, args.seed)
    records_path.write_text("".join(json.dumps(r) + "\n" for r in chosen), encoding="utf-8")
    kind = "answer" if chosen and "answer" in chosen[0] else "claim"
    print(f"{len(chosen)} {kind} records; outputs in {out_dir}", file=sys.stderr)

    ragas_out = out_dir / "ragas_predictions.jsonl"
    judge_out = out_dir / "judge_predictions.jsonl"
    with LoggingProxy(base_url, log_path=out_dir / "calls.jsonl") as proxy:
        ragas_phase = run_phase(
            [
                str(python),
                str(HERE / "ragas_worker.py"),
                "--records",
                str(records_path),
                "--out",
                str(ragas_out),
                "--base-url",
                proxy.base_url("ragas"),
                "--model",
                model,
            ],
            ragas_out,
        )
        judge_phase = run_phase(
            [
                sys.executable,
                "-m",
                "judge.cli",
                "eval",
                str(records_path),
                "--out",
                str(judge_out),
                "--base-url",
                proxy.base_url("judge"),
                "--model",
                model,
                "--no-cache",
                "--no-progress",
                "--concurrency",
                "1",
                *args.judge_args,
            ],
            judge_out,
        )
        usage = {tag: proxy.usage(tag) for tag in ("ragas", "judge")}

    wanted = {r["id"] for r in chosen}
    positive = "faithful" if kind == "answer" else "supported"
    results = [
        *ragas_results(_rows(ragas_out, wanted), usage["ragas"], ragas_phase, positive),
        judge_result(_rows(judge_out, wanted), usage["judge"], judge_phase, positive),
    ]
    summary = {
        "base_url": base_url,
        "model": model,
        "records": len(chosen),
        "data": str(args.data),
        "sample": args.sample,
        "seed": args.seed,
        "usage": {tag: asdict(u) for tag, u in usage.items()},
        "wall_seconds": {"ragas": ragas_phase.wall_seconds, "judge": judge_phase.wall_seconds},
        "results": [asdict(r) for r in results],
    }
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    print_table(results, model, kind)
    return 0


@dataclass(frozen=True)
class Phase:
    wall_seconds: float  # the whole subprocess, start-up included
    earlier_ids: frozenset[str]  # already in the output before this run (a resumed run)


def run_phase(command: list[str], out: Path) -> Phase:
    earlier = frozenset(r["id"] for r in read_predictions(out)) if out.exists() else frozenset()
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return Phase(time.perf_counter() - started, earlier)


def _rows(path: Path, wanted: set[str]) -> list[dict[str, Any]]:
    """The complete output lines of the selected records (a reused --out-dir may hold more)."""
    return [r for r in read_predictions(path) if r["id"] in wanted]


def setup_ragas(path: Path) -> None:
    if not (path / "bin" / "python").exists():
        venv.create(path, with_pip=True)
    subprocess.run(
        [str(path / "bin" / "python"), "-m", "pip", "install", "--quiet", RAGAS_REQUIREMENT],
        check=True,
    )


def select_records(
    data: Path, limit: int | None, sample: int | None, seed: int
) -> list[dict[str, Any]]:
    """The records to run, in file order: the first ``limit``, or a seeded sample. A file of
    claim and answer records runs its claims."""
    loaded = load_records(data)
    kind = "claim" if any(r.kind == "claim" for r in loaded) else "answer"
    records = [r for r in loaded if r.kind == kind]
    if sample is not None:
        keep = set(random.Random(seed).sample([r.id for r in records], min(sample, len(records))))
        records = [r for r in records if r.id in keep]
    # Only what both systems may see: no meta.
    return [
        {
            "id": r.id,
            "dataset": r.dataset,
            "evidence": [{"id": p.id, "text": p.text} for p in r.evidence],
            kind: r.text,
            "label": r.gold,
        }
        for r in records[:limit]
    ]


def ragas_results(
    rows: list[dict[str, Any]], usage: Usage, phase: Phase, positive: str
) -> list[SystemResult]:
    gold = [r["gold"] == positive for r in rows]
    scored = [r for r in rows if r["score"] is not None]
    auc = roc_auc([r["score"] for r in scored], [r["gold"] == positive for r in scored])
    results = []
    for name, cut in (("RAGAS, score = 1.0", 1.0), ("RAGAS, score >= 0.5", 0.5)):
        predicted = [r["score"] is not None and r["score"] >= cut for r in rows]
        results.append(_result(name, rows, balanced_accuracy(gold, predicted), auc, usage, phase))
    return results


def judge_result(
    rows: list[dict[str, Any]], usage: Usage, phase: Phase, positive: str
) -> SystemResult:
    gold = [r["gold"] == positive for r in rows]
    predicted = [r["predicted"] == positive for r in rows]
    scored = [r for r in rows if r["score"] is not None]
    auc = roc_auc([r["score"] for r in scored], [r["gold"] == positive for r in scored])
    return _result("judge eval", rows, balanced_accuracy(gold, predicted), auc, usage, phase)


def _result(
    name: str,
    rows: list[dict[str, Any]],
    accuracy: float | None,
    auc: float | None,
    usage: Usage,
    phase: Phase,
) -> SystemResult:
    # Costs cover the records scored in this run; seconds are each record's own timing, so
    # neither system's process start-up is counted.
    new = [r for r in rows if r["id"] not in phase.earlier_ids]
    n = len(new)
    return SystemResult(
        system=name,
        records=len(rows),
        new_records=n,
        errors=sum(1 for r in rows if r.get("error")),
        balanced_accuracy=accuracy,
        roc_auc=auc,
        calls_per_record=usage.calls / n if n else None,
        tokens_per_record=(usage.prompt_tokens + usage.completion_tokens) / n if n else None,
        prefill_per_record=usage.prefill_tokens / n if n else None,
        claims_per_record=sum(int(r["claims"]) for r in new) / n
        if n and "claims" in new[0]
        else None,
        seconds_per_record=sum(float(r["seconds"]) for r in new) / n if n else None,
        truncated_outputs=usage.truncated,
    )


def _claims(rows: list[dict[str, Any]]) -> float | None:
    """Claims judged per record (judge eval's predictions say; RAGAS's do not)."""
    if not rows or "claims" not in rows[0]:
        return None
    return sum(int(r["claims"]) for r in rows) / len(rows)


def print_table(results: list[SystemResult], model: str, kind: str) -> None:
    table = Table(title=f"{kind} records, judge model {model}", title_justify="left")
    for name in (
        "system",
        "records",
        "new",
        "errors",
        "bal.acc",
        "ROC-AUC",
        "calls/rec",
        "tokens/rec",
        "prefill/rec",
        "claims/rec",
        "s/rec",
        "truncated",
    ):
        table.add_column(name, justify="left" if name == "system" else "right")
    for r in results:
        table.add_row(
            r.system,
            str(r.records),
            str(r.new_records),
            str(r.errors),
            _fmt(r.balanced_accuracy, 3),
            _fmt(r.roc_auc, 3),
            _fmt(r.calls_per_record, 2),
            _fmt(r.tokens_per_record, 0),
            _fmt(r.prefill_per_record, 0),
            _fmt(r.claims_per_record, 1),
            _fmt(r.seconds_per_record, 1),
            str(r.truncated_outputs),
        )
    Console(width=None if sys.stdout.isatty() else 120).print(table)


def _fmt(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="claim or answer records")
    parser.add_argument("--limit", type=int, help="the first N claim records")
    parser.add_argument("--sample", type=int, help="a seeded random sample of N claim records")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--base-url", help="judge endpoint (default: `judge local status`)")
    parser.add_argument("--model", help="model id on the endpoint (default: the local judge's)")
    parser.add_argument("--out-dir", type=Path, help="outputs (default: a new temporary folder)")
    parser.add_argument("--ragas-venv", type=Path, default=DEFAULT_VENV)
    parser.add_argument("--setup-ragas", action="store_true", help=f"install {RAGAS_REQUIREMENT}")
    parser.add_argument("judge_args", nargs="*", help="after --: extra `judge eval` options")
    return parser.parse_args()


if __name__ == "__main__":
    sys.exit(main())
