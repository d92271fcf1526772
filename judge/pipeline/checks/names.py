"""The name check: a claim must not put another name where its evidence sentence has one.

A 1.5B judge reads "neural gain in EOG-SSVEP power" as "neural gain in EEG-SSVEP power" and
"the Illinois Coalition Against Sexual Assault" as the evidence's "... Against Domestic
Violence". Here a name of the claim that the cited evidence never writes (in any of the forms
:mod:`name_mentions` allows) is a swap when the evidence clause that restates the claim's clause
names something else in its place: a name sharing the claim name's first or last words, one
with the same content word next to it, or one with two of the same words around it.

A name the evidence does write can still be in the wrong place: "Store credit can be used in
any Plus store [R3, R2]" where R3 says "any Brightline store" and R2 mentions the Plus
programme. That is a swap when the evidence sentence that restates the claim (nearly all its
other content words) lacks the name and names another with the same words on both sides of
it, and no evidence sentence that writes the name restates the claim as well.

A name the evidence does not write, with nothing named in its place, is left to the judge:
news claims name the journal or the university that an abstract leaves out, and that is for the
judge to weigh, not a swap. Confident when the clause holds (nearly) all the claim clause's
other content words; with fewer, ``needs_review``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from judge.pipeline.checks.outcome import flagged
from judge.reading import Reading, read
from judge.reading.clauses import phrase_bounds
from judge.reading.ranking import Ranked
from judge.reading.restatement import (
    CONFIDENT_OVERLAP,
    TOP_SENTENCES,
    Grain,
    Restatement,
    best_sentences,
    restatements,
    wanted_forms,
)
from judge.reading.values.names import (
    NameForms,
    NameRun,
    is_acronym_of,
    is_connector,
    shared_start,
    word_key,
    written_fuller,
)
from judge.reading.words import content_forms, content_words, word_form
from judge.schemas import CheckOutcome, CheckStatus, Label

# Fewer context words than this say too little for a swap to be read.
MIN_CONTEXT_WORDS = 2
# A name the evidence writes is read as moved only against this much context.
MOVED_MIN_CONTEXT_WORDS = 3


class NameCheck:
    """Flags a claim whose name the evidence replaces with another where it restates it."""

    name: str = "names"
    lexicon: tuple[str, ...] = ("name_words", "demonyms")

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None:
        said = read(claim)
        text = said.text
        runs = list(said.names)
        if not runs:
            return None
        source = read(evidence)
        forms = source.name_forms
        absent = [(run, _absent_words(run, forms)) for run in runs]
        absent = [(run, words) for run, words in absent if words]
        absent_forms = {word_form(word) for _, words in absent for word in words}
        claim_keys = {word_key(word) for run in runs for word in run.words}
        for run, words in absent:
            context, of_clause = _context(text, run, absent_forms)
            if len(context) < MIN_CONTEXT_WORDS:
                continue
            swap = _replacement(text, source, run, context, claim_keys, by_clause=of_clause)
            if swap is None:
                continue
            return flagged(
                self.name,
                Label.NAME_MISMATCH,
                f"Name {' '.join(run.words)!r} not found in the cited evidence, which names "
                f"{' '.join(swap.other.words)!r} in its place: {swap.clause!r}",
                words,
                confident=swap.overlap >= CONFIDENT_OVERLAP,
                sentence=swap.sentence,
            )
        if not absent:
            for run in runs:
                moved = _moved(text, source, run, claim_keys)
                if moved is not None:
                    return flagged(
                        self.name,
                        Label.NAME_MISMATCH,
                        f"Name {' '.join(run.words)!r} is not in the evidence sentence that "
                        f"restates the claim, which names {' '.join(moved.other.words)!r} in "
                        f"its place: {moved.clause!r}",
                        list(run.words),
                        confident=True,
                        sentence=moved.sentence,
                    )
            return _passed(self.name, "names found in the cited evidence")
        listed = ", ".join(repr(" ".join(run.words)) for run, _ in absent)
        return _passed(
            self.name,
            f"no evidence sentence names another in the place of {listed}, which the cited "
            "evidence does not write: left to the judge",
        )


def _absent_words(run: NameRun, forms: NameForms) -> list[str]:
    if forms.spells(run):
        return []
    return [w for w in run.words if not is_connector(w) and not forms.holds(w)]


def _context(text: str, run: NameRun, absent: set[str]) -> tuple[frozenset[str], bool]:
    """The content words (forms) of the claim clause holding ``run`` but the absent names, or
    of the whole claim when that clause says too little; and whether they are the clause's."""
    start, end = phrase_bounds(text, run.start, run.end)
    words = content_forms(text[start:end]) - absent
    if len(words) >= MIN_CONTEXT_WORDS:
        return words, True
    return content_forms(text) - absent, False


@dataclass(frozen=True)
class _Swap:
    other: NameRun  # the evidence's name in the claim name's place
    clause: str  # the evidence clause (or sentence) restating the claim's
    sentence: str
    overlap: float  # the share of the claim clause's words it holds


def _replacement(
    claim: str,
    source: Reading,
    run: NameRun,
    context: frozenset[str],
    claim_keys: set[str],
    *,
    by_clause: bool,
) -> _Swap | None:
    """A name of the evidence clause (or sentence, unless ``by_clause``) that restates
    ``run``'s, in ``run``'s place, and none of whose words the claim's names (``claim_keys``)
    hold."""
    ranked = best_sentences(claim, source)
    for swap in _named_in_restatements(ranked, context, by_clause=by_clause):
        if all(word_key(word) in claim_keys for word in swap.other.words):
            continue
        if _same_name(run, swap.other):
            continue
        if _aligned(run, swap.other):
            return swap
    return None


def _moved(claim: str, source: Reading, run: NameRun, claim_keys: set[str]) -> _Swap | None:
    """A name of the evidence sentence restating the claim, standing where ``run`` stands
    (the same word on both sides, or the same two words after a name that opens the claim),
    in a sentence that does not write ``run``, when no sentence that writes it restates the
    claim too."""
    own = {word_form(word) for word in run.words}
    context, of_clause = _context(claim, run, own)
    if len(context) < MOVED_MIN_CONTEXT_WORDS:
        return None
    ranked = source.sentences.rank(claim)
    swap = _swap_in(ranked[:TOP_SENTENCES], run, context, claim_keys, by_clause=of_clause)
    if swap is None:
        return None
    for sentence in ranked:
        if _restating(sentence, context, by_clause=of_clause) and _writes(sentence.text, run):
            return None  # the evidence says it of this name too
    return swap


def _swap_in(
    sentences: list[Ranked],
    run: NameRun,
    context: frozenset[str],
    claim_keys: set[str],
    *,
    by_clause: bool,
) -> _Swap | None:
    """The first name of ``sentences`` in ``run``'s place, in a clause that restates the
    claim confidently and in a sentence that does not write ``run``."""
    unwritten = (sentence for sentence in sentences if not _writes(sentence.text, run))
    for swap in _named_in_restatements(unwritten, context, by_clause=by_clause):
        if swap.overlap < CONFIDENT_OVERLAP:
            continue
        if any(word_key(word) in claim_keys for word in swap.other.words):
            continue
        if not _same_name(run, swap.other) and _in_place(run, swap.other):
            return swap
    return None


def _named_in_restatements(
    sentences: Iterable[Ranked], context: frozenset[str], *, by_clause: bool
) -> Iterator[_Swap]:
    """Each name of the phrases of ``sentences`` (or whole sentences, unless ``by_clause``)
    that hold enough of ``context``, with its phrase, in sentence and phrase order: the
    candidates for the name a claim's name was swapped for."""
    for sentence in sentences:
        reading = read(sentence.text)
        for found in _restating(sentence, context, by_clause=by_clause):
            start, end = found.start, found.end
            clause = sentence.text[start:end].strip(" ,;:()[]-–—")
            for other in reading.names:
                if start <= other.start and other.end <= end:
                    yield _Swap(other, clause, sentence.text, found.overlap)


def _restating(sentence: Ranked, context: frozenset[str], *, by_clause: bool) -> list[Restatement]:
    """The phrases of one evidence sentence that hold enough of ``context``, best first
    (unless not ``by_clause``); then the whole sentence, whose subject may stand in a phrase of
    its own ("Its largest customer, Nordvik Energy, accounted for 14% of revenue"). Offsets
    are the sentence's own."""
    reading = read(sentence.text)
    whole = [Ranked(0, len(sentence.text), sentence.text, sentence.score)]
    wanted = wanted_forms(context)
    found = []
    if by_clause:
        found = restatements("", reading, wanted, grain=Grain.PHRASE, sentences=whole)
    return found + restatements("", reading, wanted, grain=Grain.SENTENCE, sentences=whole)


def _same_name(one: NameRun, other: NameRun) -> bool:
    """Whether two runs name the same thing: one an acronym of the other, or one written more
    fully than the other ("Tim Roth" and "Timothy Simon Roth")."""
    return is_acronym_of(one, other) or written_fuller(one, other) or written_fuller(other, one)


def _writes(text: str, run: NameRun) -> bool:
    """Whether ``text`` writes ``run``, or any of its words, in a form a name may take."""
    forms = read(text).name_forms
    return forms.spells(run) or any(
        forms.holds(word) for word in run.words if not is_connector(word)
    )


def _in_place(claim: NameRun, evidence: NameRun) -> bool:
    """The same word on both sides ("any Plus store" for "any Brightline store"), or, for a
    name that opens the claim, the same two words after it with a content word among them."""

    def same(mine: tuple[str, ...], theirs: tuple[str, ...], size: int) -> bool:
        return (
            len(mine) >= size
            and len(theirs) >= size
            and all(
                word_form(a) == word_form(b)
                for a, b in zip(mine[:size], theirs[:size], strict=True)
            )
        )

    if claim.before:
        return same(claim.before, evidence.before, 1) and same(claim.after, evidence.after, 1)
    two_after = same(claim.after, evidence.after, 2)
    return two_after and any(content_words(word) for word in claim.after[:2])


def _aligned(claim: NameRun, evidence: NameRun) -> bool:
    """Whether ``evidence`` stands where ``claim`` stands: the two share their first or last
    words and differ between, or have the same content word next to them, or two of the same
    words around them ("In England, 9 per cent" for "In Wales, 9 per cent")."""
    one = [word_key(word) for word in claim.words]
    other = [word_key(word) for word in evidence.words]
    head = shared_start(one, other)
    tail = shared_start(one[::-1], other[::-1])
    if (head or tail) and min(len(one), len(other)) > head + tail:
        return True
    sides = ((claim.before, evidence.before), (claim.after, evidence.after))
    if any(mine[:1] == theirs[:1] != () and content_words(mine[0]) for mine, theirs in sides):
        return True
    pairs = [pair for mine, theirs in sides for pair in zip(mine, theirs, strict=False)]
    same = sum(word_form(a) == word_form(b) for a, b in pairs)
    return same >= 2


def _passed(check: str, detail: str) -> CheckOutcome:
    return CheckOutcome(check=check, status=CheckStatus.PASSED, detail=detail)
