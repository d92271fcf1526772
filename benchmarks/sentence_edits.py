"""The exact checks on evidence sentences edited one way or another, against their own passage.

Each sentence of the development evidence is edited once per rule and checked against the
passage it came from. Rewrites that keep the meaning (lower case, a leading "According to the
source,", "%" written "per cent", curly quotes, no final stop) must pass: each flag is a false
flag. Edits that change it (a number, year or month moved on by one, a name replaced by one
the passage does not write, a name moved in from another sentence of the passage, a word for
its converse ("before" for "after"), a "not" after the first auxiliary verb, two names traded
around the words between them, a modal hedge left out, a web address sent elsewhere) should be
caught; an edit whose new value the passage states elsewhere is left out, as no check can tell
it from a true claim, except the moved name, whose sentence still tells where it belongs.
Prints, per rule, the sentences edited, the share flagged and the check that flagged them, and
up to ``--show`` sentences missed or flagged wrongly.

    python benchmarks/sentence_edits.py   # the dev claims' and answers' evidence
"""

from __future__ import annotations

import argparse
import collections
import itertools
import json
import random
import re
from collections.abc import Callable
from pathlib import Path

from judge.eval.records import load_records
from judge.pipeline.checks import default_checks
from judge.reading.polarity import CONVERSES
from judge.reading.values.names import name_runs

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
# "May" is left out: it is also a verb.
_MONTHS = ["January", "February", "March", "April", "June", "July", "August", "September"]
_MONTHS += ["October", "November", "December"]
# Names of places, firms and people of every kind, for a name the passage does not write.
_OUTSIDE_NAMES = ["Oxford", "Geneva", "Pfizer", "Kowalski", "Toronto", "Nigeria", "Microsoft"]
_OUTSIDE_NAMES += ["Alvarez", "Berlin", "Siemens", "Okafor", "Lisbon"]
# Web addresses, written independently of the link check: a scheme or "www." and a host.
_ADDRESS = re.compile(r"(?:https?://|\bwww\.)(?P<host>(?:www\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)+)", re.I)
_HEDGE_WORD = re.compile(
    r"\b(?:may|might|could|possibly|probably|perhaps|potentially)\s+(?!not\b|be\s+able\b)"
)
_AUXILIARY = re.compile(r"\b(is|was|are|were|has|have|had|will|can|did|does)\b(?! not\b)")

Edit = tuple[str, str | None]  # the edited sentence, and the new value (None: a negation)


def lower(sentence: str) -> Edit | None:
    return sentence.lower(), None


def according(sentence: str) -> Edit | None:
    if not sentence[0].isupper() or sentence.startswith(("I ", "I'")):
        return None
    return "According to the source, " + sentence[0].lower() + sentence[1:], None


def per_cent(sentence: str) -> Edit | None:
    return re.sub(r"(\d)\s?%", r"\1 per cent", sentence), None


def curly_quotes(sentence: str) -> Edit | None:
    return re.sub(r'"([^"]+)"', "\u201c\\1\u201d", sentence), None


def no_stop(sentence: str) -> Edit | None:
    return (sentence[:-1], None) if sentence.endswith(".") else None


def next_number(sentence: str, pick: random.Random) -> Edit | None:
    found = list(
        re.finditer(r"(?<![\w.,/:-])(\d{1,3})(?![\w.,/:%-]|\s*(?:st|nd|rd|th)\b)", sentence)
    )
    if not found:
        return None
    match = pick.choice(found)
    value = int(match.group(1))
    new = str(value + 1 if value < 9 else value * 2)
    return sentence[: match.start()] + new + sentence[match.end() :], new


def next_year(sentence: str, pick: random.Random) -> Edit | None:
    found = list(re.finditer(r"\b(19\d\d|20[0-2]\d)\b", sentence))
    if not found:
        return None
    match = pick.choice(found)
    new = str(int(match.group(1)) + 1)
    return sentence[: match.start()] + new + sentence[match.end() :], new


def next_month(sentence: str, pick: random.Random) -> Edit | None:
    found = list(re.finditer(rf"\b({'|'.join(_MONTHS)})\b", sentence))
    if not found:
        return None
    match = pick.choice(found)
    new = _MONTHS[(_MONTHS.index(match.group(1)) + 1) % len(_MONTHS)]
    return sentence[: match.start()] + new + sentence[match.end() :], new


def other_name(sentence: str, pick: random.Random) -> Edit | None:
    runs = [run for run in name_runs(sentence) if not run.words[0].isupper()]
    if not runs:
        return None
    run = pick.choice(runs)
    word = pick.choice([w for w in run.words if w[:1].isupper()])
    start = sentence.index(word, run.start)
    new = pick.choice(_OUTSIDE_NAMES)
    return sentence[:start] + new + sentence[start + len(word) :], new


def moved_name(sentence: str, passage: str, pick: random.Random) -> Edit | None:
    """A name of the sentence replaced by a name that only another sentence of the passage
    writes: every word is in the passage, in the wrong place."""
    runs = [run for run in name_runs(sentence) if not run.words[0].isupper()]
    if not runs:
        return None
    own = {word.casefold() for run in name_runs(sentence) for word in run.words}
    others = sorted(
        {
            passage[other.start : other.end]
            for other in name_runs(passage)
            if not own & {word.casefold() for word in other.words}
        }
    )
    if not others:
        return None
    run = pick.choice(runs)
    new = pick.choice(others)
    return sentence[: run.start] + new + sentence[run.end :], None


def swapped_names(sentence: str, _pick: random.Random) -> Edit | None:
    """The first two names with a few words between them, traded ("Spain beat Italy" for
    "Italy beat Spain")."""
    runs = name_runs(sentence)
    for first, second in itertools.pairwise(runs):
        between = sentence[first.end : second.start]
        one, other = sentence[first.start : first.end], sentence[second.start : second.end]
        if one.casefold() == other.casefold() or not 1 <= len(between.split()) <= 5:
            continue
        if re.search(r"[,;:()]|\b(?:and|or|with)\b", between):
            continue
        return sentence[: first.start] + other + between + one + sentence[second.end :], None
    return None


def hedge_dropped(sentence: str, _pick: random.Random) -> Edit | None:
    """The first modal hedge left out: "may reduce" as "reduce", "possibly linked" as "linked".
    Permission ("items may be returned") is dropped too: no check should read those."""
    match = _HEDGE_WORD.search(sentence)
    if match is None:
        return None
    return sentence[: match.start()] + sentence[match.end() :], None


def changed_address(sentence: str, _pick: random.Random) -> Edit | None:
    """A web address sent elsewhere: its first dot-separated label doubled in its last letter
    ("acme.com" as "acmee.com")."""
    match = _ADDRESS.search(sentence)
    if match is None:
        return None
    host = match.group("host")
    at = match.start("host") + (len(host) - len(host.removeprefix("www.")))
    label_end = sentence.index(".", at)
    edited = sentence[:label_end] + sentence[label_end - 1] + sentence[label_end:]
    return edited, None


def converse(sentence: str, pick: random.Random) -> Edit | None:
    found = [m for m in re.finditer(r"[A-Za-z]+", sentence) if m.group(0) in CONVERSES]
    if not found:
        return None
    match = pick.choice(found)
    new = pick.choice(sorted(CONVERSES[match.group(0)]))
    return sentence[: match.start()] + new + sentence[match.end() :], None


def negated(sentence: str, _pick: random.Random) -> Edit | None:
    match = _AUXILIARY.search(sentence)
    if match is None:
        return None
    return sentence[: match.end()] + " not" + sentence[match.end() :], None


KEEPING: list[Callable[[str], Edit | None]] = [lower, according, per_cent, curly_quotes, no_stop]
CHANGING: list[Callable[[str, random.Random], Edit | None]] = [
    next_number,
    next_year,
    next_month,
    other_name,
    converse,
    negated,
    swapped_names,
    hedge_dropped,
    changed_address,
]


def passages(paths: list[Path]) -> list[str]:
    """Every distinct evidence passage of the labelled records, in order."""
    texts = (p.text for path in paths for record in load_records(path) for p in record.evidence)
    return list(dict.fromkeys(texts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    dev = Path("../shared/data/dev")
    parser.add_argument(
        "--data",
        type=Path,
        nargs="+",
        default=[dev / "dev_claims.jsonl", dev / "dev_answers.jsonl"],
    )
    parser.add_argument("--show", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    checks = default_checks()
    pick = random.Random(args.seed)
    # Rules added later draw from their own stream, so the others edit as they did before.
    own = {"other_name": random.Random(args.seed + 1), "converse": random.Random(args.seed + 2)}
    moving = random.Random(args.seed + 3)
    edited: collections.Counter[str] = collections.Counter()
    flagged: collections.Counter[str] = collections.Counter()
    by_check: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    shown: dict[str, list[str]] = collections.defaultdict(list)
    for passage in passages(args.data):
        for sentence in _SENTENCE_END.split(passage):
            if not 20 <= len(sentence) <= 300:
                continue
            rules: list[tuple[str, bool, Edit | None]] = [
                (rule.__name__, True, rule(sentence)) for rule in KEEPING
            ]
            rules += [
                (rule.__name__, False, rule(sentence, own.get(rule.__name__, pick)))
                for rule in CHANGING
            ]
            rules.append(("moved_name", False, moved_name(sentence, passage, moving)))
            for name, keeps, edit in rules:
                if edit is None or edit[0] == sentence:
                    continue
                claim, new = edit
                if new is not None and re.search(rf"(?<!\d){re.escape(new)}(?!\d)", passage):
                    continue
                edited[name] += 1
                hit = next(
                    (
                        check.name
                        for check in checks
                        if (outcome := check(claim, passage)) is not None
                        and outcome.status.value != "passed"
                    ),
                    None,
                )
                if hit is not None:
                    flagged[name] += 1
                    by_check[name][hit] += 1
                if (hit is not None) == keeps and len(shown[name]) < args.show:
                    shown[name].append(f"{claim[:160]!r}" + (f" ({hit})" if hit else ""))
    for name in [r.__name__ for r in KEEPING] + [r.__name__ for r in CHANGING] + ["moved_name"]:
        kind = "keeps the meaning" if name in {r.__name__ for r in KEEPING} else "changes it"
        share = flagged[name] / edited[name] if edited[name] else 0.0
        row = {
            "edit": name,
            "kind": kind,
            "sentences": edited[name],
            "flagged": flagged[name],
            "share": round(share, 3),
            "by": dict(by_check[name]),
        }
        print(json.dumps(row))
    for name, lines in shown.items():
        print(f"== {name}: {'flagged' if name in {r.__name__ for r in KEEPING} else 'missed'}")
        for line in lines:
            print(f"  {line}")


if __name__ == "__main__":
    main()
