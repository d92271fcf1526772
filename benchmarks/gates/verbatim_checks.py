"""Every sentence of the development evidence, copied as a claim against its own passage.

A copied sentence is supported by construction, so any check that flags one reads claim and
evidence differently: a parsing gap, not a policy. Prints the sentences checked, the flags per
check, and up to ``--show`` examples of each.

The figures are compared with the committed ones (``gates/expected/verbatim_checks.json``, or
``--expected FILE``), and the command exits 1 when any check flags more copied sentences than
it did there. No tolerance: each new flag is a new parsing gap.

    python -m benchmarks.gates.verbatim_checks   # the dev claims' and answers' evidence

Judge: none. Time on the 2-core development machine: 19 s (2026-12-04).
"""

from __future__ import annotations

import collections
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.common import (
    DEV_ANSWERS,
    DEV_CLAIMS,
    SENTENCE_END,
    GateResult,
    compared_with,
    evidence_passages,
    expected_file,
    finish,
    gate_parser,
    judged,
    missing_data,
    read_expected,
    skipped,
    write_expected,
)
from judge.pipeline.checks import default_checks

NAME = "verbatim_checks"
DATA = (DEV_CLAIMS, DEV_ANSWERS)


@dataclass
class Copies:
    sentences: int = 0
    flags: collections.Counter[str] = field(default_factory=collections.Counter)
    examples: dict[str, list[str]] = field(default_factory=lambda: collections.defaultdict(list))


def measure(paths: Sequence[Path], show: int = 5) -> Copies:
    checks = default_checks()
    copies = Copies()
    for passage in evidence_passages(paths):
        for sentence in SENTENCE_END.split(passage):
            if not 20 <= len(sentence) <= 400:
                continue
            copies.sentences += 1
            for check in checks:
                outcome = check(sentence, passage)
                if outcome is not None and outcome.status.value != "passed":
                    copies.flags[check.name] += 1
                    if len(copies.examples[check.name]) < show:
                        detail = outcome.detail[:160]
                        copies.examples[check.name].append(f"{sentence[:160]!r}: {detail}")
    return copies


def figures(copies: Copies) -> dict[str, Any]:
    """Counts only, never a sentence."""
    return {
        "sentences": copies.sentences,
        "flagged": dict(sorted(copies.flags.items())),
        "flags": sum(copies.flags.values()),
    }


def regressions(current: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    found = []
    for check in sorted(set(current["flagged"]) | set(expected["flagged"])):
        was, now = expected["flagged"].get(check, 0), current["flagged"].get(check, 0)
        if now > was:
            found.append(
                f"{check} flags {now} copied sentences of {current['sentences']} "
                f"(expected {was}): a parsing gap"
            )
    return found


def report(copies: Copies) -> str:
    flagged = ", ".join(f"{c} {n}" for c, n in copies.flags.most_common()) or "none"
    lines = [f"{copies.sentences} sentences copied as claims; flags by check: {flagged}"]
    for name, shown in copies.examples.items():
        lines.append(f"== {name}")
        lines.extend(f"  {line}" for line in shown)
    return "\n".join(lines)


def run(
    paths: Sequence[Path], expected: Path | None, show: int = 5
) -> tuple[GateResult, Copies | None]:
    reason = missing_data(*paths)
    if reason is not None:
        return skipped(NAME, reason), None
    started = time.perf_counter()
    copies = measure(paths, show)
    seconds = time.perf_counter() - started
    wanted = read_expected(expected)
    problems = regressions(figures(copies), wanted) if wanted is not None else []
    flags = sum(copies.flags.values())
    summary = f"{flags} flags on {copies.sentences} sentences copied as claims"
    return judged(NAME, summary, problems, seconds, report(copies)), copies


def gate(quick: bool = False, expected: Path | None = None) -> GateResult:
    """The copied-sentence gate against the committed figures (quick enough for any run)."""
    return run(DATA, expected or expected_file(NAME))[0]


def main(argv: Sequence[str] | None = None) -> int:
    parser = gate_parser(__doc__, NAME)
    parser.add_argument(
        "--data",
        type=Path,
        nargs="+",
        default=list(DATA),
        help="labelled records whose evidence is read (default: the dev claims and answers)",
    )
    parser.add_argument("--show", type=int, default=5)
    args = parser.parse_args(argv)
    result, copies = run(args.data, compared_with(args), args.show)
    if args.write_expected and copies is not None:
        write_expected(args.write_expected, figures(copies), result.seconds)
    return finish(result)


if __name__ == "__main__":
    sys.exit(main())
