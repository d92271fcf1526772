"""Sentences cut from a growing text are the sentences the buffered pipeline splits, whatever the
chunking; no cut falls where text still to come could move it, and the length limit holds."""

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
    'The maker says "the kettle is fine. It has a warranty of 2 years" [S1]. It is [S2].',
    "The fee is 40 euros (before the discount. After it, 30 euros) [S1]. Next [S2].",
    "The kettle costs the following amount, in euros [S1]:\n40. The body is steel [S1].",
    "Steps:\n1. Open the box [S1].\n2. Take the kettle out [S2].\n3. Plug it in [S1].",
    "It costs this much [S1]: 40. The body is steel [S1].",
    "The kettle costs 45\neuros [S1]. The warranty is 2\nyears [S2].",
]


def cut_all(text: str, pieces: list[str], limit: int = 10_000) -> list[CutSentence]:
    cutter = SentenceCutter(IDS, max_sentence_chars=limit)
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
    cutter = SentenceCutter(IDS, max_sentence_chars=10_000)
    assert cutter.feed("He met J. The") == []  # "J. Thelma" would not end a sentence
    assert cutter.feed("lma at noon. The") == []
    found = cutter.feed(" office")
    assert [c.sentence.text for c in found] == ["He met J. Thelma at noon."]


def test_a_citation_after_the_full_stop_waits_to_join_its_sentence() -> None:
    cutter = SentenceCutter(IDS, max_sentence_chars=10_000)
    assert cutter.feed("Refunds take 5 days. [S") == []  # half a marker is not malformed
    assert cutter.feed("2] [S3") == []
    found = cutter.feed("] Next one")
    assert [c.sentence.text for c in found] == ["Refunds take 5 days. [S2] [S3]"]
    assert found[0].claims[0].citations == ("S2", "S3")


def test_a_malformed_citation_in_complete_text_is_an_input_error() -> None:
    cutter = SentenceCutter(IDS, max_sentence_chars=10_000)
    with pytest.raises(InputError) as caught:
        cutter.feed("Refunds take 5 days [S1;S2]. Next one is here.")
    assert caught.value.field == "answer"


def test_a_long_run_is_never_cut_at_a_blank_or_a_line_break() -> None:
    # No flush: a value is not cut from its unit, whatever the length or the line breaks.
    cutter = SentenceCutter(IDS, max_sentence_chars=200)
    run_on = "The kettle, which is sold in many shops and online, costs 45"
    assert cutter.feed(run_on) == []
    assert cutter.feed("\ndollars, a price that") == []
    found = cutter.feed(" is fair [S1]. The next")
    assert [c.sentence.text for c in found] == [run_on + "\ndollars, a price that is fair [S1]."]
    assert found[0].claims[0].text.endswith("costs 45 dollars, a price that is fair.")


def test_a_quotation_is_not_cut_before_it_closes() -> None:
    cutter = SentenceCutter(IDS, max_sentence_chars=10_000)
    first = cutter.feed('It is fine [S2]. The maker says "the kettle is fine. It has ')
    assert [c.sentence.text for c in first] == ["It is fine [S2]."]
    assert cutter.feed("a warranty of ") == []
    assert cutter.feed('2 years" [S1]. Then') == []
    found = cutter.feed(" more")
    assert [c.sentence.text for c in found] == [
        'The maker says "the kettle is fine. It has a warranty of 2 years" [S1].'
    ]


def test_a_parenthesis_is_not_cut_before_it_closes() -> None:
    cutter = SentenceCutter(IDS, max_sentence_chars=10_000)
    assert cutter.feed("The fee is 40 euros (before the discount. After it, ") == []
    assert cutter.feed("30 euros) [S1]. Then") == []
    found = cutter.feed(" more")
    assert [c.sentence.text for c in found] == [
        "The fee is 40 euros (before the discount. After it, 30 euros) [S1]."
    ]


def test_a_number_in_a_list_markers_place_is_read_as_a_value() -> None:
    # In whichever chunk it comes, "40." is not a list item's number: the claim keeps it.
    text = "The kettle costs the following amount, in euros [S1]:\n40. The body is steel [S1]."
    for pieces in ([text], list(text), [text[:55], text[55:]]):
        found = cut_all(text, pieces)
        assert [c.claims[0].text for c in found][-1] == "40. The body is steel."
    listed = "Steps:\n1. Open the box [S1].\n2. Take it out [S2]."
    found = cut_all(listed, list(listed))
    assert [c.claims[0].text for c in found] == ["Steps:", "Open the box.", "Take it out."]


def test_a_run_without_a_sentence_end_past_the_limit_stops_the_cutter() -> None:
    cutter = SentenceCutter(IDS, max_sentence_chars=50)
    assert cutter.feed("words " * 8) == []
    with pytest.raises(SentenceTooLong) as caught:
        cutter.feed("words words ")
    assert caught.value.field == "answer" and "limit is 50" in str(caught.value)


def test_a_sentence_over_the_limit_is_refused_even_when_it_ends() -> None:
    cutter = SentenceCutter(IDS, max_sentence_chars=50)
    with pytest.raises(SentenceTooLong):
        cutter.feed("x" * 40 + " " + "y" * 30 + " [S1]. Next one")
