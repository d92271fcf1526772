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

The figures are compared with the committed ones (``gates/expected/sentence_edits.json``, or
``--expected FILE``), and the command exits 1 when the share of meaning-keeping rewrites
flagged rises by more than 0.05 points, or the share of meaning-changing edits caught falls by
more than 0.5 points, for all rules of the kind together or for any rule with at least 100
sentences edited. The edits are seeded and the checks deterministic: tolerances leave room for
a deliberate trade, not noise.

    python -m benchmarks.gates.sentence_edits   # the dev claims' and answers' evidence

Judge: none. Time on the 2-core development machine: 72 s (2026-12-04).
"""

from __future__ import annotations

import collections
import itertools
import random
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.common import (
    DEV_ANSWERS,
    DEV_CLAIMS,
    SENTENCE_END,
    GateResult,
    compared_with,
    evidence_passages,
    expected_file,
    finish,
    gate_parser,
    judged,
    missing_data,
    percent,
    read_expected,
    skipped,
    write_expected,
)
from judge.pipeline.checks import default_checks
from judge.reading.polarity import CONVERSES
from judge.reading.values.names import name_runs

NAME = "sentence_edits"
DATA = (DEV_CLAIMS, DEV_ANSWERS)
# Points the share of meaning-keeping rewrites flagged may rise, and the share of
# meaning-changing edits caught may fall, before the gate fails.
KEEPING_TOLERANCE = 0.05
CHANGING_TOLERANCE = 0.5
# A rule is gated alone only with this many sentences edited.
MIN_GATED = 100
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


@dataclass
class Edits:
    """Per rule: sentences edited, flagged, the check that flagged them, and a few examples of
    what went wrong (flagged rewrites, missed edits) for the report only."""

    edited: collections.Counter[str] = field(default_factory=collections.Counter)
    flagged: collections.Counter[str] = field(default_factory=collections.Counter)
    by_check: dict[str, collections.Counter[str]] = field(
        default_factory=lambda: collections.defaultdict(collections.Counter)
    )
    shown: dict[str, list[str]] = field(default_factory=lambda: collections.defaultdict(list))


def rule_names() -> list[str]:
    return [r.__name__ for r in KEEPING] + [r.__name__ for r in CHANGING] + ["moved_name"]


def keeps(name: str) -> bool:
    return name in {r.__name__ for r in KEEPING}


def measure(paths: Sequence[Path], seed: int = 0, show: int = 3) -> Edits:
    checks = default_checks()
    pick = random.Random(seed)
    # Rules added later draw from their own stream, so the others edit as they did before.
    own = {"other_name": random.Random(seed + 1), "converse": random.Random(seed + 2)}
    moving = random.Random(seed + 3)
    edits = Edits()
    for passage in evidence_passages(paths):
        for sentence in SENTENCE_END.split(passage):
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
            for name, keeping, edit in rules:
                if edit is None or edit[0] == sentence:
                    continue
                claim, new = edit
                if new is not None and re.search(rf"(?<!\d){re.escape(new)}(?!\d)", passage):
                    continue
                edits.edited[name] += 1
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
                    edits.flagged[name] += 1
                    edits.by_check[name][hit] += 1
                if (hit is not None) == keeping and len(edits.shown[name]) < show:
                    edits.shown[name].append(f"{claim[:160]!r}" + (f" ({hit})" if hit else ""))
    return edits


def figures(edits: Edits) -> dict[str, Any]:
    """Counts and shares per rule and per kind: figures only, never an edited sentence."""
    rules: dict[str, dict[str, Any]] = {
        name: {
            "kind": "keeps" if keeps(name) else "changes",
            "sentences": edits.edited[name],
            "flagged": edits.flagged[name],
            "flagged_rate": percent(edits.flagged[name], edits.edited[name]),
            "by_check": dict(sorted(edits.by_check[name].items())),
        }
        for name in rule_names()
    }
    kinds = {}
    for kind in ("keeps", "changes"):
        chosen = [name for name in rule_names() if keeps(name) == (kind == "keeps")]
        sentences = sum(edits.edited[name] for name in chosen)
        flagged = sum(edits.flagged[name] for name in chosen)
        kinds[kind] = {
            "sentences": sentences,
            "flagged": flagged,
            "flagged_rate": percent(flagged, sentences),
        }
    return {"rules": rules, "kinds": kinds}


def regressions(current: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    """Each gated share that moved past its tolerance, as a sentence."""
    found = []
    rows = [(f"all rules that {kind} the meaning", kind, row, current["kinds"].get(kind))
            for kind, row in expected["kinds"].items()]  # fmt: skip
    rows += [
        (name, row["kind"], row, current["rules"].get(name))
        for name, row in expected["rules"].items()
        if row["sentences"] >= MIN_GATED
    ]
    for label, kind, was, now in rows:
        if now is None:
            found.append(f"{label}: no longer measured")
            continue
        move = now["flagged_rate"] - was["flagged_rate"]
        if kind == "keeps" and move > KEEPING_TOLERANCE:
            found.append(
                f"{label}: rewrites that keep the meaning flagged {was['flagged']}/"
                f"{was['sentences']} ({was['flagged_rate']}%) -> {now['flagged']}/"
                f"{now['sentences']} ({now['flagged_rate']}%, +{move:.2f} points)"
            )
        if kind == "changes" and -move > CHANGING_TOLERANCE:
            found.append(
                f"{label}: edits caught {was['flagged']}/{was['sentences']} "
                f"({was['flagged_rate']}%) -> {now['flagged']}/{now['sentences']} "
                f"({now['flagged_rate']}%, {move:.2f} points)"
            )
    return found


def report(edits: Edits) -> str:
    lines = [f"{'edit':<18}{'kind':<20}{'sentences':>10}{'flagged':>9}{'share':>8}   by check"]
    for name in rule_names():
        kind = "keeps the meaning" if keeps(name) else "changes it"
        share = edits.flagged[name] / edits.edited[name] if edits.edited[name] else 0.0
        by = ", ".join(f"{c} {n}" for c, n in edits.by_check[name].most_common())
        lines.append(
            f"{name:<18}{kind:<20}{edits.edited[name]:>10}{edits.flagged[name]:>9}"
            f"{share:>8.3f}   {by}"
        )
    for name, shown in edits.shown.items():
        lines.append(f"== {name}: {'flagged' if keeps(name) else 'missed'}")
        lines.extend(f"  {line}" for line in shown)
    return "\n".join(lines)


def summary(edits: Edits) -> str:
    kinds = figures(edits)["kinds"]
    keep, change = kinds["keeps"], kinds["changes"]
    return (
        f"meaning kept, flagged {keep['flagged']}/{keep['sentences']} "
        f"({keep['flagged_rate']:.2f} %); meaning changed, caught {change['flagged']}/"
        f"{change['sentences']} ({change['flagged_rate']:.2f} %)"
    )


def run(
    paths: Sequence[Path], expected: Path | None, seed: int = 0, show: int = 3
) -> tuple[GateResult, Edits | None]:
    reason = missing_data(*paths)
    if reason is not None:
        return skipped(NAME, reason), None
    started = time.perf_counter()
    edits = measure(paths, seed, show)
    seconds = time.perf_counter() - started
    wanted = read_expected(expected)
    problems = regressions(figures(edits), wanted) if wanted is not None else []
    return judged(NAME, summary(edits), problems, seconds, report(edits)), edits


def gate(quick: bool = False, expected: Path | None = None) -> GateResult:
    """The sentence-edit gate against the committed figures; left out of a quick run."""
    if quick:
        return skipped(NAME, "left out of a quick run (over a minute)")
    return run(DATA, expected or expected_file(NAME))[0]


def main(argv: Sequence[str] | None = None) -> int:
    parser = gate_parser(__doc__, NAME, quick="left out of the quick gates; alone, the same run")
    parser.add_argument("--data", type=Path, nargs="+", default=list(DATA))
    parser.add_argument("--show", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    result, edits = run(args.data, compared_with(args), args.seed, args.show)
    if args.write_expected and edits is not None:
        write_expected(args.write_expected, figures(edits), result.seconds)
    return finish(result)


if __name__ == "__main__":
    sys.exit(main())
