"""The sentence index ranks exactly as evidence selection does, and keeps only the top."""

from __future__ import annotations

import pytest

from judge.pipeline.entail.select import rank_sentences
from judge.reading import read
from judge.reading.ranking import SentenceIndex
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
    got = SentenceIndex(TEXT).rank(claim)
    assert [(s.start, s.end, s.text) for s in got] == [(s.start, s.end, s.text) for s in expected]
    assert [s.score for s in got] == pytest.approx([s.score for s in expected])


def test_top_keeps_the_best_and_a_reading_builds_its_index_once() -> None:
    index = read(TEXT).sentences
    assert read(TEXT).sentences is index
    full = index.rank("refunds opened items cash")
    assert index.rank("refunds opened items cash", top=2) == full[:2]
    assert full[0].score == 1.0


def test_text_without_words_ranks_nothing() -> None:
    assert SentenceIndex("... !!! ...").rank("refunds") == []


def test_the_sentence_at_an_offset() -> None:
    index = SentenceIndex(TEXT)
    assert index.at(TEXT.index("non-refundable")) == "Shipping fees are non-refundable."
    assert index.at(len(TEXT) + 5) == ""
