"""How far one verification travels through the package: the ``judge`` modules it calls into and
how often consecutive calls switch module, for `judge verify` on an example request with the
red-team's rule-based judge (no model, no network; its own calls are left out). A rough measure
of how much a reader must jump around to follow one request; run it on two versions to compare.

    python -m benchmarks.tools.module_trace examples/refund_policy.json

Judge: none (the rule-based judge in process). Time: not measured (seconds).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any


def trace(request: dict[str, Any]) -> tuple[Counter[str], int]:
    import httpx

    from judge.config import load_settings
    from judge.testing.rule_judge import FAKE_BASE_URL, FAKE_MODEL, RuleJudge

    try:  # the pipeline's entry point, wherever the version at hand keeps it
        from judge.pipeline.runner import verify
    except ImportError:
        from judge.pipeline import verify  # type: ignore[attr-defined,no-redef]
    try:
        from judge.pipeline.entail.llm_judge import build_http_judge
    except ImportError:
        from judge.client import build_http_judge  # type: ignore[import-not-found,no-redef]

    settings = load_settings(base_url=FAKE_BASE_URL, model=FAKE_MODEL, cache_enabled=False)
    client = httpx.AsyncClient(transport=RuleJudge().transport)
    judge = build_http_judge(settings, base_url=FAKE_BASE_URL, model=FAKE_MODEL, http_client=client)
    visits: Counter[str] = Counter()
    switches = 0
    last = ""

    def profile(frame: FrameType, event: str, _arg: object) -> None:
        nonlocal switches, last
        if event != "call":
            return
        module = frame.f_globals.get("__name__", "")
        if not module.startswith("judge") or module.startswith("judge.redteam"):
            return
        visits[module] += 1
        if last and module != last:
            switches += 1
        last = module

    async def run() -> None:
        await verify(request, settings, judge=judge)  # warm: imports and caches

    asyncio.run(run())
    sys.setprofile(profile)
    try:
        asyncio.run(run())
    finally:
        sys.setprofile(None)
    return visits, switches


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("request", type=Path)
    args = parser.parse_args()
    visits, switches = trace(json.loads(args.request.read_text(encoding="utf-8")))
    print(f"{len(visits)} modules, {switches} switches between them, {sum(visits.values())} calls")
    for module, count in visits.most_common():
        print(f"  {count:6d}  {module}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
