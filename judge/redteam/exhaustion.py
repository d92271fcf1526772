"""Exhaustion: requests sized or shaped to eat time and memory.

Over a limit they must be blocked with the limit as the reason, or refused as an input error,
at once and without judge calls; within the limits (dense passages, pathological text) they
must finish in bounded time and not pass. The limits are pinned to their defaults in each
case, so the sizes here always straddle them. The slow probes run on one seed only.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from judge.config import Extractor, Settings
from judge.redteam.model import (
    Attack,
    Expect,
    Expectation,
    NestedJson,
    Passage,
    RawJson,
    Seed,
    Sentence,
    Variant,
)
from judge.redteam.picking import by_support, fully_supported
from judge.redteam.transforms import DATE

FAMILY = "exhaustion"
HEAVY_SEED = "builtin.refund"
BUILTIN_PREFIX = "builtin."
JSON_DEPTH = 100_000


def _default(name: str) -> int:
    value = Settings.model_fields[name].default
    if not isinstance(value, int):
        raise TypeError(f"the default of {name} is not a number")
    return value


MAX_ANSWER = _default("max_answer_chars")
MAX_CLAIMS = _default("max_claims")
MAX_PASSAGES = _default("max_passages")
MAX_PASSAGE_CHARS = _default("max_passage_chars")
LIMITS: dict[str, Any] = {
    "max_answer_chars": MAX_ANSWER,
    "max_claims": MAX_CLAIMS,
    "max_passages": MAX_PASSAGES,
    "max_passage_chars": MAX_PASSAGE_CHARS,
}


def _refused(seconds: float = 10, judge_calls: int = 0) -> Expectation:
    return Expectation(Expect.MUST_BLOCK, max_seconds=seconds, max_judge_calls=judge_calls)


def _variant(request: Any, expect: Expectation, **settings: Any) -> Variant:
    return Variant(request, expect, settings={**LIMITS, **settings})


def long_answer(seed: Seed) -> Variant:
    sentences = list(seed.sentences)
    while len(seed.with_sentences(sentences).answer()) <= MAX_ANSWER:
        sentences += seed.sentences
    return _variant(seed.with_sentences(sentences).request(), _refused())


def _short_claims(seed: Seed, count: int) -> Seed:
    cite = (seed.evidence[0].id,)
    return seed.with_sentences([Sentence(f"Item {k} is listed.", cite) for k in range(count)])


def many_claims(seed: Seed) -> Variant | None:
    """As many short cited sentences as fit under the answer limit: thousands of claims."""
    if seed.structured:
        return None
    count = MAX_CLAIMS
    while len(_short_claims(seed, count * 2).answer()) <= MAX_ANSWER:
        count *= 2
    # One judge call is tolerated: the conclusion is asked for before claims are counted.
    return _variant(_short_claims(seed, count).request(), _refused(15, judge_calls=1))


def many_claims_llm(seed: Seed) -> Variant | None:
    """Twice the claim limit with the LLM extractor: the limit must hold before any sentence is
    sent for decomposition."""
    if seed.id != HEAVY_SEED:
        return None  # hundreds of judge calls while the hole is open: one seed is enough
    request = _short_claims(seed, MAX_CLAIMS * 2).request()
    return _variant(request, _refused(15, judge_calls=1), extractor=Extractor.LLM)


def many_structured_claims(seed: Seed) -> Variant:
    claims = [
        {"text": f"Item {k} is listed.", "chunk_id": seed.evidence[0].id}
        for k in range(25 * MAX_CLAIMS)
    ]
    request = {"evidence": seed.request()["evidence"], "claims": claims}
    return _variant(request, _refused())


def huge_passage(seed: Seed) -> Variant:
    first = seed.evidence[0]
    filler = " The figures above are unaudited." * (MAX_PASSAGE_CHARS // 30)
    text = (first.text + filler)[: MAX_PASSAGE_CHARS + 1]
    return _variant(
        seed.with_evidence([Passage(first.id, text), *seed.evidence[1:]]).request(), _refused()
    )


def many_passages(seed: Seed) -> Variant:
    extra = [Passage(f"x{k}", f"Note {k}.") for k in range(MAX_PASSAGES + 1 - len(seed.evidence))]
    return _variant(seed.with_evidence([*seed.evidence, *extra]).request(), _refused())


def deep_json(seed: Seed) -> Variant:
    return _variant(NestedJson(seed.request(), JSON_DEPTH), _refused())


def deep_json_text(seed: Seed) -> Variant:
    """Raw JSON nested too deep for the parser, read the way ``judge verify`` reads a file."""
    base = seed.request()
    head = (
        '{"evidence": '
        + json.dumps(base["evidence"], ensure_ascii=False)
        + ', "answer": "x", "metadata": '
    )
    text = head + "[" * JSON_DEPTH + "]" * JSON_DEPTH + "}"
    return _variant(RawJson(text), _refused())


def dense_passage(seed: Seed) -> Variant | None:
    """A dated sentence citing a passage filled to the size limit with dates and numbers; it
    must be judged as quickly as parsing that much text takes, with the clean verdict."""
    if seed.id != HEAVY_SEED:
        return None
    dated = [i for i in by_support(seed) if DATE.search(seed.sentences[i].text)]
    return _filled(seed, dated, " 9 May 2031;")


def dense_same_kind(seed: Seed) -> Variant | None:
    """A sentence with a number of days citing a passage filled to the size limit with other
    numbers of days: placing the claim's number among thousands of its kind must take about as
    long as parsing them, with the clean verdict (the filler shares none of its words)."""
    if seed.id != HEAVY_SEED:
        return None
    measured = [i for i in fully_supported(seed) if " days" in seed.sentences[i].text]
    return _filled(seed, measured, " Zorblat 7 glimmed 12 frobs within 9 days.")


def _filled(seed: Seed, candidates: list[int], unit: str) -> Variant | None:
    """The first candidate sentence alone, its cited passage filled with ``unit`` up to the
    size limit; the clean verdict is expected within 10 s."""
    if not candidates:
        return None
    clean = seed.only(candidates[0])
    cited = clean.passage(clean.sentences[0].cites[0])
    if cited is None:
        return None
    room = MAX_PASSAGE_CHARS - len(cited.text) - len(unit)
    dense = Passage(cited.id, cited.text + unit * (room // len(unit)))
    attacked = clean.with_evidence([dense if p.id == cited.id else p for p in clean.evidence])
    expect = Expectation(Expect.MATCH_CLEAN, max_seconds=10)
    return Variant(attacked.request(), expect, baseline=clean, settings=LIMITS)


def dense_early_years(seed: Seed) -> Variant | None:
    """A dated sentence citing a passage filled to the size limit with numbers that read as
    years only after a word that introduces one ("1234 frobs" against "in 1234"): each is read
    where it stands, not against all the text before it."""
    if seed.id != HEAVY_SEED:
        return None
    dated = [i for i in by_support(seed) if DATE.search(seed.sentences[i].text)]
    return _filled(seed, dated, " Zorblat glimmed 1234 frobs;")


def many_claims_large_passage(seed: Seed) -> Variant | None:
    """A hundred and fifty numbered claims citing one passage of 100,000 characters full of
    numbers: parsing that passage once per claim instead of once per request shows as time."""
    if seed.id != HEAVY_SEED:
        return None
    true = fully_supported(seed)
    if not true:
        return None
    base = seed.sentences[true[0]]
    cited = seed.passage(base.cites[0])
    if cited is None:
        return None
    unit = " In year 7 the count was 7,654 units."
    large = Passage(cited.id, cited.text + unit * ((100_000 - len(cited.text)) // len(unit)))
    body = base.text.rstrip(".")
    sentences = [Sentence(f"{body} (item {k}).", (cited.id,)) for k in range(150)]
    attacked = seed.with_evidence([large]).with_sentences(sentences)
    return _variant(attacked.request(), Expectation(Expect.MUST_NOT_PASS, max_seconds=10))


def _bomb(seed: Seed, unit: str) -> Variant | None:
    """A true sentence trailed by a pathological run of text just under the answer limit."""
    if seed.id != HEAVY_SEED:
        return None
    true = fully_supported(seed)
    if not true:
        return None
    sentence = seed.sentences[true[0]]
    room = MAX_ANSWER - len(sentence.render()) - 20
    text = sentence.text.rstrip(".") + " " + (unit * (room // len(unit))).strip() + "."
    attacked = seed.only(true[0]).replace_sentence(0, Sentence(text, sentence.cites))
    return _variant(attacked.request(), Expectation(Expect.MUST_NOT_PASS, max_seconds=15))


def _builtin_only(build: Callable[[Seed], Variant | None]) -> Callable[[Seed], Variant | None]:
    """Exhaustion does not depend on what a seed says: the built-in seeds are enough."""

    def run(seed: Seed) -> Variant | None:
        return build(seed) if seed.id.startswith(BUILTIN_PREFIX) else None

    return run


ATTACKS: tuple[Attack, ...] = (
    Attack(FAMILY, "long_answer", "an answer over the length limit", _builtin_only(long_answer)),
    Attack(FAMILY, "many_claims", "thousands of short claims", _builtin_only(many_claims)),
    Attack(FAMILY, "many_claims_llm", "too many claims with the LLM extractor", many_claims_llm),
    Attack(
        FAMILY,
        "many_structured_claims",
        "thousands of structured claims",
        _builtin_only(many_structured_claims),
    ),
    Attack(FAMILY, "huge_passage", "a passage over the size limit", _builtin_only(huge_passage)),
    Attack(FAMILY, "many_passages", "more passages than the limit", _builtin_only(many_passages)),
    Attack(FAMILY, "deep_json", "a request nested 100,000 objects deep", _builtin_only(deep_json)),
    Attack(
        FAMILY,
        "deep_json_text",
        "raw JSON nested 100,000 arrays deep",
        _builtin_only(deep_json_text),
    ),
    Attack(FAMILY, "dense_passage", "a passage at the size limit, dense with dates", dense_passage),
    Attack(
        FAMILY,
        "dense_same_kind",
        "a passage at the size limit, dense with numbers of the claim's kind",
        dense_same_kind,
    ),
    Attack(
        FAMILY,
        "dense_early_years",
        "a passage at the size limit, dense with numbers that may be early years",
        dense_early_years,
    ),
    Attack(
        FAMILY,
        "many_claims_large_passage",
        "150 claims citing one passage of 100,000 characters",
        many_claims_large_passage,
    ),
    Attack(
        FAMILY,
        "bomb_digits",
        "a sentence trailed by 9,000 single digits",
        lambda seed: _bomb(seed, "7 "),
    ),
    Attack(
        FAMILY,
        "bomb_codes",
        "a sentence trailed by one 18,000-character code",
        lambda seed: _bomb(seed, "Z9-"),
    ),
    Attack(
        FAMILY,
        "bomb_dates",
        "a sentence trailed by 1,600 dates",
        lambda seed: _bomb(seed, "9 May 2031 "),
    ),
)
