"""Run `judge answer` on questions built from the development claims, then re-check every answer.

Questions come from claims by one fixed rule, no model involved:

    Is this true? <claim> Answer from the evidence.

where <claim> is the record's claim, blanks folded, with a full stop added when it ends without
one. The claim opens a sentence of its own, so its first word keeps its case without being read
as a name by the answer check. The record's ``evidence`` is the ledger; ``meta`` is never read.
Records are taken round-robin over the datasets in the order they first appear in the file,
in file order within each dataset, so a small N still spans the datasets. Records whose
evidence is longer than ``--max-evidence-chars`` are skipped (and counted): on a CPU the prompt
of a long podcast transcript alone takes minutes. The shipped examples' questions (every
``examples/*.json`` with a ``question``) run too, unless ``--no-examples``.

Each question runs as ``python -m judge.cli answer --json`` in its own process (options after
``--`` go to it, e.g. ``--base-url``; by default the embedded local model answers and judges).
Then every final answer that was returned as verified (and, with ``--fallback partial``, the
verified part of a partial answer) is checked again by ``judge verify --json --no-cache`` as a
fresh request; a re-check that does not pass is counted as "unsupported on re-check", which
must be zero. The re-check uses the same judge model at temperature 0, so it guards against
orchestration mistakes (a text that was never verified as a whole) more than judge noise.

    judge local up
    python -m benchmarks.harness.answer_dev -n 20 --out-dir /tmp/answer-dev
    python -m benchmarks.harness.answer_dev -n 2 --no-examples -- --base-url http://127.0.0.1:8080/v1

Judge: a generator and a judge, by default the embedded model for both (``judge local up``),
or any endpoint given after ``--``. Time on the 2-core development machine with the embedded
model: 10-98 s per question, median about 40 s (``-n 20`` and the four examples' questions,
2026-11-29; history/results-by-round-to-2026-12-04.md, "Grounded answers").

Outputs in ``--out-dir`` (a new temporary folder by default): ``results.jsonl`` (one line per
question: record id, question, outcome, steps, re-check), the evidence files given to the
command, and the audit log of every step (``audit.sqlite3``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.common import DEV_CLAIMS, ROOT, claim_question

DEFAULT_DATA = DEV_CLAIMS
EXAMPLES = ROOT / "examples"
OUTCOMES = ("passed", "repaired", "regenerated", "blocked", "refused")
VERIFIED = {"passed", "repaired", "regenerated"}


@dataclass(frozen=True)
class Item:
    id: str
    dataset: str
    label: str
    question: str
    evidence: list[dict[str, Any]]


def round_robin(
    records: Sequence[dict[str, Any]], n: int, max_chars: int
) -> tuple[list[Item], int]:
    """``n`` records spread over the datasets, and how many were skipped as too long."""
    by_dataset: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_dataset.setdefault(record["dataset"], []).append(record)
    queues = [list(rs) for rs in by_dataset.values()]
    chosen: list[Item] = []
    skipped = 0
    while len(chosen) < n and any(queues):
        for queue in queues:
            if len(chosen) >= n or not queue:
                continue
            record = queue.pop(0)
            evidence = [{"id": p["id"], "text": p["text"]} for p in record["evidence"]]
            if sum(len(p["text"]) for p in evidence) > max_chars:
                skipped += 1
                continue
            chosen.append(
                Item(
                    record["id"],
                    record["dataset"],
                    record["label"],
                    claim_question(record["claim"]),
                    evidence,
                )
            )
    return chosen, skipped


def example_items() -> list[Item]:
    items: list[Item] = []
    for path in sorted(EXAMPLES.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get("question"), str):
            items.append(Item(path.stem, "example", "-", data["question"], data["evidence"]))
    return items


def run_judge(args: Sequence[str], timeout: float) -> tuple[int, dict[str, Any] | None, str]:
    command = [sys.executable, "-m", "judge.cli.app", *args]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return -1, None, f"timed out after {timeout:.0f} s"
    try:
        return done.returncode, json.loads(done.stdout), done.stderr
    except json.JSONDecodeError:
        return done.returncode, None, done.stderr.strip()[-500:]


def answer_one(
    item: Item, out_dir: Path, passthrough: Sequence[str], timeout: float, fallback: str
) -> dict[str, Any]:
    evidence_path = out_dir / "evidence" / f"{item.id}.json"
    evidence_path.write_text(json.dumps(item.evidence, ensure_ascii=False), encoding="utf-8")
    started = time.perf_counter()
    code, result, stderr = run_judge(
        [
            "answer",
            "-q",
            item.question,
            "-e",
            str(evidence_path),
            "--json",
            "--quiet",
            "--fallback",
            fallback,
            "--audit-db",
            str(out_dir / "audit.sqlite3"),
            *passthrough,
        ],
        timeout,
    )
    row: dict[str, Any] = {
        "id": item.id,
        "dataset": item.dataset,
        "label": item.label,
        "question": item.question,
        "exit_code": code,
        "seconds": round(time.perf_counter() - started, 1),
    }
    if result is None:
        row.update(outcome="error", error=stderr)
        return row
    row.update(
        outcome=result["outcome"],
        text=result["text"],
        reasons=result["reasons"],
        generator_calls=result["generator_calls"],
        judge_calls=result["judge_calls"],
        steps=[{k: s[k] for k in ("stage", "action", "labels")} for s in result["steps"]],
    )
    checked = _checked_text(result, fallback)
    if checked is not None:
        row["recheck"] = recheck(item, checked, out_dir, passthrough, timeout)
    return row


def _checked_text(result: dict[str, Any], fallback: str) -> str | None:
    """The part of a final answer that was returned as verified, if any."""
    if result["outcome"] in VERIFIED:
        # A hedge line, if configured, is not a claim: it names what was left out.
        return str(result["text"]).split("\n\nThe evidence does not confirm:")[0]
    if fallback == "partial" and result["outcome"] == "blocked" and "\n\n" in result["text"]:
        return str(result["text"]).rsplit("\n\n", 1)[0]  # the gap line is not a claim
    return None


def recheck(
    item: Item, text: str, out_dir: Path, passthrough: Sequence[str], timeout: float
) -> dict[str, Any]:
    request = {"evidence": item.evidence, "answer": text, "question": item.question}
    path = out_dir / "evidence" / f"{item.id}.recheck.json"
    path.write_text(json.dumps(request, ensure_ascii=False), encoding="utf-8")
    code, response, stderr = run_judge(
        ["verify", str(path), "--json", "--no-cache", *passthrough], timeout
    )
    if response is None:
        return {"ok": False, "error": stderr or f"exit code {code}"}
    failing = [
        f"{v['claim']['id']} {v['label']}"
        for v in response["verdicts"]
        if v["label"] not in ("supported", "not_factual")
    ]
    return {
        "ok": response["action"] == "pass" and not failing,
        "action": response["action"],
        "failing": failing,
    }


def report(rows: Sequence[dict[str, Any]], skipped: int, out: Any = sys.stdout) -> int:
    """Print the tables; returns the number of verified answers that failed the re-check."""
    outcomes = Counter(r["outcome"] for r in rows)
    rechecked = [r for r in rows if "recheck" in r]
    bad = [r for r in rechecked if not r["recheck"]["ok"]]
    print(f"\n{len(rows)} questions ({skipped} records skipped for long evidence)", file=out)
    print(f"{'outcome':<28}{'count':>6}", file=out)
    for name, label in (
        ("passed", "passed at once"),
        ("repaired", "repaired"),
        ("regenerated", "regenerated"),
    ):
        print(f"{label:<28}{outcomes[name]:>6}", file=out)
    print(
        f"{'blocked / refused':<28}{outcomes['blocked'] + outcomes['refused']:>6}"
        f"   ({outcomes['blocked']} blocked, {outcomes['refused']} refused)",
        file=out,
    )
    if outcomes["error"]:
        print(f"{'run errors':<28}{outcomes['error']:>6}", file=out)
    print(f"{'final answers re-checked':<28}{len(rechecked):>6}", file=out)
    print(f"{'unsupported on re-check':<28}{len(bad):>6}   (must be 0)", file=out)

    print("\nby gold label (claims):", file=out)
    labels = sorted({r["label"] for r in rows})
    print(f"{'label':<14}" + "".join(f"{o:>13}" for o in OUTCOMES), file=out)
    for label in labels:
        counts = Counter(r["outcome"] for r in rows if r["label"] == label)
        print(f"{label:<14}" + "".join(f"{counts[o]:>13}" for o in OUTCOMES), file=out)

    print("\nper question:", file=out)
    for r in rows:
        check = r.get("recheck")
        mark = "" if check is None else (" recheck ok" if check["ok"] else " RECHECK FAILED")
        print(
            f"  {r['id'][:38]:<40}{r['dataset']:<18}{r['label']:<13}{r['outcome']:<12}"
            f"gen {r.get('generator_calls', '-')}  judge {r.get('judge_calls', '-')}  "
            f"{r['seconds']:>6.1f} s{mark}",
            file=out,
        )
    for r in bad:
        print(f"\nRECHECK FAILED {r['id']}: {r['recheck']}\n  {r.get('text')}", file=out)
    return len(bad)


def load_records(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=20, help="dev records to turn into questions")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out-dir", type=Path, help="results and audit log (default: temporary)")
    parser.add_argument("--no-examples", action="store_true", help="skip the shipped examples")
    parser.add_argument("--max-evidence-chars", type=int, default=6000)
    parser.add_argument(
        "--fallback", choices=("safe_message", "partial", "escalate"), default="safe_message"
    )
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per command")
    parser.add_argument("passthrough", nargs="*", help="after --: options for judge answer/verify")
    args = parser.parse_args(list(argv) if argv is not None else None)

    items, skipped = round_robin(load_records(args.data), args.n, args.max_evidence_chars)
    if not args.no_examples:
        items += example_items()
    out_dir = args.out_dir or Path(tempfile.mkdtemp(prefix="answer-dev-"))
    (out_dir / "evidence").mkdir(parents=True, exist_ok=True)
    print(f"{len(items)} questions; results in {out_dir}", file=sys.stderr)
    rows: list[dict[str, Any]] = []
    with (out_dir / "results.jsonl").open("a", encoding="utf-8") as results:
        for number, item in enumerate(items, start=1):
            print(f"[{number}/{len(items)}] {item.id}: {item.question[:90]}", file=sys.stderr)
            row = answer_one(item, out_dir, args.passthrough, args.timeout, args.fallback)
            print(f"    {row['outcome']} in {row['seconds']} s", file=sys.stderr)
            rows.append(row)
            results.write(json.dumps(row, ensure_ascii=False) + "\n")
            results.flush()
    return 1 if report(rows, skipped) else 0


if __name__ == "__main__":
    sys.exit(main())
