"""Verdicts whose score cannot be read: a judge server that sends no logprobs, or NaN,
+/-infinity or a positive logprob on the answer token.

Each case is a clean seed answered by a permissive fake judge (it supports every claim) whose
replies carry the fault, so the answer would pass if a verdict were decided on its bare label.
It must be blocked: a verdict without a readable score is a ``verifier_error``.
"""

from __future__ import annotations

from collections.abc import Callable

from judge.redteam.model import Attack, Expect, Expectation, Seed, Variant
from judge.testing.rule_judge import SCORE_FAULT_NAMES

FAMILY = "scores"
_BLOCK = Expectation(Expect.MUST_BLOCK)
_ABOUT = {
    "missing": "verdicts without logprobs",
    "nan": "a NaN logprob on the answer token",
    "infinity": "a +Infinity logprob on the answer token",
    "minus_infinity": "a -Infinity logprob on the sampled answer token",
    "positive": "a logprob above zero on the answer token",
}


def _faulty(fault: str) -> Callable[[Seed], Variant | None]:
    def build(seed: Seed) -> Variant:
        return Variant(seed.request(), _BLOCK, judge_fault=fault)

    return build


ATTACKS: tuple[Attack, ...] = tuple(
    Attack(FAMILY, f"score_{fault}", _ABOUT[fault], _faulty(fault)) for fault in SCORE_FAULT_NAMES
)
