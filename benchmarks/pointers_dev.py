"""Pointer accuracy on the Check-COVID development claims, without the judge.

Check-COVID gives every abstract sentence as its own passage and annotates the rationale
sentences of each claim (``meta.rationale``). Each claim cites all its passages and is pointed
as the pipeline points a verdict the judge quoted nothing for: the evidence views and windows
``judge.pipeline.entail.claim`` builds under the default settings, the window holding the
claim's best-matching sentence taken as the deciding one. Reported, for the pointers as they are
(``sentence``) and as they were before pointers named sentences (``previous``: the whole
selected window when selection ran, else up to two BM25 sentences):

    hit        claims whose pointer overlaps an annotated rationale sentence
    precision  pointed sentences that are rationale sentences / pointed sentences
    sentences  mean number of sentences (passages) pointed at
    chars      mean characters pointed at

    python benchmarks/pointers_dev.py [--data PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from judge.config import Settings, load_settings
from judge.pipeline.entail.claim import evidence_views, pointer_spans, premise_spans
from judge.pipeline.entail.select import rank_sentences, select_evidence
from judge.pipeline.entail.types import Premise
from judge.pipeline.ledger import freeze_ledger
from judge.schemas import Claim, EvidenceLedger, EvidenceSpan, Passage

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT / ".." / "shared" / "data" / "dev" / "dev_claims.jsonl"


@dataclass(frozen=True)
class Case:
    id: str
    label: str
    claim: Claim
    passages: list[Passage]
    rationale: frozenset[str]


@dataclass
class Score:
    claims: int = 0
    hits: int = 0
    pointed: int = 0
    relevant: int = 0
    chars: int = 0

    def add(self, spans: Sequence[EvidenceSpan], rationale: frozenset[str]) -> None:
        ids = {s.passage_id for s in spans}
        self.claims += 1
        self.hits += bool(ids & rationale)
        self.pointed += len(ids)
        self.relevant += len(ids & rationale)
        self.chars += sum(s.end - s.start for s in spans)

    def row(self, name: str) -> str:
        return (
            f"{name:<10}{self.claims:>7}{_pct(self.hits, self.claims):>9}"
            f"{_pct(self.relevant, self.pointed):>11}{self.pointed / max(self.claims, 1):>11.2f}"
            f"{self.chars / max(self.claims, 1):>9.0f}"
        )


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def load(path: Path) -> list[Case]:
    cases = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            raw = json.loads(line)
            if raw["dataset"] != "Check-COVID" or not raw["meta"].get("rationale"):
                continue
            passages = [Passage(id=p["id"], text=p["text"]) for p in raw["evidence"]]
            claim = Claim(id="c1", text=raw["claim"], citations=tuple(p.id for p in passages))
            rationale = frozenset(r["id"] for r in raw["meta"]["rationale"])
            cases.append(Case(raw["id"], raw["label"], claim, passages, rationale))
    return cases


def deciding_premise(
    case: Case, ledger: EvidenceLedger, settings: Settings
) -> tuple[Premise, bool]:
    """The window the pipeline would most likely decide on, and whether selection built it."""
    views = evidence_views(case.claim, case.passages, ledger, settings)
    premises = views.premises[0]
    best = rank_sentences(case.claim.text, case.passages)
    if best:
        top = best[0]
        for premise in premises:
            if any(p.passage_id == top.passage_id for p in premise.pieces):
                return premise, views.spans[0] is not None
    return premises[0], views.spans[0] is not None


def previous_pointer(
    case: Case, premise: Premise, ledger: EvidenceLedger, selected: bool
) -> list[EvidenceSpan]:
    """The pointer before it named sentences: the judged window when selection built it,
    else up to two BM25 sentences inside the window."""
    if selected:
        return premise_spans(premise, ledger)
    ranked = select_evidence(case.claim.text, case.passages, 2, 0)
    inside = [
        EvidenceSpan(passage_id=s.passage_id, start=s.start, end=s.end, text=s.text)
        for s in ranked
        if any(p.passage_id == s.passage_id for p in premise.pieces)
    ]
    return inside or premise_spans(premise, ledger)


def measure(cases: Sequence[Case], settings: Settings) -> dict[str, dict[str, Score]]:
    pointers: dict[str, Callable[[Case, Premise, EvidenceLedger, bool], list[EvidenceSpan]]] = {
        "sentence": lambda c, p, ledger, _: pointer_spans(c.claim.text, p, c.passages, ledger),
        "previous": previous_pointer,
    }
    scores = {group: {name: Score() for name in pointers} for group in ("all", "supported")}
    for case in cases:
        ledger = freeze_ledger(case.passages, settings)
        premise, selected = deciding_premise(case, ledger, settings)
        for name, point in pointers.items():
            spans = point(case, premise, ledger, selected)
            scores["all"][name].add(spans, case.rationale)
            if case.label == "supported":
                scores["supported"][name].add(spans, case.rationale)
    return scores


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args(argv)
    if not args.data.exists():
        print(f"no development data at {args.data}", file=sys.stderr)
        return 2
    cases = load(args.data)
    settings = load_settings()
    for group, by_pointer in measure(cases, settings).items():
        print(f"\n== {group} Check-COVID claims")
        print(
            f"{'pointer':<10}{'claims':>7}{'hit':>9}{'precision':>11}{'sentences':>11}{'chars':>9}"
        )
        for name, score in by_pointer.items():
            print(score.row(name))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
