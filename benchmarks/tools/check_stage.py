"""The exact-check stage's time per dev answer: every dev answer verified with no judge, the
time spent deciding claims by the exact checks (``pre_judge``) summed per answer.

    python -m benchmarks.tools.check_stage              # all 100 dev answers
    python -m benchmarks.tools.check_stage --limit 20

Answers carry no citations, so each claim finds its passages as `judge eval` has it find
them (the search citation policy). The readers' models and word lists are loaded first
(``judge.reading.warm_up``), so the figure is the checks' own work, not start-up. The first
pass reads every passage for the first time, as a service does that sees each evidence once;
later passes find the readings kept.

Judge: none. Time on the 2-core development machine: about 10 s (2026-12-04).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from benchmarks.common import DEV_ANSWERS, default_settings, missing_data, read_jsonl
from judge.api import Verifier
from judge.config import CitationPolicy, Settings
from judge.pipeline import claim_stage


def timed(stage: Callable[..., Any], spent: list[float]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return stage(*args, **kwargs)
        finally:
            spent.append(time.perf_counter() - started)

    return wrapper


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="the first N answers only")
    parser.add_argument(
        "--passes", type=int, default=2, help="passes over the answers (later ones: warm caches)"
    )
    args = parser.parse_args(argv)
    if (why := missing_data(DEV_ANSWERS)) is not None:
        print(why)
        return 0
    records = read_jsonl(DEV_ANSWERS)[: args.limit]
    started = time.perf_counter()
    from judge.reading import warm_up

    warm_up()
    loaded = time.perf_counter() - started
    print(f"{len(records)} dev answers; readers loaded in {loaded:.2f} s")
    with default_settings():
        settings = Settings().model_copy(update={"citation_policy": CitationPolicy.SEARCH})
    with default_settings(), Verifier(settings, use_judge=False) as verifier:
        for number in range(1, args.passes + 1):
            per_answer = [stage_seconds(verifier, record) for record in records]
            total = sum(per_answer)
            print(
                f"pass {number}: exact-check stage {1000 * total / len(records):.1f} ms per "
                f"answer (mean), median {1000 * statistics.median(per_answer):.1f} ms, "
                f"max {1000 * max(per_answer):.1f} ms, total {total:.2f} s"
            )
    return 0


def stage_seconds(verifier: Verifier, record: dict[str, Any]) -> float:
    """Seconds one answer spent in the exact-check stage."""
    spent: list[float] = []
    # The claim stage calls the exact checks through the name its module imported.
    names = vars(claim_stage)
    original = names["pre_judge"]
    names["pre_judge"] = timed(original, spent)
    try:
        verifier.verify_sync(answer=record["answer"], evidence=record["evidence"])
    finally:
        names["pre_judge"] = original
    return sum(spent)


if __name__ == "__main__":
    sys.exit(main())
