"""Complete sentences out of a growing text, cut by the verifier's own sentence splitter.

The splitter (:func:`judge.pipeline.claims.sentences.split_answer`) is used as it is: the text
not yet cut is split again as each chunk arrives, and every sentence but the last is complete,
because text after it started another one. A cut is made only where no text still to come can
move it, so that every sentence handed out is the one the buffered pipeline splits from the
whole answer, whatever the chunking:

* the sentence after it must hold a whole word (one with a blank after it) that is not a
  bracket group: the splitter decides some boundaries by the next word ("J. The" ends a
  sentence, "J. Thelma" does not), and citation markers after a full stop belong to the
  sentence before them (``policy. [S1]``);
* a quotation, parenthesis or bracket opened on the last line and not closed yet holds back
  everything from its opening on: no sentence ends inside a closed one (``He said "Stop. Now."
  and left``), and a marker still arriving (``[S1``) is never read as a malformed one;
* the split of the rest knows what came before it: whether it starts a line, and the last
  list item's number, so that ``40. The body ...`` is read as a value whichever chunk it is in;
* the last sentence is complete only when the stream ends.

There is no cut anywhere else: a value is never cut from its unit, a range from its end or a
quotation from its close. A sentence longer than ``max_sentence_chars``, or a run of that many
characters still waiting for its end, stops the stream (:class:`SentenceTooLong`); none of it
is handed out.

Claims are built the way the buffered pipeline builds them (one per sentence, the text without
its markers, the ids it cites), numbered across the whole answer.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection
from dataclasses import dataclass

from judge.errors import InputError
from judge.pipeline.claims.sentences import split_answer
from judge.reading.sentences import Preceding, Sentence, open_enclosure, preceding
from judge.schemas import CharSpan, Claim

__all__ = ["CutSentence", "SentenceCutter", "SentenceTooLong"]

# A whole word after a cut: a run of non-blanks that is not a bracket group, with a blank after.
_SETTLED_WORD = re.compile(r"(?:^|\s)[^\s\[][^\s]*\s")


class SentenceTooLong(InputError):
    """A sentence, or the run of text waiting for its end, is over the limit."""


@dataclass(frozen=True)
class CutSentence:
    """One complete sentence: its place in the answer and the claims it holds."""

    index: int  # among the answer's sentences
    sentence: Sentence  # its span is into the whole text
    claims: tuple[Claim, ...]


class SentenceCutter:
    """Feed it chunks; it hands back each sentence once it is complete, in order."""

    def __init__(self, known_ids: Collection[str], *, max_sentence_chars: int) -> None:
        if max_sentence_chars < 2:
            raise ValueError("max_sentence_chars must be at least 2")
        self.known_ids = frozenset(known_ids)
        self.max_sentence_chars = max_sentence_chars
        self.text = ""
        self._cut_at = 0  # everything before this offset has been handed out
        self._before = Preceding()  # what the text before ``_cut_at`` leaves for the rest
        self._sentences = 0
        self._claims = 0

    @property
    def pending(self) -> str:
        """The text received and not yet cut into a sentence."""
        return self.text[self._cut_at :]

    def feed(self, chunk: str) -> list[CutSentence]:
        """Add ``chunk``; the sentences it completed. A malformed citation in text already
        complete raises ``InputError`` (field ``answer``), as the buffered pipeline does; a run
        of ``max_sentence_chars`` characters without a sentence end raises
        :class:`SentenceTooLong`."""
        self.text += chunk
        found = self._complete()
        waiting = len(self.pending.strip())
        if waiting > self.max_sentence_chars:
            raise SentenceTooLong(
                f"{waiting} characters without a sentence end "
                f"(the limit is {self.max_sentence_chars})",
                field="answer",
            )
        return found

    def finish(self) -> list[CutSentence]:
        """The stream ended: whatever is left, split as the buffered pipeline splits it."""
        rest = self.text[self._cut_at :]
        if not rest.strip():
            self._cut_at = len(self.text)
            return []
        sentences, claims = split_answer(rest, known_ids=self.known_ids, after=self._before)
        return self._hand_out(self._cut_at, sentences, claims, len(sentences))

    def _complete(self) -> list[CutSentence]:
        offset = self._cut_at
        view = _settled_view(self.text[offset:])
        if not view.strip():
            return []
        sentences, claims = split_answer(view, known_ids=self.known_ids, after=self._before)
        complete = len(sentences) - 1
        if complete > 0 and not _SETTLED_WORD.search(view[sentences[complete - 1].span.end :]):
            complete -= 1  # the boundary may still move: wait for a whole word after it
        if complete <= 0:
            return []
        return self._hand_out(offset, sentences, claims, complete)

    def _hand_out(
        self, offset: int, sentences: list[Sentence], claims: list[Claim], count: int
    ) -> list[CutSentence]:
        for sentence in sentences[:count]:
            if len(sentence.text) > self.max_sentence_chars:
                raise SentenceTooLong(
                    f"a sentence of {len(sentence.text)} characters "
                    f"(the limit is {self.max_sentence_chars})",
                    field="answer",
                )
        by_sentence: dict[int, list[Claim]] = {}
        for claim in claims:
            if claim.sentence_index is not None:
                by_sentence.setdefault(claim.sentence_index, []).append(claim)
        found: list[CutSentence] = []
        for position in range(count):
            sentence = sentences[position]
            span = _shift(sentence.span, offset)
            index = self._sentences
            self._sentences += 1
            own: list[Claim] = []
            for claim in by_sentence.get(position, []):
                self._claims += 1
                own.append(
                    claim.model_copy(
                        update={
                            "id": f"c{self._claims}",
                            "span": _shift(claim.span, offset) if claim.span else None,
                            "sentence_index": index,
                        }
                    )
                )
            found.append(CutSentence(index, dataclasses.replace(sentence, span=span), tuple(own)))
        if count:
            self._cut_at = offset + sentences[count - 1].span.end
            self._before = preceding(self.text[: self._cut_at])
        return found


def _shift(span: CharSpan, offset: int) -> CharSpan:
    return CharSpan(start=span.start + offset, end=span.end + offset)


def _settled_view(text: str) -> str:
    """``text`` up to a quotation, parenthesis or bracket on its last line that is not closed
    yet: a sentence end inside it may still move."""
    opened = open_enclosure(text)
    return text if opened is None else text[:opened]
