"""The stream against the buffered pipeline, reply by reply, with the same scripted judge: every
reply the buffered path blocks is stopped by the stream before its offending text goes out,
and no text of a claim the buffered path fails is ever released, whatever the chunking.

Over a sample of the red-team corpus and the dev answers here; the gate
(``python -m benchmarks.gates.stream_parity``) runs all of them.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from judge.api import evidence_passages
from judge.config import Settings
from judge.errors import InputError
from judge.redteam.runner import JudgeChoice, judge_settings
from judge.redteam.suite import build_suite, default_seeds
from judge.schemas import Action
from judge.testing.stream_parity import (
    CHUNKINGS,
    JUDGES,
    Chunking,
    JudgeKind,
    chunked,
    rule_judge,
    stream_parity,
)

DEV_ANSWERS = Path(__file__).resolve().parents[3] / "shared" / "data" / "dev" / "dev_answers.jsonl"
BASE = judge_settings(Settings(), JudgeChoice("fake"))
STRIDE = 16  # every sixteenth red-team reply of each family

KETTLE = ["The kettle costs 45 euros. Its warranty lasts 2 years.",
          'The maker says: "The kettle is safe to use every day."']  # fmt: skip
# The faults the stream once let through, each blocked buffered.
ONCE_LEAKED = {
    "value cut from its unit": (
        "The kettle, which many reviewers have praised for its quiet boil and its long cord, "
        "and which comes with a spare filter, costs 45\ndollars [S1]. Its warranty lasts 2 "
        "years [S1]."
    ),
    "warranty cut from its unit": "It has a warranty of 2\nmonths [S1]. It costs 45 euros [S1].",
    "quotation cut before it closes": (
        'The maker says "the kettle is safe to use every day. And every night" [S2]. '
        "It costs 45 euros [S1]."
    ),
    "list-marker number": (
        "The kettle costs the following amount, in euros [S1]:\n40. The body is steel [S1]."
    ),
    "bare reply to the question": "It costs 45 euros [S1]. Its warranty lasts 2 years [S1]. Yes.",
    "citations over every passage": "The kettle costs 45 euros [S1][S2]. It is safe [S1][S2].",
}


def red_team_sample() -> list[tuple[str, list[Any], str, str | None, dict[str, Any]]]:
    by_family: dict[str, list[Any]] = {}
    for case in build_suite(default_seeds()):
        request = case.request
        if isinstance(request, dict) and "answer" in request and not case.judge_fault:
            by_family.setdefault(case.family, []).append(case)
    return [
        (c.id, c.request["evidence"], c.request["answer"], c.request.get("question"), c.settings)
        for cases in by_family.values()
        for c in cases[::STRIDE]
        if len(c.request["answer"]) <= 3000
    ]


def dev_sample() -> list[tuple[str, list[Any], str, str | None, dict[str, Any]]]:
    if not DEV_ANSWERS.exists():
        return []
    records = [json.loads(line) for line in DEV_ANSWERS.read_text(encoding="utf-8").splitlines()]
    return [(f"dev/{r['id']}", r["evidence"], r["answer"], None, {}) for r in records[::8]]


async def assert_parity(
    evidence: list[Any],
    answer: str,
    question: str | None,
    overrides: dict[str, Any],
    kind: JudgeKind,
    how: Chunking,
) -> Action | None:
    settings = BASE.model_copy(update=overrides) if overrides else BASE
    try:
        passages = evidence_passages(evidence)
    except InputError:
        pytest.skip("evidence refused before any verification")
    parity = await stream_parity(
        passages, answer, question, settings, lambda: rule_judge(settings, kind),
        chunked(answer, how),
    )  # fmt: skip
    assert not parity.leaked, (parity.stream_outcome, parity.offending, parity.released)
    assert not parity.released_failing, (parity.failing, parity.released)
    assert parity.same_sentences and parity.same_labels
    return parity.buffered


@pytest.mark.parametrize("how", CHUNKINGS)
@pytest.mark.parametrize("kind", JUDGES)
@pytest.mark.parametrize("fault", sorted(ONCE_LEAKED))
async def test_replies_the_stream_once_let_through_are_stopped(
    fault: str, kind: JudgeKind, how: Chunking
) -> None:
    question = "Does the kettle cost more than 50 euros?" if "bare" in fault else None
    evidence = [{"id": "S1", "text": KETTLE[0]}, {"id": "S2", "text": KETTLE[1]},
                {"id": "S3", "text": "The kettle is sold in three colours."}]  # fmt: skip
    buffered = await assert_parity(evidence, ONCE_LEAKED[fault], question, {}, kind, how)
    assert buffered is Action.BLOCK  # each one is a reply the buffered path blocks


@pytest.mark.parametrize(
    ("source", "evidence", "answer", "question", "overrides"),
    [pytest.param(*reply, id=reply[0]) for reply in red_team_sample() + dev_sample()],
)
async def test_a_blocked_reply_is_stopped_before_its_offending_text(
    source: str,
    evidence: list[Any],
    answer: str,
    question: str | None,
    overrides: dict[str, Any],
) -> None:
    for kind, how in itertools.product(JUDGES, CHUNKINGS):
        await assert_parity(evidence, answer, question, overrides, kind, how)
