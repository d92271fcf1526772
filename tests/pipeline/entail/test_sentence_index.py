"""The cached sentence index ranks exactly as rank_sentences does, and keeps only the top."""

from __future__ import annotations

import pytest

from judge.pipeline.entail.select import rank_sentences, sentence_index
from judge.schemas import Passage

TEXT = (
    "Refunds are issued within 5 to 7 business days. Shipping fees are non-refundable. "
    "Opened items receive store credit. Refunds of opened items are never issued in cash. "
    "The warehouse receives returns on weekdays."
)


@pytest.mark.parametrize(
    "claim",
    ["Refunds take 5 days.", "opened items refunds", "cash refunds of shipping fees", "zebra"],
)
def test_index_ranks_as_rank_sentences(claim: str) -> None:
    expected = rank_sentences(claim, [Passage(id="e", text=TEXT)])
    got = sentence_index("e", TEXT).rank(claim)
    assert [(s.start, s.end, s.text) for s in got] == [(s.start, s.end, s.text) for s in expected]
    assert [s.score for s in got] == pytest.approx([s.score for s in expected])


def test_top_keeps_the_best_and_the_index_is_built_once() -> None:
    index = sentence_index("e", TEXT)
    assert sentence_index("e", TEXT) is index
    full = index.rank("refunds opened items cash")
    assert index.rank("refunds opened items cash", top=2) == full[:2]
    assert full[0].score == 1.0


def test_text_without_words_ranks_nothing() -> None:
    assert sentence_index("e", "... !!! ...").rank("refunds") == []
