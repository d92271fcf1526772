"""Does a text still answer the question? A lexical rule over the question's slots. Pure.

Checked against the *supported* claims only, so that what answers the question is also what
the evidence backs. The question is cut into slots:

* **entity** slots: names, acronyms and identifiers: a content word written with a capital
  letter other than the first word of a sentence (``Devils``, ``IRS``), or a word that mixes
  letters and digits (``Q3``, ``SKU42``). Each one must appear in the text.
* a **number** slot: when the question holds a number (``1961``, ``4.2``), the text must state a
  number too: the same one or a correction, so "No, it was 1962" still answers.
* a **quantity** cue (``how many``, ``how long``, ``what percentage``, a clause opening with
  ``when`` ...): the text must state a number or name a month.
* **topic** slots: every other content word (function words, words of conversation and question
  words such as ``explain`` or ``true`` left out). At least half of them, rounded up, must appear.

A word appears when its light stem (:func:`judge.reading.words.word_form`) equals
the stem of a word in
the text, or when one stem is a prefix of the other and the shorter has four letters or more
(``refund`` and ``refundable``). A question with no slot at all is answered by any supported
content. The fixed refusal sentence never answers.

This rule is deliberately simple and errs towards "does not answer": a synonym ("money back"
for "refund") is not recognised, which makes the caller regenerate rather than pass a repaired
answer that lost its point.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from judge.pipeline.claims.sentences import is_factual
from judge.reading.sentences import split_sentences
from judge.reading.words import content_words, word_form, words
from judge.text.citations import parse_citations, remove_markers

REFUSAL_SENTENCE = "The evidence does not contain the answer to this question."

# Words that shape a question rather than name what it is about.


def _forms(text: str) -> frozenset[str]:
    return frozenset(word_form(w) for w in text.split())


_QUESTION_WORDS = _forms(
    """
    what which who whom whose when where why how whether
    is are was were do does did can could should would will may might must shall
    explain explained describe tell give list show state say says said mean means answer
    use using used true false really actually correct right wrong evidence
    get gets got go goes going make makes take takes
    many much long often old far soon
    something anything everything thing things way ways kind sort
    """
)
_QUANTITY_CUE = re.compile(
    r"\b(?:how\s+(?:many|much|long|often|old|far|big|large|soon|high|low)"
    r"|what\s+(?:percentage|percent|share|rate|amount|price|cost|number|year|date|time|day|age)"
    r"|(?:^|[.?!;:,]\s*|\b(?:and|or|but)\s+)when)\b",
    re.IGNORECASE,
)
_MONTHS = _forms(
    "january february march april june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
)
_PREFIX_MIN = 4


class SlotKind(StrEnum):
    ENTITY = "entity"
    NUMBER = "number"
    TOPIC = "topic"


@dataclass(frozen=True)
class Slot:
    word: str  # as the question writes it
    form: str  # its stem, for matching
    kind: SlotKind


@dataclass(frozen=True)
class AnswerCheck:
    answers: bool
    reason: str
    addressed: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()  # slots (as the question writes them) the text leaves out


def question_slots(question: str) -> list[Slot]:
    """The entity, number and topic slots of ``question``, each stem once, in question order."""
    starts = {s.span.start for s in split_sentences(question, strict=False)}
    slots: list[Slot] = []
    seen: set[str] = set()
    for word, start, _end in content_words(question):
        form = word_form(word)
        if form in seen or form in _QUESTION_WORDS:
            continue
        seen.add(form)
        slots.append(Slot(word, form, _kind(word, at_sentence_start=start in starts)))
    return slots


def check_answer(question: str, supported: Sequence[str]) -> AnswerCheck:
    """Whether the ``supported`` claim texts, taken together, answer ``question``."""
    texts = [t for t in supported if t.strip() and not is_refusal(t)]
    if not any(is_factual(t) for t in texts):
        return AnswerCheck(False, "no supported content")
    forms = {word_form(w) for text in texts for w, _, _ in words(_plain(text))}
    has_number = any(any(ch.isdigit() for ch in f) for f in forms)
    has_date_word = bool(forms & _MONTHS)

    slots = question_slots(question)
    addressed: list[str] = []
    missing: list[str] = []
    for slot in slots:
        found = has_number if slot.kind is SlotKind.NUMBER else _appears(slot.form, forms)
        (addressed if found else missing).append(slot.word)

    lost = [s.word for s in slots if s.kind is not SlotKind.TOPIC and s.word in missing]
    if lost:
        return _result(False, f"leaves out {', '.join(lost)}", addressed, missing)
    if _QUANTITY_CUE.search(question) and not (has_number or has_date_word):
        reason = "the question asks for a quantity or date; none is stated"
        return _result(False, reason, addressed, missing)
    topics = [s.word for s in slots if s.kind is SlotKind.TOPIC]
    need = math.ceil(len(topics) / 2)
    got = sum(1 for word in topics if word in addressed)
    if got < need:
        reason = f"addresses {got} of {len(topics)} topic words (needs {need})"
        return _result(False, reason, addressed, missing)
    return _result(True, "addresses the question", addressed, missing)


def split_refusal(text: str) -> tuple[bool, str]:
    """Whether ``text`` holds the refusal sentence, and the text with it removed."""
    kept: list[str] = []
    found = False
    for sentence in split_sentences(text, strict=False):
        if _normalise(sentence.text) == _REFUSAL_NORMALISED:
            found = True
        else:
            kept.append(sentence.text)
    return found, " ".join(kept)


def is_refusal(text: str) -> bool:
    """True when ``text`` is the refusal sentence and nothing with content besides."""
    found, rest = split_refusal(text)
    return found and not is_factual(rest)


def _kind(word: str, *, at_sentence_start: bool) -> SlotKind:
    has_digit = any(ch.isdigit() for ch in word)
    has_alpha = any(ch.isalpha() for ch in word)
    if has_digit and not has_alpha:
        return SlotKind.NUMBER
    if has_digit:
        return SlotKind.ENTITY  # an identifier: Q3, SKU42
    if len(word) > 1 and word.isupper():
        return SlotKind.ENTITY  # an acronym
    if word[0].isupper() and not at_sentence_start:
        return SlotKind.ENTITY
    return SlotKind.TOPIC


def _appears(form: str, forms: Iterable[str]) -> bool:
    for other in forms:
        if other == form:
            return True
        short, long = sorted((form, other), key=len)
        if len(short) >= _PREFIX_MIN and long.startswith(short):
            return True
    return False


def _plain(text: str) -> str:
    return remove_markers(text, parse_citations(text, strict=False))


def _normalise(text: str) -> str:
    plain = " ".join(_plain(text).split()).lower()
    return plain.strip(" \"'“”‘’*_.!").replace("’", "'")


def _result(
    answers: bool, reason: str, addressed: Sequence[str], missing: Sequence[str]
) -> AnswerCheck:
    return AnswerCheck(answers, reason, tuple(addressed), tuple(missing))


_REFUSAL_NORMALISED = _normalise(REFUSAL_SENTENCE)
