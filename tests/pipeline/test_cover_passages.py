"""Under the search policy an uncited claim is judged on its most similar passages, and the exact
checks also read the passages holding the claim words those lack, so a number of a sentence
drawing on several paragraphs of a long article is found where it is."""

from __future__ import annotations

import json

from judge.api import verify
from judge.config import CitationPolicy
from judge.pipeline.entail.select import PassageCover, rank_passages
from judge.schemas import Label, Passage, VerifyResponse
from tests.support.fake_judge import FakeJudgeServer, fake_settings

ARTICLE = [
    Passage(id="p0", text="Moderna reported a fall in fourth quarter vaccine sales."),
    Passage(id="p1", text="Moderna said its vaccine sales fell in the fourth quarter."),
    Passage(id="p2", text="Fourth quarter sales of the vaccine fell, Moderna reported."),
    Passage(
        id="p3",
        text="Looking further ahead, the company told investors on a call that it expects "
        "contracted deliveries worth $5bn over the coming year, a figure it repeated later.",
    ),
]
CLAIM = "Moderna reported a fall in fourth quarter vaccine sales and expects $5bn."


def similar_then_covering(claim: str, passages: list[Passage], top_k: int, extra: int) -> list[str]:
    chosen = [pid for pid, _ in rank_passages(claim, passages, top_k)]
    return chosen + PassageCover(passages).covering(claim, chosen, extra)


def test_a_passage_holding_what_the_similar_ones_lack_is_added() -> None:
    chosen = similar_then_covering(CLAIM, ARTICLE, 2, 2)
    assert chosen[0] == "p0" and "p3" not in chosen[:2]
    assert "p3" in chosen


def test_without_extra_only_the_most_similar() -> None:
    assert "p3" not in similar_then_covering(CLAIM, ARTICLE, 2, 0)


def test_nothing_is_added_when_the_similar_passages_hold_every_word() -> None:
    claim = "Moderna reported a fall in fourth quarter vaccine sales."
    assert similar_then_covering(claim, ARTICLE, 1, 3) == ["p0"]


def test_extra_is_a_bound() -> None:
    passages = [Passage(id=f"p{n}", text=f"Word{n} appears here only.") for n in range(6)]
    claim = " ".join(f"Word{n}" for n in range(6))
    assert len(similar_then_covering(claim, passages, 1, 2)) == 3


async def verify_uncited(
    answer: str, fake: FakeJudgeServer | None = None, **overrides: object
) -> VerifyResponse:
    settings = fake_settings(
        citation_policy=CitationPolicy.SEARCH, check_conclusion=False, **overrides
    )
    evidence = [p.model_dump(include={"id", "text"}) for p in ARTICLE]
    judge = (fake or FakeJudgeServer()).judge(settings)
    return await verify(answer=answer, evidence=evidence, settings=settings, judge=judge)


async def test_the_checks_find_an_uncited_number_in_a_far_paragraph() -> None:
    fake = FakeJudgeServer()
    covered = await verify_uncited(CLAIM, fake)
    similar_only = await verify_uncited(CLAIM, search_cover_k=0)
    assert similar_only.verdicts[0].label is Label.NUMBER_MISMATCH
    assert covered.verdicts[0].label is not Label.NUMBER_MISMATCH
    numbers = [o for o in covered.verdicts[0].checks if o.check == "numbers"]
    assert numbers and all(o.status.value == "passed" for o in numbers)
    # The judge reads the most similar passages only.
    prompts = [json.dumps(r) for r in fake.requests]
    assert prompts and not any("contracted deliveries" in p for p in prompts)


async def test_a_claim_sharing_no_word_gets_the_whole_evidence_when_it_fits() -> None:
    response = await verify_uncited("Profits were a secret everyone guessed.")
    verdict = response.verdicts[0]
    assert verdict.label is not Label.UNCITED and verdict.judge is not None
    assert verdict.evidence and {s.passage_id for s in verdict.evidence} <= {p.id for p in ARTICLE}


async def test_beyond_one_window_a_claim_sharing_no_word_stays_uncited() -> None:
    response = await verify_uncited(
        "Profits were a secret everyone guessed.", window_tokens=64, window_overlap_tokens=0
    )
    assert response.verdicts[0].label is Label.UNCITED
