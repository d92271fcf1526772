"""Every sentence of the development evidence, copied as a claim against its own passage.

A copied sentence is supported by construction, so any check that flags one reads claim and
evidence differently: a parsing gap, not a policy. Prints the sentences checked, the flags per
check, and up to ``--show`` examples of each.

    python benchmarks/verbatim_checks.py   # the dev claims' and answers' evidence
"""

from __future__ import annotations

import argparse
import collections
import json
import re
from pathlib import Path

from judge.eval.records import load_records
from judge.pipeline.checks import default_checks

# Sentences cut simply, not by the pipeline's splitter, so that quoted runs are cut too.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def passages(paths: list[Path]) -> list[str]:
    """Every distinct evidence passage of the labelled records, in order."""
    texts = (p.text for path in paths for record in load_records(path) for p in record.evidence)
    return list(dict.fromkeys(texts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    dev = Path("../shared/data/dev")
    parser.add_argument(
        "--data",
        type=Path,
        nargs="+",
        default=[dev / "dev_claims.jsonl", dev / "dev_answers.jsonl"],
        help="labelled records whose evidence is read (default: the dev claims and answers)",
    )
    parser.add_argument("--show", type=int, default=5)
    args = parser.parse_args()
    checks = default_checks()
    flags: collections.Counter[str] = collections.Counter()
    examples: dict[str, list[str]] = collections.defaultdict(list)
    sentences = 0
    for passage in passages(args.data):
        for sentence in _SENTENCE_END.split(passage):
            if not 20 <= len(sentence) <= 400:
                continue
            sentences += 1
            for check in checks:
                outcome = check(sentence, passage)
                if outcome is not None and outcome.status.value != "passed":
                    flags[check.name] += 1
                    if len(examples[check.name]) < args.show:
                        examples[check.name].append(f"{sentence[:160]!r}: {outcome.detail[:160]}")
    print(json.dumps({"sentences": sentences, "flagged": dict(flags)}))
    for name, shown in examples.items():
        print(f"== {name}")
        for line in shown:
            print(f"  {line}")


if __name__ == "__main__":
    main()
