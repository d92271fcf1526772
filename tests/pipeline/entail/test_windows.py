"""Premises and windows: offsets map back to the passages exactly."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.pipeline.entail import windows
from judge.pipeline.entail.tokens import count_tokens, encoding
from judge.pipeline.entail.windows import SourceSpan, build_premises, premises_for_claim
from judge.schemas import Claim, EvidenceLedger, Passage
from judge.schemas.judging import Premise


def _assert_pieces_map_back(premise: Premise, passages: list[Passage]) -> None:
    texts = {p.id: p.text for p in passages}
    for piece in premise.pieces:
        length = piece.premise_end - piece.premise_start
        original = texts[piece.passage_id][piece.passage_start : piece.passage_start + length]
        assert premise.text[piece.premise_start : piece.premise_end] == original
        assert original.strip() == original and original


def test_tokenizer_loads_offline() -> None:
    assert encoding().name == "cl100k_base"
    assert count_tokens("hello world") == 2
    assert count_tokens("<|endoftext|>") > 1  # special tokens are ordinary text here


def test_one_passage_fits_one_window() -> None:
    passage = Passage(id="S1", text="  Refunds take 5 days. Shipping is free.\n")
    (premise,) = build_premises([passage], window_tokens=700, overlap_tokens=100)
    assert premise.text == "[S1]\nRefunds take 5 days. Shipping is free."
    assert (premise.window_index, premise.window_count) == (0, 1)
    assert premise.passage_ids == ["S1"]
    _assert_pieces_map_back(premise, [passage])
    (piece,) = premise.pieces
    assert piece.passage_start == 2


def test_several_passages_are_concatenated_with_their_ids() -> None:
    passages = [Passage(id="S1", text="Alpha is first."), Passage(id="S2", text="Beta is second.")]
    (premise,) = build_premises(passages, window_tokens=700, overlap_tokens=0)
    assert premise.text == "[S1]\nAlpha is first.\n\n[S2]\nBeta is second."
    assert premise.passage_ids == ["S1", "S2"]
    _assert_pieces_map_back(premise, passages)


def test_long_evidence_is_windowed_on_sentences_with_overlap() -> None:
    sentences = [
        f"Rule {i} says that parcels to zone {i} weigh under {i + 3} kilograms." for i in range(80)
    ]
    passage = Passage(id="L1", text=" ".join(sentences))
    premises = build_premises([passage], window_tokens=150, overlap_tokens=40)
    assert len(premises) > 4
    for index, premise in enumerate(premises):
        assert premise.window_index == index and premise.window_count == len(premises)
        assert count_tokens(premise.text) <= 150 + 5
        _assert_pieces_map_back(premise, [passage])
        body = premise.text.split("\n", 1)[1]
        # Windows start and end on sentence boundaries.
        assert body.startswith("Rule ") and body.endswith("kilograms.")
    for first, second in itertools.pairwise(premises):
        last_sentence = first.text.rsplit("Rule ", 1)[1]
        assert ("Rule " + last_sentence) in second.text  # the overlap repeats the seam
    # Every sentence is in some window.
    covered = " ".join(p.text for p in premises)
    assert all(s in covered for s in sentences)


def test_without_overlap_windows_do_not_repeat() -> None:
    text = " ".join(f"Sentence number {i} is here." for i in range(60))
    premises = build_premises([Passage(id="A", text=text)], window_tokens=100, overlap_tokens=0)
    starts = [p.pieces[0].passage_start for p in premises]
    ends = [
        p.pieces[-1].passage_start + p.pieces[-1].premise_end - p.pieces[-1].premise_start
        for p in premises
    ]
    assert all(e <= s for e, s in zip(ends, starts[1:], strict=False))


def test_an_over_long_sentence_is_cut_by_tokens() -> None:
    text = "word " * 600 + "end."
    passage = Passage(id="W", text=text)
    premises = build_premises([passage], window_tokens=100, overlap_tokens=0)
    assert len(premises) >= 6
    for premise in premises:
        assert count_tokens(premise.text) <= 110
        _assert_pieces_map_back(premise, [passage])


def test_selected_spans_map_back_and_join_non_adjacent_stretches() -> None:
    s1 = Passage(id="S1", text="One. Two is here. Three. Four is there.")
    s2 = Passage(id="S2", text="Other passage text.")
    spans = [SourceSpan("S1", 5, 17), SourceSpan("S1", 25, 39), SourceSpan("S2", 0, 19)]
    (premise,) = build_premises([s1, s2], spans, window_tokens=700, overlap_tokens=0)
    assert premise.text == "[S1]\nTwo is here.\n…\nFour is there.\n\n[S2]\nOther passage text."
    assert [p.passage_start for p in premise.pieces] == [5, 25, 0]
    _assert_pieces_map_back(premise, [s1, s2])


def test_adjacent_spans_merge_into_one_piece() -> None:
    s1 = Passage(id="S1", text="One. Two. Three.")
    spans = [SourceSpan("S1", 0, 5), SourceSpan("S1", 5, 10)]
    (premise,) = build_premises([s1], spans, window_tokens=700, overlap_tokens=0)
    assert premise.text == "[S1]\nOne. Two."
    assert len(premise.pieces) == 1


def test_overlapping_spans_show_text_once() -> None:
    s1 = Passage(id="S1", text="One. Two. Three. Four.")
    spans = [SourceSpan("S1", 0, 9), SourceSpan("S1", 5, 16), SourceSpan("S1", 17, 22)]
    (premise,) = build_premises([s1], spans, window_tokens=700, overlap_tokens=0)
    assert premise.text == "[S1]\nOne. Two. Three. Four."
    _assert_pieces_map_back(premise, [s1])


@pytest.mark.parametrize(
    "span",
    [
        SourceSpan("S9", 0, 3),
        SourceSpan("S1", 3, 3),
        SourceSpan("S1", 0, 999),
        SourceSpan("S1", -1, 2),
    ],
)
def test_bad_spans_are_refused(span: SourceSpan) -> None:
    with pytest.raises(ValueError):
        build_premises(
            [Passage(id="S1", text="Short text.")], [span], window_tokens=700, overlap_tokens=0
        )


def test_blank_or_empty_selection_is_refused() -> None:
    passage = Passage(id="S1", text="Text.   more")
    with pytest.raises(ValueError):
        build_premises([passage], [], window_tokens=700, overlap_tokens=0)
    with pytest.raises(ValueError):
        build_premises([passage], [SourceSpan("S1", 5, 8)], window_tokens=700, overlap_tokens=0)


def test_premises_for_claim_follow_citation_order() -> None:
    ledger = EvidenceLedger(
        passages=(Passage(id="A", text="Alpha."), Passage(id="B", text="Beta."))
    )
    claim = Claim(id="c", text="x", citations=("B", "A"))
    (premise,) = premises_for_claim(claim, ledger, window_tokens=700, overlap_tokens=0)
    assert premise.passage_ids == ["B", "A"]
    with pytest.raises(ValueError):
        premises_for_claim(
            Claim(id="c", text="x", citations=("Z",)), ledger, window_tokens=700, overlap_tokens=0
        )


# Passages of sentences in several scripts (one to four UTF-8 bytes a character), window sizes
# and overlaps around the sizes where windows start to be cut.
_PASSAGES = st.lists(
    st.text(alphabet=st.sampled_from(list("ab1 .!?\n\t’<>é中😀")), min_size=1, max_size=300),
    min_size=1,
    max_size=3,
).map(lambda texts: [Passage(id=f"P{i}", text=t) for i, t in enumerate(texts) if t.strip()])
_WINDOWS = st.integers(min_value=64, max_value=200)
_OVERLAPS = st.integers(min_value=0, max_value=60)


@settings(max_examples=40, deadline=None)
@given(_PASSAGES, _WINDOWS, _OVERLAPS)
def test_any_windowing_maps_back_exactly(
    passages: list[Passage], window: int, overlap: int
) -> None:
    if not passages:
        return
    premises = build_premises(passages, window_tokens=window, overlap_tokens=overlap)
    for premise in premises:
        _assert_pieces_map_back(premise, passages)
    # All non-blank text is covered.
    for passage in passages:
        covered = [False] * len(passage.text)
        for premise in premises:
            for piece in premise.pieces:
                if piece.passage_id == passage.id:
                    for k in range(piece.premise_end - piece.premise_start):
                        covered[piece.passage_start + k] = True
        assert all(covered[i] for i, ch in enumerate(passage.text) if not ch.isspace())


@settings(max_examples=60, deadline=None)
@given(_PASSAGES, _WINDOWS, _OVERLAPS)
def test_the_byte_bound_shortcut_gives_the_windows_exact_counts_give(
    passages: list[Passage], window: int, overlap: int
) -> None:
    if not passages:
        return
    shortcut = build_premises(passages, window_tokens=window, overlap_tokens=overlap)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(windows, "_fits_by_bytes", lambda *_args: False)
        exact = build_premises(passages, window_tokens=window, overlap_tokens=overlap)
    assert shortcut == exact


def test_evidence_within_the_byte_bound_is_windowed_without_the_tokenizer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(_text: str) -> int:
        raise AssertionError("the tokenizer was asked")

    monkeypatch.setattr(windows, "count_tokens", refuse)
    short = [Passage(id="S1", text="Refunds take 5 days. Fees are not refunded.")]
    (premise,) = build_premises(short, window_tokens=200, overlap_tokens=0)
    assert premise.text == "[S1]\nRefunds take 5 days. Fees are not refunded."
    # Past the bound (168 bytes with the header's 6) the exact count is needed.
    build_premises([Passage(id="S1", text="x" * 162)], window_tokens=200, overlap_tokens=0)
    with pytest.raises(AssertionError, match="tokenizer"):
        build_premises([Passage(id="S1", text="x" * 163)], window_tokens=200, overlap_tokens=0)
