"""Evidence pointers: the sentence (or two) of a passage a verdict rests on, as offsets.

A verdict points at sentences, never at a whole window: inside the stretch the judge quoted
when it quoted one, else inside the window that decided, the sentences are ranked against the
claim (BM25, as evidence selection ranks them) and the best is kept. A second sentence is
added only when it holds claim words the first lacks and matches it well enough: a claim
joining two facts rests on both.
"""

from __future__ import annotations

from collections.abc import Sequence

from judge.pipeline.entail.select import SelectedSpan, rank_sentences
from judge.reading.words import content_forms
from judge.schemas import EvidenceSpan, Passage
from judge.schemas.judging import Premise

# Enough for a claim that joins two facts; more would point at most of a short passage.
POINTER_SENTENCES = 2
# A second sentence must match more than this share as well as the first (scores are relative
# to the best sentence, 1.0). On the Check-COVID dev claims 0.3 points at an annotated rationale
# for 67.5 % of claims with 1.9 sentences (0.5: 62.5 %, 1.7; one sentence only: 48.8 %, 1.1).
SECOND_SENTENCE_SCORE = 0.3


def sentence_pointers(
    claim_text: str,
    premise: Premise,
    passages: Sequence[Passage],
    quoted: Sequence[EvidenceSpan] = (),
) -> list[EvidenceSpan]:
    """The best-matching sentences inside ``quoted`` (the judge's quote) or, without a quote,
    inside ``premise``; empty when no sentence there shares a word with the claim."""
    ranked = rank_sentences(claim_text, passages)
    if quoted:
        inside = [s for s in ranked if any(_overlaps(s, q) for q in quoted)]
    else:
        inside = [s for s in ranked if _in_premise(s, premise)]
    return [_evidence(s) for s in _covering(claim_text, inside)]


def check_pointer(sentence: str, passages: Sequence[Passage]) -> list[EvidenceSpan]:
    """The passage sentence an exact check read (``sentence``, as the check normalised it):
    the best match for it among ``passages``' sentences; empty when none shares a word."""
    ranked = rank_sentences(sentence, passages)
    return [_evidence(ranked[0])] if ranked else []


def _covering(claim_text: str, ranked: list[SelectedSpan]) -> list[SelectedSpan]:
    if not ranked:
        return []
    wanted = content_forms(claim_text)
    chosen = [ranked[0]]
    covered = content_forms(ranked[0].text) & wanted
    for sentence in ranked[1:]:
        if len(chosen) == POINTER_SENTENCES or sentence.score <= SECOND_SENTENCE_SCORE:
            break
        adds = (content_forms(sentence.text) & wanted) - covered
        if adds:
            chosen.append(sentence)
            covered |= adds
    return sorted(chosen, key=lambda s: (s.passage_id, s.start))


def _overlaps(sentence: SelectedSpan, quote: EvidenceSpan) -> bool:
    return (
        sentence.passage_id == quote.passage_id
        and sentence.start < quote.end
        and quote.start < sentence.end
    )


def _in_premise(sentence: SelectedSpan, premise: Premise) -> bool:
    for piece in premise.pieces:
        end = piece.passage_start + (piece.premise_end - piece.premise_start)
        if (
            piece.passage_id == sentence.passage_id
            and piece.passage_start <= sentence.start
            and sentence.end <= end
        ):
            return True
    return False


def _evidence(sentence: SelectedSpan) -> EvidenceSpan:
    return EvidenceSpan(
        passage_id=sentence.passage_id, start=sentence.start, end=sentence.end, text=sentence.text
    )
