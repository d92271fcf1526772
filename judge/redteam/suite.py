"""The built-in red-team suite: every attack applied to every seed it has a hold on.

``SUITE_VERSION`` names the set of attacks and built-in seeds; change it whenever either
changes, so reports of one version compare. A case id is ``family/transform/seed``.
"""

from __future__ import annotations

import fnmatch
import random
from collections.abc import Iterable, Sequence
from pathlib import Path

from judge.redteam import (
    citation_abuse,
    evasion,
    exhaustion,
    injection,
    lookalikes,
    meaning,
    scores,
    splitting,
)
from judge.redteam.model import Attack, Case, Seed
from judge.redteam.seeds import BUILTIN_SEEDS, EXAMPLES_DIR, load_dev_seeds, load_examples

SUITE_VERSION = "2"
FAMILIES: tuple[str, ...] = (
    injection.FAMILY,
    evasion.FAMILY,
    meaning.FAMILY,
    citation_abuse.FAMILY,
    splitting.FAMILY,
    exhaustion.FAMILY,
    scores.FAMILY,
    lookalikes.FAMILY,
)
ATTACKS: tuple[Attack, ...] = (
    *injection.ATTACKS,
    *evasion.ATTACKS,
    *meaning.ATTACKS,
    *citation_abuse.ATTACKS,
    *splitting.ATTACKS,
    *exhaustion.ATTACKS,
    *scores.ATTACKS,
    *lookalikes.ATTACKS,
)


def default_seeds(
    examples: Path | None = EXAMPLES_DIR, dev: Path | None = None, dev_limit: int = 12
) -> list[Seed]:
    """The built-in seeds, the examples in ``examples`` (when that folder exists) and, with
    ``dev``, up to ``dev_limit`` records of a development file."""
    seeds = list(BUILTIN_SEEDS)
    if examples is not None and examples.is_dir():
        seeds += load_examples(examples)
    if dev is not None:
        seeds += load_dev_seeds(dev, dev_limit)
    return seeds


def build_suite(seeds: Iterable[Seed], attacks: Sequence[Attack] = ATTACKS) -> list[Case]:
    """Every case, in family order, then attack order, then seed order."""
    seed_list = list(seeds)
    cases: list[Case] = []
    for attack in sorted(attacks, key=lambda a: FAMILIES.index(a.family)):
        for seed in seed_list:
            variant = attack.build(seed)
            if variant is None:
                continue
            baseline = variant.baseline.request() if variant.baseline is not None else None
            cases.append(
                Case(
                    family=attack.family,
                    transform=attack.name,
                    seed_id=seed.id,
                    request=variant.request,
                    expect=variant.expect,
                    baseline=baseline,
                    judge_dependent=variant.judge_dependent,
                    settings=dict(variant.settings),
                    note=variant.note or attack.about,
                    judge_fault=variant.judge_fault,
                )
            )
    return cases


def select(
    cases: Sequence[Case], families: Sequence[str] = (), patterns: Sequence[str] = ()
) -> list[Case]:
    """The cases of the given families whose id matches one of the glob patterns."""
    return [
        case
        for case in cases
        if (not families or case.family in families)
        and (not patterns or any(fnmatch.fnmatchcase(case.id, p) for p in patterns))
    ]


def sample(cases: Sequence[Case], count: int, seed: int = 0) -> list[Case]:
    """``count`` cases spread evenly over the families (in turn), chosen at random within each
    family with ``seed``; returned in suite order."""
    rng = random.Random(seed)
    pools: dict[str, list[Case]] = {}
    for case in cases:
        pools.setdefault(case.family, []).append(case)
    for pool in pools.values():
        rng.shuffle(pool)
    chosen: set[str] = set()
    order = [f for f in FAMILIES if f in pools] + sorted(set(pools) - set(FAMILIES))
    while len(chosen) < count and any(pools[f] for f in order):
        for family in order:
            if pools[family] and len(chosen) < count:
                chosen.add(pools[family].pop().id)
    return [case for case in cases if case.id in chosen]
