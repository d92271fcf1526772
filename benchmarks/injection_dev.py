"""False flags of the injection detector on the human-labelled dev set.

    python benchmarks/injection_dev.py [--data ../shared/data/dev]

None of the dev records carries an injection, so every record the detector flags is a false
flag. A record is what the injection screen reads for it: every evidence passage (the screen
reads the passages a claim cites, so every passage counts), and the claim (dev_claims.jsonl)
or the answer (dev_answers.jsonl). Prints the rate per file and dataset and every flagged span.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from judge.text.injection import find_injections

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT.parent / "shared" / "data" / "dev"
FILES = (("dev_claims.jsonl", "claim"), ("dev_answers.jsonl", "answer"))
LIMIT = 0.01  # the detector must flag under 1 % of clean records


def flagged_spans(record: dict[str, object], field: str) -> list[str]:
    evidence = record["evidence"]
    assert isinstance(evidence, list)
    spans = [
        f"passage {passage['id']}: {finding.kind.value} {finding.text!r}"
        for passage in evidence
        for finding in find_injections(str(passage["text"]) + "\n" + str(passage.get("source", "")))
    ]
    spans += [f"{field}: {f.kind.value} {f.text!r}" for f in find_injections(str(record[field]))]
    return spans


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--data", type=Path, default=DEV)
    args = parser.parse_args()
    total = flagged = 0
    print("| file | records | passages | flagged | rate |")
    print("|---|---|---|---|---|")
    details: list[str] = []
    by_dataset: Counter[str] = Counter()
    for name, field in FILES:
        lines = (args.data / name).read_text(encoding="utf-8").splitlines()
        records = [json.loads(line) for line in lines if line.strip()]
        passages = sum(len(r["evidence"]) for r in records)
        hits = 0
        for record in records:
            spans = flagged_spans(record, field)
            if spans:
                hits += 1
                by_dataset[record["dataset"]] += 1
                details.append(f"- {record['id']}: " + "; ".join(spans))
        total += len(records)
        flagged += hits
        print(f"| {name} | {len(records)} | {passages} | {hits} | {hits / len(records):.2%} |")
    rate = flagged / total if total else 0.0
    print(f"| all | {total} | | {flagged} | {rate:.2%} |")
    print()
    for line in details:
        print(line)
    for dataset, count in sorted(by_dataset.items()):
        print(f"- {dataset}: {count} flagged")
    verdict = "below" if rate < LIMIT else "NOT below"
    print(f"\nfalse-flag rate {rate:.2%}: {verdict} the {LIMIT:.0%} limit")
    raise SystemExit(0 if rate < LIMIT else 1)


if __name__ == "__main__":
    main()
