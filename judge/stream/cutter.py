"""Complete sentences out of a growing text, cut by the verifier's own sentence splitter.

The splitter (:func:`judge.pipeline.claims.sentences.split_answer`) is used as it is: the text
not yet cut is split again as each chunk arrives, and every sentence but the last is complete,
because text after it started another one. Three guards keep a cut from being premature:

* the sentence after it must hold a whole word (one with a blank after it) that is not a
  bracket group: the splitter decides some boundaries by the next word ("J. The" ends a
  sentence, "J. Thelma" does not), and citation markers after a full stop belong to the
  sentence before them (``policy. [S1]``);
* an opening bracket not yet closed at the end of the text is left out of the split, so a
  marker still arriving (``[S1``) is never read as a malformed one;
* the last sentence is complete only when the stream ends, or when the flush rule fires: once
  it holds ``flush_chars`` characters it is cut at its last line break, else its last clause
  mark, else its last blank, and that piece is verified as a sentence of its own. A piece
  with no blank at all cannot be cut anywhere honest: :class:`SentenceTooLong`.

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
from judge.reading.sentences import Sentence
from judge.schemas import CharSpan, Claim

__all__ = ["CutSentence", "SentenceCutter", "SentenceTooLong"]

# A whole word after a cut: a run of non-blanks that is not a bracket group, with a blank after.
_SETTLED_WORD = re.compile(r"(?:^|\s)[^\s\[][^\s]*\s")
_CLAUSE_MARK = re.compile(r"[;:,)\u2014\u2013](?=\s)")


class SentenceTooLong(InputError):
    """The text ran past the flush limit without a blank to cut it at."""


@dataclass(frozen=True)
class CutSentence:
    """One complete sentence: its place in the answer and the claims it holds."""

    index: int  # among the answer's sentences
    sentence: Sentence  # its span is into the whole text
    claims: tuple[Claim, ...]
    flushed: bool = False  # cut by the flush rule, not at a sentence end


class SentenceCutter:
    """Feed it chunks; it hands back each sentence once it is complete, in order."""

    def __init__(self, known_ids: Collection[str], *, flush_chars: int) -> None:
        if flush_chars < 2:
            raise ValueError("flush_chars must be at least 2")
        self.known_ids = frozenset(known_ids)
        self.flush_chars = flush_chars
        self.text = ""
        self._cut_at = 0  # everything before this offset has been handed out
        self._sentences = 0
        self._claims = 0

    @property
    def pending(self) -> str:
        """The text received and not yet cut into a sentence."""
        return self.text[self._cut_at :]

    def feed(self, chunk: str) -> list[CutSentence]:
        """Add ``chunk``; the sentences it completed. A malformed citation in text already
        complete raises ``InputError`` (field ``answer``), as the buffered pipeline does."""
        self.text += chunk
        found = self._complete()
        while len(self._rest()) >= self.flush_chars:
            found.extend(self._flush())
            found.extend(self._complete())
        return found

    def finish(self) -> list[CutSentence]:
        """The stream ended: whatever is left, split as the buffered pipeline splits it."""
        rest = self.text[self._cut_at :]
        if not rest.strip():
            self._cut_at = len(self.text)
            return []
        sentences, claims = split_answer(rest, known_ids=self.known_ids)
        return self._hand_out(self._cut_at, sentences, claims, len(sentences))

    def _rest(self) -> str:
        return self.text[self._cut_at :].lstrip()

    def _complete(self) -> list[CutSentence]:
        offset = self._cut_at
        view = _without_open_bracket(self.text[offset:])
        if not view.strip():
            return []
        sentences, claims = split_answer(view, known_ids=self.known_ids)
        complete = len(sentences) - 1
        if complete > 0 and not _SETTLED_WORD.search(view[sentences[complete - 1].span.end :]):
            complete -= 1  # the boundary may still move: wait for a whole word after it
        if complete <= 0:
            return []
        return self._hand_out(offset, sentences, claims, complete)

    def _flush(self) -> list[CutSentence]:
        offset = self._cut_at
        rest = self.text[offset:]
        lead = len(rest) - len(rest.lstrip())
        view = _without_open_bracket(rest)[: lead + self.flush_chars]
        cut = _flush_point(view, lead)
        if cut is None:
            raise SentenceTooLong(
                f"{len(rest) - lead} characters without a blank to cut a sentence at "
                f"(the flush limit is {self.flush_chars})",
                field="answer",
            )
        piece = view[:cut]
        sentences, claims = split_answer(piece, known_ids=self.known_ids)
        found = self._hand_out(offset, sentences, claims, len(sentences), flushed=True)
        self._cut_at = offset + cut
        return found

    def _hand_out(
        self,
        offset: int,
        sentences: list[Sentence],
        claims: list[Claim],
        count: int,
        *,
        flushed: bool = False,
    ) -> list[CutSentence]:
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
            found.append(
                CutSentence(
                    index, dataclasses.replace(sentence, span=span), tuple(own), flushed=flushed
                )
            )
        if count:
            self._cut_at = offset + sentences[count - 1].span.end
        return found


def _shift(span: CharSpan, offset: int) -> CharSpan:
    return CharSpan(start=span.start + offset, end=span.end + offset)


def _without_open_bracket(text: str) -> str:
    """``text`` up to a ``[`` on its last line that is not closed yet (a marker arriving)."""
    opened = text.rfind("[")
    if opened < 0 or "]" in text[opened:] or "\n" in text[opened:]:
        return text
    return text[:opened]


def _flush_point(view: str, lead: int) -> int | None:
    """Where to cut an overlong sentence: after its last line break, clause mark or blank."""
    body = view[lead:]
    newline = body.rfind("\n")
    if newline > 0:
        return lead + newline
    marks = list(_CLAUSE_MARK.finditer(body))
    if marks:
        return lead + marks[-1].end()
    blank = max(body.rfind(" "), body.rfind("\t"))
    return lead + blank if blank > 0 else None
