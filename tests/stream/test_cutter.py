"""Sentences cut from a growing text are the sentences the buffered pipeline splits, whatever the
chunking, and the flush rule and the limits hold."""

from __future__ import annotations

import random

import pytest

from judge.errors import InputError
from judge.pipeline.claims.sentences import split_answer
from judge.stream.cutter import CutSentence, SentenceCutter, SentenceTooLong

IDS = ["S1", "S2", "S3"]
ANSWERS = [
    "Customers may return any unopened item within 30 days [S1]. Refunds take 5 to 7 days [S2].",
    "Dr. Smith joined in 2019 [S1]. He met J. Thelma at the U.S. office [S2]. It grew 3.5% [S1].",
    "Returns are free. [S1] Shipping fees are not refunded. [S2][S3] That is all.",
    "He went to the U.S. The office was closed [S1].",
    "- Opened items get store credit [S1]\n- Refunds go to the card [S2]\n\nThanks!",
    "Version 4.2.1 fixed it [S1]! Really? Yes [S2]… It did.",
    "The policy (see No. 5) applies [S1]. Fees are listed in Fig. 2 [S2].",
    "# Refunds\nRefunds take 5 days [S2].\nOpened items: 14 days [S1].",
]


def cut_all(text: str, pieces: list[str], flush_chars: int = 10_000) -> list[CutSentence]:
    cutter = SentenceCutter(IDS, flush_chars=flush_chars)
    found: list[CutSentence] = []
    for piece in pieces:
        found += cutter.feed(piece)
    found += cutter.finish()
    assert cutter.text == text
    return found


def chunked(text: str, seed: int) -> list[str]:
    rng = random.Random(seed)
    pieces, start = [], 0
    while start < len(text):
        size = rng.randint(1, 12)
        pieces.append(text[start : start + size])
        start += size
    return pieces


@pytest.mark.parametrize("answer", ANSWERS)
@pytest.mark.parametrize("seed", range(6))
def test_any_chunking_cuts_the_sentences_the_buffered_split_finds(answer: str, seed: int) -> None:
    sentences, claims = split_answer(answer, known_ids=IDS)
    pieces = list(answer) if seed == 0 else chunked(answer, seed)
    found = cut_all(answer, pieces)
    assert [c.sentence for c in found] == sentences
    assert [claim for c in found for claim in c.claims] == claims
    assert [c.index for c in found] == list(range(len(sentences)))


def test_a_sentence_is_handed_out_once_a_whole_word_follows_it() -> None:
    cutter = SentenceCutter(IDS, flush_chars=10_000)
    assert cutter.feed("He met J. The") == []  # "J. Thelma" would not end a sentence
    assert cutter.feed("lma at noon. The") == []
    found = cutter.feed(" office")
    assert [c.sentence.text for c in found] == ["He met J. Thelma at noon."]


def test_a_citation_after_the_full_stop_waits_to_join_its_sentence() -> None:
    cutter = SentenceCutter(IDS, flush_chars=10_000)
    assert cutter.feed("Refunds take 5 days. [S") == []  # half a marker is not malformed
    assert cutter.feed("2] [S3") == []
    found = cutter.feed("] Next one")
    assert [c.sentence.text for c in found] == ["Refunds take 5 days. [S2] [S3]"]
    assert found[0].claims[0].citations == ("S2", "S3")


def test_a_malformed_citation_in_complete_text_is_an_input_error() -> None:
    cutter = SentenceCutter(IDS, flush_chars=10_000)
    with pytest.raises(InputError) as caught:
        cutter.feed("Refunds take 5 days [S1;S2]. Next one is here.")
    assert caught.value.field == "answer"


def test_the_flush_rule_cuts_a_run_on_at_its_last_clause_mark() -> None:
    text = "Refunds take five days, opened items get credit, shipping is not refunded, and so on"
    cutter = SentenceCutter(IDS, flush_chars=60)
    found = cutter.feed(text)
    assert [c.flushed for c in found] == [True]
    assert found[0].sentence.text == "Refunds take five days, opened items get credit,"
    assert cutter.pending.lstrip().startswith("shipping")
    rest = cutter.finish()
    assert [c.flushed for c in rest] == [False]
    assert rest[0].sentence.span.start > found[0].sentence.span.end


def test_the_flush_rule_prefers_a_line_break_and_falls_back_to_a_blank() -> None:
    cutter = SentenceCutter(IDS, flush_chars=40)
    found = cutter.feed("first line without a stop\nsecond line that runs on and on")
    assert found[0].sentence.text == "first line without a stop"
    blank = SentenceCutter(IDS, flush_chars=40)
    found = blank.feed("words words words words words words words words")
    assert found[0].flushed and found[0].sentence.text.endswith("words")
    assert len(found[0].sentence.text) <= 40


def test_a_run_without_a_blank_past_the_limit_cannot_be_cut() -> None:
    cutter = SentenceCutter(IDS, flush_chars=50)
    assert cutter.feed("x" * 49) == []
    with pytest.raises(SentenceTooLong) as caught:
        cutter.feed("xx")
    assert caught.value.field == "answer" and "51 characters" in str(caught.value)
