"""Answer-level levers, paired: `judge eval` on the same answer records under each configuration.

Each configuration is a set of ``JUDGE_*`` settings; every one runs `judge eval --no-cache` on
the same records (a stratified sample: records taken in turns over dataset and label) against
the same endpoint, through one counting proxy (``common.LoggingProxy``), one configuration after
the other. The table gives, per configuration, balanced accuracy (faithful iff the action is
pass), judge calls per answer and per claim, prompt tokens, the prompt tokens the server
computed (the rest came from its prefix cache; llama.cpp reports it) and seconds per answer.
McNemar's exact test compares each configuration with the first.

    judge local up
    python -m benchmarks.harness.answer_levers --per-group 3 --out-dir /tmp/levers \\
        --config default= --config search_top2=JUDGE_SEARCH_WHOLE_EVIDENCE=false

Judge: the embedded judge (``judge local up``), or ``--base-url`` and ``--model``. Time on the
2-core development machine with the embedded judge, per configuration: 8.0 s per development
answer (``--per-group 10``, all 100 answers: about 13 minutes, tenth round), 60-66 s per
composed long answer (RESULTS.md).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.common import (
    DEV_ANSWERS,
    LoggingProxy,
    Usage,
    local_judge_endpoint,
    mcnemar,
    read_jsonl,
)
from judge.eval.metrics import balanced_accuracy
from judge.eval.records import read_predictions

DEFAULT_DATA = DEV_ANSWERS


@dataclass
class Config:
    name: str
    env: dict[str, str]

    @classmethod
    def parse(cls, text: str) -> Config:
        """``name=VAR=value,VAR=value`` (``name=`` for the defaults)."""
        name, _, rest = text.partition("=")
        env = dict(item.split("=", 1) for item in rest.split(",") if item)
        return cls(name, env)


def stratified(records: list[dict[str, Any]], per_group: int) -> list[dict[str, Any]]:
    """Up to ``per_group`` records of each (dataset, label), in file order, taken in turns."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        group = groups[(record["dataset"], record["label"])]
        if len(group) < per_group:
            group.append(record)
    ordered: list[dict[str, Any]] = []
    for turn in range(per_group):
        ordered.extend(g[turn] for _, g in sorted(groups.items()) if turn < len(g))
    return ordered


def run_config(
    config: Config, records: Path, out: Path, proxy: LoggingProxy, model: str, timeout: float
) -> Usage:
    env = {**os.environ, **config.env}
    command = [
        sys.executable,
        "-m",
        "judge.cli",
        "eval",
        str(records),
        "--out",
        str(out),
        "--base-url",
        proxy.base_url(config.name),
        "--model",
        model,
        "--no-cache",
        "--no-progress",
    ]
    done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, timeout=timeout, check=False)
    if done.returncode not in (0, 4):  # 4: too many records erred; they count as errors here
        raise SystemExit(f"{config.name}: judge eval exited {done.returncode}")
    return proxy.usage(config.name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--per-group", type=int, default=2, help="records per (dataset, label)")
    parser.add_argument("--config", action="append", type=Config.parse, required=True)
    parser.add_argument("--out-dir", type=Path)
    parser.add_argument("--base-url", help="judge endpoint (default: `judge local status`)")
    parser.add_argument("--model")
    parser.add_argument("--timeout", type=float, default=7200.0, help="seconds per config")
    args = parser.parse_args(argv)
    base_url, model = args.base_url, args.model
    if base_url is None:
        base_url, model = local_judge_endpoint(model)
    if model is None:
        parser.error("give --model (the model id the endpoint serves)")
    out_dir: Path = args.out_dir or Path(tempfile.mkdtemp(prefix="answer-levers-"))
    out_dir.mkdir(parents=True, exist_ok=True)
    chosen = stratified(read_jsonl(args.data), args.per_group)
    records = out_dir / "records.jsonl"
    keep = ("id", "dataset", "evidence", "answer", "label")
    records.write_text(
        "".join(json.dumps({k: r[k] for k in keep}) + "\n" for r in chosen), encoding="utf-8"
    )
    print(f"{len(chosen)} answer records; outputs in {out_dir}", file=sys.stderr)
    results: list[tuple[Config, list[dict[str, Any]], Usage]] = []
    with LoggingProxy(base_url, log_path=out_dir / "calls.jsonl") as proxy:
        for config in args.config:
            out = out_dir / f"{config.name}.jsonl"
            out.unlink(missing_ok=True)
            usage = run_config(config, records, out, proxy, model, args.timeout)
            results.append((config, read_predictions(out), usage))
            print(f"{config.name}: done", file=sys.stderr)
    print_table(results)
    summary = [
        {"config": c.name, "env": c.env, "usage": vars(u), "predictions": str(out_dir)}
        for c, _, u in results
    ]
    (out_dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return 0


def print_table(results: list[tuple[Config, list[dict[str, Any]], Usage]]) -> None:
    first = {r["id"]: r for r in results[0][1]}
    ids = sorted(first)
    gold = [first[i]["gold"] == "faithful" for i in ids]
    base = [first[i]["predicted"] == "faithful" for i in ids]
    print(
        "| config | answers | errors | balanced accuracy | faithful passed | hallucinated caught | "
        "calls / answer | calls / claim | prompt tokens / answer | computed / answer | "
        "s / answer | McNemar vs first |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for config, rows, usage in results:
        by_id = {r["id"]: r for r in rows}
        predicted = [by_id[i]["predicted"] == "faithful" for i in ids]
        n = len(ids)
        claims = sum(int(by_id[i]["claims"]) for i in ids) or 1
        kept = sum(1 for g, p in zip(gold, predicted, strict=True) if g and p)
        caught = sum(1 for g, p in zip(gold, predicted, strict=True) if not g and not p)
        a, b, p = mcnemar(gold, predicted, base)
        versus = "" if config is results[0][0] else f"{a} fixed, {b} broken, p = {p:.3f}"
        value = balanced_accuracy(gold, predicted)
        shown = "-" if value is None else f"{value:.3f}"
        errors = sum(1 for i in ids if by_id[i].get("error"))
        print(
            f"| {config.name} | {n} | {errors} | {shown} | {kept}/{sum(gold)} | "
            f"{caught}/{n - sum(gold)} | {usage.calls / n:.2f} | {usage.calls / claims:.2f} | "
            f"{usage.prompt_tokens / n:.0f} | {usage.prefill_tokens / n:.0f} | "
            f"{sum(float(by_id[i]['seconds']) for i in ids) / n:.1f} | {versus} |"
        )


if __name__ == "__main__":
    sys.exit(main())
