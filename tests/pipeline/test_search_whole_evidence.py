"""With search_whole_evidence, an uncited claim under the search policy is judged on the whole
evidence when it fits one window, in ledger order, so every claim of the answer shares one
evidence prefix; by default on its most similar passages."""

from __future__ import annotations

from judge.pipeline.ledger import freeze_ledger
from judge.pipeline.search import PassageSearch
from judge.schemas import Passage
from tests.support.fake_judge import fake_settings

PASSAGES = [
    Passage(id="l0", text="Refunds are issued within five days."),
    Passage(id="l1", text="Shipping is free on orders over fifty euros."),
    Passage(id="l2", text="Gift cards cannot be exchanged for cash."),
]


def test_a_small_ledger_is_searched_whole_in_ledger_order() -> None:
    settings = fake_settings(search_whole_evidence=True)
    search = PassageSearch(freeze_ledger(PASSAGES, settings), settings).rank
    assert [pid for pid, _ in search("Shipping is free.", 2)] == ["l0", "l1", "l2"]


def test_a_ledger_over_one_window_falls_back_to_the_most_similar_passages() -> None:
    settings = fake_settings(window_tokens=64, window_overlap_tokens=0, search_whole_evidence=True)
    long = [*PASSAGES, Passage(id="l3", text="Returns need a receipt and the original box. " * 8)]
    search = PassageSearch(freeze_ledger(long, settings), settings).rank
    ranked = [pid for pid, score in search("Shipping is free on orders.", 2) if score > 0]
    assert ranked[0] == "l1" and len(ranked) <= 2


def test_off_by_default() -> None:
    settings = fake_settings()
    search = PassageSearch(freeze_ledger(PASSAGES, settings), settings).rank
    assert next(pid for pid, s in search("Shipping is free.", 2) if s > 0) == "l1"
