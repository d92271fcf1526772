"""A candidate exact check for names, measured before shipping: does it cry wolf?

    python benchmarks/names_dev.py --data ../shared/data/dev/dev_claims.jsonl

The rule: every capitalised word of the claim that is not at the start of a sentence (or is an
acronym anywhere) must appear in the cited evidence, ignoring case, a possessive "'s" and the
endings of demonyms ("Libyan" ~ "Libya"). Function words, months and weekdays are skipped.
It prints how often the rule flags supported claims (false flags) and unsupported ones (hits),
by dataset, with the names it missed. The pipeline does not ship this check: see
`benchmarks/ACCURACY.md` for the numbers and why names are left to the judge.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

from judge.reading.values.dates import MONTHS, WEEKDAYS
from judge.text.normalise import normalise

_FUNCTION_WORDS = (
    "i a an the this that these those it its he she they we you his her their our my in on at "
    "for by with from and or but if when while after before during since as of to yes no not so "
    "also however although because some many most all both each every another other one two "
    "three first second last next new according early late mr mrs ms dr prof st there here what "
    "which who how why where overall despite then than such only just even still well oh hi "
    "hello thanks thank sure okay ok "
)
_SKIP = frozenset(_FUNCTION_WORDS.split()) | frozenset(MONTHS) | frozenset(WEEKDAYS)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_SENTENCE_START = tuple('.!?:"“(\n')
_DEMONYM_ENDINGS = ("ians", "ian", "ans", "an", "ese", "ish", "s")


def claim_names(text: str) -> list[str]:
    """Capitalised words that name something (sentence-initial words only if acronyms)."""
    names = []
    for match in _WORD.finditer(text):
        word = re.sub(r"['’]s$", "", match.group(0))
        if not word[0].isupper() or len(word) < 2 or word.casefold() in _SKIP:
            continue
        before = text[: match.start()].rstrip()
        starts_sentence = not before or before.endswith(_SENTENCE_START)
        if starts_sentence and not word.isupper():
            continue
        names.append(word)
    return names


def _stem(word: str) -> str:
    word = word.casefold()
    for ending in _DEMONYM_ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 4:
            return word[: -len(ending)]
    return word


def missing_names(claim: str, evidence: str) -> list[str]:
    source = normalise(evidence).casefold()
    stems = {_stem(word) for word in re.findall(r"[a-z][a-z'-]+", source)}
    return [n for n in claim_names(claim) if n.casefold() not in source and _stem(n) not in stems]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--show", type=int, default=3, help="missed names listed per dataset")
    args = parser.parse_args(argv)
    counts: Counter[tuple[str, bool, bool]] = Counter()
    shown: dict[tuple[str, bool], list[list[str]]] = {}
    with args.data.open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            supported = record["label"] == "supported"
            evidence = "\n\n".join(e["text"] for e in record["evidence"])
            missed = missing_names(record["claim"], evidence)
            counts[(record["dataset"], supported, bool(missed))] += 1
            if missed:
                shown.setdefault((record["dataset"], supported), []).append(missed)
    print("| dataset | supported flagged (false flags) | not supported flagged (hits) |")
    print("|---|---|---|")
    datasets = sorted({d for d, _, _ in counts})
    for dataset in [*datasets, "all"]:

        def rate(supported: bool, dataset: str = dataset) -> str:
            keys = [(d, s, f) for d, s, f in counts if s is supported and dataset in (d, "all")]
            total = sum(counts[k] for k in keys)
            flagged = sum(counts[k] for k in keys if k[2])
            return f"{flagged}/{total} ({flagged / total:.1%})" if total else "–"

        print(f"| {dataset} | {rate(True)} | {rate(False)} |")
    for (dataset, supported), examples in sorted(shown.items()):
        if args.show:
            label = "supported" if supported else "not supported"
            print(f"{dataset} {label}: {examples[: args.show]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
