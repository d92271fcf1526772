"""A sample of labelled records that keeps every (dataset, label) group in proportion.

The first N records of a file are usually one dataset with one label, so their balanced
accuracy cannot be computed. A stratified sample gives each group its share of N (largest
remainders), at least one record per group while N allows, and is the same for the same seed.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from judge.eval.records import EvalRecord


def stratified_sample(records: Sequence[EvalRecord], n: int, seed: int = 0) -> list[EvalRecord]:
    """``n`` records (all of them when there are fewer), in their order in the file."""
    if n >= len(records):
        return list(records)
    groups: dict[tuple[str, str], list[int]] = {}
    for index, record in enumerate(records):
        groups.setdefault((record.dataset, record.gold), []).append(index)
    keys = sorted(groups)
    quota = _quotas([len(groups[k]) for k in keys], n)
    rng = random.Random(seed)
    chosen: list[int] = []
    for key, count in zip(keys, quota, strict=True):
        members = list(groups[key])
        rng.shuffle(members)
        chosen.extend(members[:count])
    return [records[i] for i in sorted(chosen)]


def _quotas(sizes: Sequence[int], n: int) -> list[int]:
    """Each group's share of ``n``: one each first (while ``n`` lasts, largest groups first),
    then the rest in proportion to size by largest remainder, never above a group's size."""
    quota = [0] * len(sizes)
    by_size = sorted(range(len(sizes)), key=lambda i: (-sizes[i], i))
    for i in by_size[:n]:
        quota[i] = 1
    left = n - sum(quota)
    if left <= 0:
        return quota
    room = [s - q for s, q in zip(sizes, quota, strict=True)]
    total_room = sum(room)
    shares = [left * r / total_room for r in room]
    for i, share in enumerate(shares):
        quota[i] += int(share)
    left = n - sum(quota)
    order = sorted(range(len(sizes)), key=lambda i: (-(shares[i] - int(shares[i])), i))
    for i in order:
        if left == 0:
            break
        if quota[i] < sizes[i]:
            quota[i] += 1
            left -= 1
    return quota
