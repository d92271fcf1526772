"""Run the judge-free gates and print one line per gate: PASS, FAIL or SKIP.

    python -m benchmarks.gates                    # every gate (about 4 minutes on 2 cores)
    python -m benchmarks.gates --quick            # the quick parts (about 45 s)
    python -m benchmarks.gates checks languages   # the gates named
    python -m benchmarks.gates --list             # the gates, their tolerances, what --quick does

Each gate compares its figures with those committed under ``benchmarks/gates/expected/`` and
fails on a regression past its tolerance; each FAIL is followed by the figures that moved. A
gate whose data (``../shared/data/...``) is missing is a SKIP, with the reason, and does not
fail the run. Exits 1 when any gate fails. ``--verbose`` prints each gate's full report, as its
own command (``python -m benchmarks.gates.<gate>``) does.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from types import ModuleType

from benchmarks.common import GateResult
from benchmarks.gates import (
    checks,
    injection_dev,
    languages,
    pointers_dev,
    sentence_edits,
    value_swaps,
    verbatim_checks,
)

# In the order they run: the quick ones first, so a broken reading shows within seconds.
GATES: dict[str, ModuleType] = {
    "languages": languages,
    "injection_dev": injection_dev,
    "pointers_dev": pointers_dev,
    "verbatim_checks": verbatim_checks,
    "checks": checks,
    "value_swaps": value_swaps,
    "sentence_edits": sentence_edits,
}
DESCRIPTIONS = {
    "languages": "multilingual value cases flagged and left clean; any drop fails",
    "injection_dev": "injection screen false flags on dev records; +0.25 points or 1 % fails",
    "pointers_dev": "evidence pointers on Check-COVID rationales; -2.5 points hit or precision",
    "verbatim_checks": "dev evidence sentences copied as claims; any new flag fails",
    "checks": "exact checks on dev and public claims; false flags +0.25, catches -0.5 points",
    "value_swaps": "values swapped for another fact's, and restated; caught -0.5, flagged +0.5",
    "sentence_edits": "edited dev sentences; kept meaning +0.05, changed meaning -0.5 points",
}
QUICK = {
    "checks": "dev only",
    "value_swaps": "dev and every tenth public record",
    "sentence_edits": "left out",
}


def run_gate(name: str, gate: Callable[..., GateResult], quick: bool) -> GateResult:
    """One gate; a gate that raises is a FAIL naming the error, and the others still run."""
    started = time.perf_counter()
    try:
        return gate(quick=quick)
    except Exception as exc:
        detail = traceback.format_exc(limit=-3)
        return GateResult(
            name,
            "FAIL",
            f"crashed: {type(exc).__name__}: {exc}",
            [f"crashed: {type(exc).__name__}: {exc}"],
            time.perf_counter() - started,
            detail,
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("gates", nargs="*", metavar="GATE", help=f"any of {', '.join(GATES)}")
    parser.add_argument("--quick", action="store_true", help="only the quick parts")
    parser.add_argument("--verbose", action="store_true", help="each gate's full report")
    parser.add_argument("--list", action="store_true", help="list the gates and exit")
    args = parser.parse_args(argv)
    if args.list:
        for name in GATES:
            quick = QUICK.get(name, "the same")
            print(f"{name:<16} {DESCRIPTIONS[name]} (--quick: {quick})")
        return 0
    unknown = [name for name in args.gates if name not in GATES]
    if unknown:
        parser.error(f"no gate {', '.join(unknown)}; the gates: {', '.join(GATES)}")
    chosen = args.gates or list(GATES)
    started = time.perf_counter()
    results = []
    for name in chosen:
        result = run_gate(name, GATES[name].gate, args.quick)
        if args.verbose and result.report:
            print(f"\n===== {name}\n{result.report}\n", flush=True)
        print(result.line(), flush=True)
        for problem in result.problems:
            print(f"      {problem}", flush=True)
        results.append(result)
    counts = {s: sum(r.status == s for r in results) for s in ("PASS", "FAIL", "SKIP")}
    print(
        f"{len(results)} gates in {time.perf_counter() - started:.0f} s: {counts['PASS']} passed, "
        f"{counts['FAIL']} failed, {counts['SKIP']} skipped"
    )
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
