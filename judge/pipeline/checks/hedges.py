"""The hedge check: quantifiers and hedges ("always", "only", "up to", "usually") in the claim
must be carried by the evidence, in those words or an equivalent ("at least" ~ "or more").

Each group pairs the claim phrases that make the statement with the wider set of evidence
phrases that license it (a numeric range licenses "up to" its end). A negated phrase ("not
always", "not only") is not checked: it weakens the claim rather than strengthening it. Phrases
whose word is not a quantifier there ("at all", "after all", "all-time", "up to date") are left
out, and "up to" counts only before a number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from judge.pipeline.checks.outcome import missing, passed
from judge.pipeline.checks.text import fold
from judge.schemas import CheckOutcome, Label

_NUMBER_AHEAD = r"(?=\s+(?:(?:about|around|nearly|almost|approximately|roughly|some)\s+)?[$€£]?(?:\d|a\b|an\b|one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|half))"  # noqa: E501
_NEGATED = re.compile(r"(?:\bnot|n't|\bnever|\bno)\s+(?:\w+\s+)?$")
# How far before a hedge its negation may stand ("not always", "never quite"): a word between.
_NEGATION_REACH = 40


@dataclass(frozen=True)
class HedgeGroup:
    name: str
    claim: re.Pattern[str]
    evidence: re.Pattern[str]


def _group(name: str, claim: str, evidence: str) -> HedgeGroup:
    # Lookarounds rather than \b: a phrase may end in a sign ("100%"), after which \b needs a
    # word character to follow.
    return HedgeGroup(name, _phrase(claim), _phrase(evidence))


def _phrase(alternatives: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)")


_ALWAYS = r"always|invariably|without exception|in (?:all|every) cases?|at all times|every time"
_OFTEN = r"often|frequently|regularly|repeatedly"
_USUALLY = (
    r"usually|typically|generally|normally|commonly|mostly|mainly|largely|predominantly|"
    r"as a rule|in most cases|tends? to"
)
_USUAL_EVIDENCE = (
    rf"{_USUALLY}|{_OFTEN}|most|many|majority|common|typical|usual|general|frequent|predominant|"
    r"tend|trend"
)
# How often something happens, stated as a measured rate ("15.7 contacts per hour", "three
# times a day"): it licenses "often" and leaves how often that is to the judge.
_RATE = (
    r"rate|per (?:second|minute|hour|day|week|month|year)|(?:times|visits|contacts|doses) "
    r"(?:a|an|per|each|every) (?:second|minute|hour|day|week|month|year)|daily|hourly|weekly"
)
_ONLY = r"only|solely|exclusively|sole"
# A share stated as a number bears out "most" above half and "few" below 40 %; a count of a
# whole ("41 of 50") is left to the judge.
_PERCENT = r"(?:\.\d+)? ?(?:%|per ?cent)"
_OF_A_WHOLE = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten) (?:of|out of) \d+"
_MOST_SHARE = rf"(?:5[1-9]|[6-9]\d|100){_PERCENT}|{_OF_A_WHOLE}"
_FEW_SHARE = rf"(?:\d|[1-3]\d){_PERCENT}|{_OF_A_WHOLE}"
# "most" as a quantifier ("most patients", "most of the"), not a superlative ("the most
# popular", "most famous", "most likely").
_MOST = (
    r"(?<!the )(?<!at )most(?= of (?:the|them|these|those|its|their|our)\b"
    r"| (?!\w+(?:ous|ss|ly)\b)[a-z]+(?:s|ren|people)\b)"
)
# "few" says hardly any; "a few", "quite a few" and "as few as" say otherwise, and "a few days"
# is a span of time.
_FEW = (
    r"(?<!a )(?<!as )(?<!very )few"
    r"(?! (?:of )?(?:seconds|minutes|hours|days|weeks|months|years|times)\b)"
)
_AT_MOST = r"at most|no more than|not more than|a maximum of"
GROUPS: tuple[HedgeGroup, ...] = (
    _group(
        "always",
        _ALWAYS,
        rf"{_ALWAYS}|constantly|consistently|all the time|each time|whenever|in every case|"
        r"(?:every|each) (?:day|week|month|year|season|morning|evening|night)",
    ),
    _group(
        "never",
        r"never|at no time|not once|in no case",
        r"never|at no time|not once|in no case|not ever",
    ),
    _group(
        "all",
        r"(?<!at )(?<!after )(?<!above )(?<!of )all(?! but| of the above| right| in all| along)"
        r"(?!-time|-star|-round|-purpose|-out)|every(?! so often)",
        r"all|every|everyone|everybody|everything|each|entire|entirely|whole|both|universal|"
        r"universally|without exception|100 ?%|100 per ?cent",
    ),
    _group(
        "none",
        r"none|no one|nobody|not a single|not any",
        r"none|no one|nobody|not a single|not any|nothing|neither|zero|0 ?%|no \w+",
    ),
    _group(
        "only",
        rf"(?<!not )(?<!if )(?:{_ONLY})",
        rf"{_ONLY}|just|alone|unique|uniquely|nothing but|no other|limited to|restricted to|single",
    ),
    _group(
        "most",
        _MOST,
        r"most|mostly|majority|largely|predominantly|mainly|primarily|nearly all|almost all|"
        rf"all|every|vast|overwhelming|more than half|over half|{_MOST_SHARE}",
    ),
    _group(
        "few",
        _FEW,
        r"few|fewer|rare|rarely|seldom|minority|handful|hardly|scarcely|little|low|only|limited|"
        rf"small (?:number|share|proportion|fraction|minority)|{_FEW_SHARE}",
    ),
    _group("usually", _USUALLY, _USUAL_EVIDENCE),
    _group("often", _OFTEN, rf"{_USUAL_EVIDENCE}|{_RATE}"),
    _group(
        "sometimes",
        r"sometimes|occasionally|at times|in some cases",
        r"sometimes|occasionally|occasional|at times|in some cases|some|can|could|may|might|"
        # What happens "depending on" a condition, or varies, happens sometimes.
        r"depending on|depends on|dependent on|vary|varies|varied|variable|in certain",
    ),
    _group(
        "rarely",
        r"rarely|seldom|infrequently|hardly ever",
        r"rare|rarely|seldom|infrequent|infrequently|uncommon|uncommonly|unusual|few|hardly",
    ),
    _group(
        "up to",
        rf"up to{_NUMBER_AHEAD}",
        rf"up to|as (?:many|much) as|maximum|max|{_AT_MOST}|not exceed(?:ing)?|or (?:less|fewer)|"
        r"peak(?:ed|ing)?|highest|limit|\d+(?:\.\d+)?\s*(?:-|to)\s*\d",
    ),
    _group(
        "at least",
        r"at least",
        r"at least|minimum|no (?:fewer|less) than|not (?:fewer|less) than|or more|more than|"
        r"over|upwards of|in excess of",
    ),
    _group(
        "at most",
        _AT_MOST,
        rf"{_AT_MOST}|at most|maximum|up to|or (?:less|fewer)|not exceed(?:ing)?|less than|under|"
        r"below",
    ),
    _group(
        "guaranteed",
        r"guarantee[sd]?|certainly|definitely|undoubtedly|without (?:a )?doubt|assured",
        r"guarantee[sd]?|certain|certainly|definitely|undoubtedly|without (?:a )?doubt|assured|"
        r"ensure[sd]?|will always",
    ),
)


def added_hedges(claim: str, evidence: str) -> tuple[list[str], list[str]]:
    """The hedge groups the claim uses, and the phrases of those the evidence lacks."""
    text, source = fold(claim), fold(evidence)
    used: list[str] = []
    absent: list[str] = []
    for group in GROUPS:
        phrases = [
            m.group(0)
            for m in group.claim.finditer(text)
            # Read just before the phrase: a claim dense with hedges stays linear.
            if not _NEGATED.search(text, max(0, m.start() - _NEGATION_REACH), m.start())
        ]
        if not phrases:
            continue
        used.append(group.name)
        if not group.evidence.search(source):
            absent.append(phrases[0])
    return used, absent


class HedgeCheck:
    """Fails a claim whose hedge or quantifier the evidence does not carry."""

    name: str = "hedges"

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None:
        used, absent = added_hedges(claim, evidence)
        if not used:
            return None
        if absent:
            return missing(
                self.name,
                Label.HEDGE_ADDED,
                "Hedges or quantifiers",
                absent,
                how="nor an equivalent phrase",
            )
        return passed(self.name, "Every hedge and quantifier of the claim was")
