"""Long answers composed from development claims, with and without citations, as answer records.

The development answers are short one-document summaries. To measure the pipeline on longer,
multi-passage answers, each answer here is 3-6 development claims of one dataset, in a seeded
random order (``common.composed_answers``: half faithful, every claim supported; half
hallucinated, one or two claims not supported). The ledger is the union of the claims' evidence,
each passage id prefixed with its claim's position (``c2-l0``), so the other claims' passages
are distractors. Two files hold the same answers:

- ``cited.jsonl``: every sentence of a claim cites its own record's passages (``[c2-l0, c2-l1]``);
- ``uncited.jsonl``: no citations, so each sentence is aligned by search over the whole ledger
  (``judge eval`` uses the search policy for answer records).

Run both through `judge eval` with ``answer_levers`` (one record per (dataset, label)):

    python -m benchmarks.harness.composed_answers --count 12 --out-dir /tmp/composed
    for v in cited uncited; do
      python -m benchmarks.harness.answer_levers --data /tmp/composed/$v.jsonl --per-group 1 \\
          --out-dir /tmp/composed/$v-run --config default=
    done

Judge: none to write the records (not measured: seconds); ``answer_levers`` needs one to run
them, 60-66 s per composed answer with the embedded judge on the 2-core development machine
(RESULTS.md).

Records carry only ``id``, ``dataset``, ``evidence``, ``answer`` and ``label``; ``meta`` is never
read. The files are written outside the project: the data stays in ``../shared``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.common import DEV_CLAIMS, composed_answers, read_jsonl
from judge.reading.sentences import split_sentences

DEFAULT_DATA = DEV_CLAIMS


def compose(
    rows: Sequence[dict[str, Any]], members: Sequence[int], *, cited: bool
) -> tuple[str, list[dict[str, str]]]:
    """The answer text and its ledger for the claims ``members`` (indices into ``rows``)."""
    sentences: list[str] = []
    ledger: list[dict[str, str]] = []
    for position, index in enumerate(members, start=1):
        row = rows[index]
        ids = [f"c{position}-{passage['id']}" for passage in row["evidence"]]
        ledger.extend(
            {"id": pid, "text": passage["text"]}
            for pid, passage in zip(ids, row["evidence"], strict=True)
        )
        marker = f" [{', '.join(ids)}]" if cited else ""
        for sentence in split_sentences(" ".join(row["claim"].split()), strict=False):
            text = sentence.text.strip()
            # Dialogue turns (BEGIN) are lower-cased: a capital lets the answer split there.
            text = text[0].upper() + text[1:]
            # The citation goes before the sentence's closing punctuation, as a writer puts it.
            stop = text[-1] if text[-1] in ".!?" else "."
            body = (text[:-1] if text[-1] in ".!?" else text).rstrip()
            sentences.append(f"{body}{marker}{stop}")
    return " ".join(sentences), ledger


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--count", type=int, default=12, help="answers to compose")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out-dir", type=Path, required=True)
    args = parser.parse_args(argv)
    rows = read_jsonl(args.data)
    gold = [r["meta"]["binary"] == "supported" for r in rows]
    datasets = [r["dataset"] for r in rows]
    answers = composed_answers(datasets, gold, args.count, seed=args.seed)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for variant, cited in (("cited", True), ("uncited", False)):
        lines = []
        for number, (members, faithful) in enumerate(answers):
            text, ledger = compose(rows, members, cited=cited)
            record = {
                "id": f"composed-{number}",
                "dataset": datasets[members[0]],
                "evidence": ledger,
                "answer": text,
                "label": "faithful" if faithful else "hallucinated",
            }
            lines.append(json.dumps(record) + "\n")
        (args.out_dir / f"{variant}.jsonl").write_text("".join(lines), encoding="utf-8")
    sizes = [len(m) for m, _ in answers]
    print(
        f"{len(answers)} answers of {min(sizes)}-{max(sizes)} claims "
        f"({sum(sizes) / len(sizes):.1f} on average) in {args.out_dir}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
