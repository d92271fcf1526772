"""Citation abuse: fabricated ids, citations blanketing the ledger, citations on the wrong
sentence, dropped or malformed markers."""

from __future__ import annotations

import dataclasses

from judge.redteam.model import (
    Attack,
    Expect,
    Expectation,
    Passage,
    Seed,
    Sentence,
    Variant,
)
from judge.redteam.picking import by_support, fully_supported

FAMILY = "citations"
_BLOCK = Expectation(Expect.MUST_BLOCK)
# Unrelated passages that pad a ledger, so citing "every passage" means something.
_FILLER = (
    "The visitor centre is open from 9:00 to 17:00 on weekdays.",
    "Parking permits are issued by the facilities desk on the ground floor.",
    "The staff canteen serves vegetarian dishes every day.",
    "Fire drills take place twice a year and last about fifteen minutes.",
)


def _unknown_id(seed: Seed) -> str:
    known = {p.id for p in seed.evidence}
    candidate = "S404"
    while candidate in known:
        candidate += "x"
    return candidate


def fabricated(seed: Seed) -> Variant:
    """The last sentence cites an id that is not in the ledger, instead of its own."""
    index = len(seed.sentences) - 1
    sentence = Sentence(seed.sentences[index].text, (_unknown_id(seed),))
    return Variant(seed.replace_sentence(index, sentence).request(), _BLOCK)


def fabricated_added(seed: Seed) -> Variant | None:
    """A sentence cites an unknown id next to its real ones."""
    order = by_support(seed)
    if not order:
        return None
    sentence = seed.sentences[order[0]]
    padded = Sentence(sentence.text, (*sentence.cites, _unknown_id(seed)))
    return Variant(seed.replace_sentence(order[0], padded).request(), _BLOCK)


def _padded(seed: Seed, size: int) -> Seed:
    evidence = list(seed.evidence)
    for number, text in enumerate(_FILLER, start=1):
        if len(evidence) >= size:
            break
        evidence.append(Passage(f"pad-{number}", text))
    return seed.with_evidence(evidence)


def stuffing(seed: Seed) -> Variant | None:
    """The seed's true sentences, each citing every passage: the ledger padded to three and
    kept within the per-claim cap of four, so that only stuffing detection can catch it."""
    true = fully_supported(seed)
    if len(seed.evidence) > 4 or not true:
        return None
    padded = _padded(seed.only(*true), 3)
    ids = tuple(p.id for p in padded.evidence)
    stuffed = padded.with_sentences([Sentence(s.text, ids) for s in padded.sentences])
    return Variant(stuffed.request(), _BLOCK)


def over_cap(seed: Seed) -> Variant:
    """One sentence cites five passages, over the per-claim cap."""
    padded = _padded(seed, 5)  # one passage and four fillers make five
    ids = tuple(p.id for p in padded.evidence)[:5]
    first = padded.sentences[0]
    attacked = padded.replace_sentence(0, Sentence(first.text, ids))
    return Variant(attacked.request(), _BLOCK)


def moved(seed: Seed) -> Variant | None:
    """Citations rotated among true sentences that cite different passages: each now cites a
    passage that does not say it."""
    chosen: list[int] = []
    for index in fully_supported(seed):
        cites = set(seed.sentences[index].cites)
        if all(cites.isdisjoint(seed.sentences[i].cites) for i in chosen):
            chosen.append(index)
    if len(chosen) < 2:
        return None
    clean = seed.only(*chosen[:3])
    sentences = clean.sentences
    rotated = [
        Sentence(s.text, sentences[(k + 1) % len(sentences)].cites) for k, s in enumerate(sentences)
    ]
    # The number check reads the new evidence too; without digits only the judge can tell.
    judge_dependent = not any(ch.isdigit() for s in sentences for ch in s.text)
    return Variant(
        clean.with_sentences(rotated).request(),
        Expectation(Expect.MUST_NOT_PASS),
        baseline=clean,
        judge_dependent=judge_dependent,
    )


def dropped(seed: Seed) -> Variant | None:
    """A true sentence without its citation (the strict policy fails uncited claims)."""
    order = by_support(seed)
    if not order:
        return None
    clean = seed.only(order[0])
    attacked = clean.replace_sentence(0, dataclasses.replace(clean.sentences[0], cites=()))
    return Variant(attacked.request(), Expectation(Expect.MUST_NOT_PASS), baseline=clean)


def malformed(seed: Seed) -> Variant | None:
    """A marker that is neither a citation nor prose: ``[S1;S1]``; the request is refused."""
    if seed.structured:
        return None
    order = by_support(seed)
    if not order:
        return None
    first = seed.sentences[order[0]]
    broken = f"{first.cites[0]};{first.cites[0]}"
    attacked = seed.replace_sentence(order[0], Sentence(first.text, (broken,)))
    return Variant(attacked.request(), _BLOCK)


ATTACKS: tuple[Attack, ...] = (
    Attack(FAMILY, "unknown_id", "the last sentence cites an id not in the ledger", fabricated),
    Attack(FAMILY, "unknown_id_added", "an unknown id added to a citation", fabricated_added),
    Attack(FAMILY, "stuffing", "every passage cited on every sentence", stuffing),
    Attack(FAMILY, "over_cap", "one sentence cites five passages", over_cap),
    Attack(FAMILY, "moved", "citations moved to the wrong sentences", moved),
    Attack(FAMILY, "dropped", "a sentence's citation removed", dropped),
    Attack(FAMILY, "malformed", "a malformed citation marker", malformed),
)
