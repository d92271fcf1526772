"""A repeated identical judge call is answered from the verdict cache, with no request."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.errors import CacheFault
from judge.judges.cache import VerdictCache
from judge.pipeline.entail.windows import build_premises
from judge.schemas import Claim, Passage
from tests.support.fake_judge import FakeJudgeServer, fake_settings

EVIDENCE = "Refunds are issued within 5 to 7 business days after the item arrives."
PREMISE = build_premises([Passage(id="S2", text=EVIDENCE)], window_tokens=700, overlap_tokens=0)[0]
CLAIM = Claim(id="c1", text="Refunds are issued within 5 to 7 business days.", citations=("S2",))
LEDGER = "sha256:" + "a" * 64


async def test_second_identical_call_hits_the_cache(tmp_path: Path) -> None:
    fake = FakeJudgeServer()
    judge = fake.judge(cache=VerdictCache(tmp_path)).for_request(ledger_hash=LEDGER)
    first = await judge.entail(CLAIM, PREMISE, "When?")
    second = await judge.entail(CLAIM, PREMISE, "When?")
    assert len(fake.requests) == 1
    assert first.trace.cached is False and first.trace.calls == 1
    assert second.trace.cached is True and second.trace.calls == 0
    assert second.trace.prompt_tokens == 0
    assert (second.label, second.p_supported, second.evidence_quote) == (
        first.label,
        first.p_supported,
        first.evidence_quote,
    )
    assert second.trace.template_hash == first.trace.template_hash


async def test_cache_is_shared_across_judges_and_new_request_views(tmp_path: Path) -> None:
    first_fake, second_fake = FakeJudgeServer(), FakeJudgeServer()
    await (
        first_fake.judge(cache=VerdictCache(tmp_path))
        .for_request(ledger_hash=LEDGER)
        .entail(CLAIM, PREMISE)
    )
    # Another process-like judge on the same directory, with another nonce.
    again = second_fake.judge(cache=VerdictCache(tmp_path)).for_request(ledger_hash=LEDGER)
    result = await again.entail(CLAIM, PREMISE)
    assert result.trace.cached is True
    assert second_fake.requests == []


@pytest.mark.parametrize("change", ["question", "claim", "ledger", "model", "decoding", "variant"])
async def test_anything_that_can_change_the_verdict_misses(tmp_path: Path, change: str) -> None:
    fake = FakeJudgeServer()
    cache = VerdictCache(tmp_path)
    base = fake.judge(cache=cache).for_request(ledger_hash=LEDGER)
    await base.entail(CLAIM, PREMISE, "When?")
    claim, question, judge = CLAIM, "When?", base
    if change == "question":
        question = "How long?"
    elif change == "claim":
        claim = Claim(id="c1", text="Refunds are issued within 7 business days.")
    elif change == "ledger":
        judge = fake.judge(cache=cache).for_request(ledger_hash="sha256:" + "b" * 64)
    elif change == "model":
        judge = fake.judge(cache=cache, model="other-model").for_request(ledger_hash=LEDGER)
    elif change == "decoding":
        judge = fake.judge(fake_settings(max_tokens=300), cache=cache).for_request(
            ledger_hash=LEDGER
        )
    else:
        judge = fake.judge(cache=cache, variant="quote_first").for_request(ledger_hash=LEDGER)
    result = await judge.entail(claim, PREMISE, question)
    assert result.trace.cached is False
    assert len(fake.requests) == 2


async def test_a_corrupt_entry_fails_closed(tmp_path: Path) -> None:
    fake = FakeJudgeServer()
    cache = VerdictCache(tmp_path)
    judge = fake.judge(cache=cache).for_request(ledger_hash=LEDGER)
    await judge.entail(CLAIM, PREMISE)
    store = cache._store
    for key in list(store.iterkeys()):
        store.set(key, '{"format": 1, "label": "supported"}')
    with pytest.raises(CacheFault):
        await judge.entail(CLAIM, PREMISE)
    assert len(fake.requests) == 1


async def test_disabled_cache_makes_every_call(tmp_path: Path) -> None:
    settings = fake_settings(cache_enabled=False, state_dir=tmp_path)
    assert VerdictCache.from_settings(settings) is None
    fake = FakeJudgeServer()
    judge = fake.judge(settings, cache=VerdictCache.from_settings(settings))
    await judge.entail(CLAIM, PREMISE)
    await judge.entail(CLAIM, PREMISE)
    assert len(fake.requests) == 2
