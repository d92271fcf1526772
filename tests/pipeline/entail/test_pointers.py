"""A verdict points at the sentence it rests on, by offsets in its passage, not at a window."""

from __future__ import annotations

from judge.pipeline.entail.claim import pointer_spans
from judge.pipeline.entail.pointers import sentence_pointers
from judge.pipeline.entail.windows import build_premises
from judge.pipeline.ledger import freeze_ledger
from judge.schemas import EvidenceSpan, Passage
from tests.support.fake_judge import fake_settings

TEXT = (
    "The museum opened in 1998 on the river bank. "
    "Entry is free for children under twelve. "
    "The cafe closes at five in the afternoon."
)
PASSAGE = Passage(id="P1", text=TEXT)
PREMISE = build_premises([PASSAGE], window_tokens=700, overlap_tokens=0)[0]


def _sentence(fragment: str) -> tuple[int, int]:
    start = TEXT.index(fragment)
    end = TEXT.index(".", start) + 1
    return start, end


def test_pointer_is_the_matching_sentence_with_its_offsets() -> None:
    pointed = sentence_pointers("Entry is free for children.", PREMISE, [PASSAGE])
    assert [(p.passage_id, p.start, p.end) for p in pointed] == [("P1", *_sentence("Entry"))]
    assert pointed[0].text == TEXT[pointed[0].start : pointed[0].end]


def test_a_quote_over_the_whole_passage_narrows_to_its_best_sentence() -> None:
    whole = EvidenceSpan(passage_id="P1", start=0, end=len(TEXT), text=TEXT)
    pointed = sentence_pointers("The cafe closes at five.", PREMISE, [PASSAGE], [whole])
    assert [(p.start, p.end) for p in pointed] == [_sentence("The cafe")]


def test_a_claim_joining_two_facts_points_at_both_sentences() -> None:
    pointed = sentence_pointers(
        "The museum opened in 1998 and its cafe closes at five.", PREMISE, [PASSAGE]
    )
    assert [(p.start, p.end) for p in pointed] == [_sentence("The museum"), _sentence("The cafe")]


def test_a_second_sentence_adding_no_claim_word_is_left_out() -> None:
    pointed = sentence_pointers("The museum opened in 1998.", PREMISE, [PASSAGE])
    assert [(p.start, p.end) for p in pointed] == [_sentence("The museum")]


def test_a_quote_no_sentence_matches_is_kept_and_no_match_falls_back_to_the_window() -> None:
    ledger = freeze_ledger([PASSAGE], fake_settings())
    quote = EvidenceSpan(passage_id="P1", start=0, end=10, text=TEXT[:10])
    assert sentence_pointers("Zebras graze.", PREMISE, [PASSAGE]) == []
    assert pointer_spans("Zebras graze.", PREMISE, [PASSAGE], ledger, quoted=[quote]) == [quote]
    window = pointer_spans("Zebras graze.", PREMISE, [PASSAGE], ledger)
    assert [(p.start, p.end) for p in window] == [(0, len(TEXT))]
