"""The hedge check: a claim's quantifiers and hedges must be ones its evidence bears out.

The groups are data (``lexicon/en/hedges.toml``). A strengthening hedge ("always", "only",
"all", "never", "guaranteed") says more than a flat statement: the evidence must carry it or a
phrase that licenses it ("at least" ~ "or more", "most" ~ a share above half). A weakening
hedge ("usually", "often", "sometimes", "rarely") says less: a flat statement bears it out,
and it fails only where the evidence sentence restating the claim states a frequency against
it ("rarely" for "usually"): a contradiction. A negated phrase ("not always", "not only") is
not read: it weakens the claim. Neither is "only" before an amount ("only 5%", "only a third"),
which weighs the value rather than excluding others; limits before numbers ("up to 30 days",
"at least 2") are the number check's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from functools import cache

from judge.pipeline.checks.outcome import flagged, missing, passed
from judge.reading import Reading, lexicon, read
from judge.reading.restatement import Grain, restatements, wanted_forms
from judge.reading.values import units
from judge.schemas import CheckOutcome, Label

# How far before a hedge its negation may stand ("not always", "never quite"): a word between.
_NEGATION_REACH = 40
# "most" as a quantifier ("most patients", "most of the"), not a superlative ("the most
# popular", "most famous", "most likely").
_MOST_QUANTIFIES = re.compile(
    r"(?<!the )(?<!at )most(?= of (?:the|them|these|those|its|their|our)\b"
    r"| (?!\w+(?:ous|ss|ly)\b)[a-z]+(?:s|ren|people)\b)"
)
# A share bears out "most" above half and "few" below 40 %.
_MOST_SHARE = Decimal("0.5")
_FEW_SHARE = Decimal("0.4")
# Between "only" and the amount it weighs: a verb at most ("only sold 100,000 copies"), an
# approximation, a currency.
_ONLY_BEFORE_AMOUNT = re.compile(
    r"\s+(?:[a-z]+\s+)?(?:(?:about|around|nearly|roughly|some|just)\s+)?[$€£¥]?\s?"
)


@dataclass(frozen=True)
class HedgeGroup:
    name: str
    strengthens: bool
    claim: re.Pattern[str]
    licences: re.Pattern[str] | None  # what in the evidence bears a strengthening hedge out
    conflicts: re.Pattern[str] | None  # what in the evidence speaks against a weakening one
    idioms: re.Pattern[str] | None


def _pattern(phrases: tuple[str, ...]) -> re.Pattern[str]:
    # Lookarounds rather than \b: a phrase may end in a sign ("100%").
    alternation = "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternation})(?!\w)")


def _phrases(phrases: tuple[str, ...]) -> re.Pattern[str] | None:
    return _pattern(phrases) if phrases else None


@cache
def groups() -> tuple[HedgeGroup, ...]:
    found = []
    for entry in lexicon.entries("hedges"):
        strengthens = entry.value == "strengthens"
        found.append(
            HedgeGroup(
                entry.name,
                strengthens,
                _pattern(entry.words),
                _phrases(entry.words + entry.licensed_by) if strengthens else None,
                _phrases(entry.against),
                _phrases(entry.idioms),
            )
        )
    return tuple(found)


@cache
def _negated() -> re.Pattern[str]:
    words = sorted(w for w in lexicon.words("negation", name="word") if w != "n't")
    return re.compile(rf"(?:\b(?:{'|'.join(words)})|n't)\s+(?:\w+\s+)?$")


@dataclass(frozen=True)
class Used:
    group: HedgeGroup
    phrase: str  # as the claim writes it


def used_hedges(claim: Reading) -> list[Used]:
    """Each hedge group the claim uses, with its first phrase there: not negated, not in an
    idiom, "most" only as a quantifier, "only" not before an amount."""
    found = []
    for group in groups():
        text = claim.folded
        if group.idioms is not None:
            text = group.idioms.sub(lambda m: " " * len(m.group(0)), text)
        for match in group.claim.finditer(text):
            reach = max(0, match.start() - _NEGATION_REACH)
            if _negated().search(text, reach, match.start()):
                continue
            if group.name == "most" and not _MOST_QUANTIFIES.match(text, match.start()):
                continue
            if group.name == "only" and _weighs_an_amount(claim, match.end()):
                continue
            found.append(Used(group, match.group(0)))
            break
    return found


def _weighs_an_amount(claim: Reading, end: int) -> bool:
    """Whether a number follows ``end`` with nothing but a verb, an approximation or a
    currency between: "only 5%", "only about $20", "only a third", "only sold 100,000"."""
    for quantity in claim.quantities:
        if quantity.start >= end and _ONLY_BEFORE_AMOUNT.fullmatch(
            claim.text[end : quantity.start] or " "
        ):
            return True
    return False


def _licensed(group: HedgeGroup, evidence: Reading) -> bool:
    if group.licences is not None and group.licences.search(evidence.folded):
        return True
    if group.name in {"most", "few"}:
        return any(_share_licenses(group.name, q.value, q.unit) for q in evidence.quantities)
    return False


def _share_licenses(name: str, value: Decimal, unit: str | None) -> bool:
    if unit == units.PERCENT:
        share = value / 100
    elif unit == units.FRACTION:
        share = value
    else:
        return False
    return share > _MOST_SHARE if name == "most" else share < _FEW_SHARE


def _conflict(group: HedgeGroup, claim: Reading, evidence: Reading) -> str | None:
    """The evidence sentence restating the claim, when it states a frequency against a
    weakening hedge and none of the hedge's own words."""
    if group.conflicts is None:
        return None
    found = restatements(
        claim.text, evidence, wanted_forms(claim.content_forms), grain=Grain.SENTENCE
    )
    if not found:
        return None
    sentence = found[0].sentence
    folded = sentence.casefold()
    if group.conflicts.search(folded) and not group.claim.search(folded):
        return sentence
    return None


class HedgeCheck:
    """Fails a claim whose strengthening hedge the evidence does not carry, or whose weakening
    hedge the evidence states a frequency against."""

    name: str = "hedges"
    lexicon: tuple[str, ...] = ("hedges",)

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None:
        said = read(claim)
        used = used_hedges(said)
        if not used:
            return None
        source = read(evidence)
        absent = [u.phrase for u in used if u.group.strengthens and not _licensed(u.group, source)]
        if absent:
            return missing(
                self.name,
                Label.HEDGE_ADDED,
                "Hedges or quantifiers",
                absent,
                how="nor an equivalent phrase",
            )
        for u in used:
            if not u.group.strengthens and (sentence := _conflict(u.group, said, source)):
                return flagged(
                    self.name,
                    Label.CONTRADICTED,
                    f"the claim says {u.phrase!r} where the evidence states another "
                    f"frequency: {sentence!r}",
                    (u.phrase,),
                    confident=True,
                    sentence=sentence,
                )
        return passed(self.name, "Every hedge and quantifier of the claim was")
