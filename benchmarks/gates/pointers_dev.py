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

The pointers as they are are compared with the committed figures
(``gates/expected/pointers_dev.json``, or ``--expected FILE``), on all the claims and on the
supported ones: the command exits 1 when the hit rate or the precision falls by more than 2.5
points (two claims of 80). The run ignores the caller's ``JUDGE_*`` settings: it measures the
default ones.

    python -m benchmarks.gates.pointers_dev [--data PATH]

Judge: none. Time on the 2-core development machine: about a second (2026-12-04).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.common import (
    DEV_CLAIMS,
    GateResult,
    compared_with,
    default_settings,
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
from judge.config import Settings, load_settings
from judge.pipeline.entail.claim import evidence_views, pointer_spans, premise_spans
from judge.pipeline.entail.select import rank_sentences, select_evidence
from judge.pipeline.ledger import freeze_ledger
from judge.schemas import Claim, EvidenceLedger, EvidenceSpan, Passage
from judge.schemas.judging import Premise

NAME = "pointers_dev"
GATED = "sentence"  # the pointers as they are; "previous" is how they were, for comparison
# Points the hit rate and the precision may fall before the gate fails.
TOLERANCE = 2.5


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

    def figures(self) -> dict[str, Any]:
        return {
            "claims": self.claims,
            "hits": self.hits,
            "hit_rate": percent(self.hits, self.claims),
            "pointed": self.pointed,
            "relevant": self.relevant,
            "precision": percent(self.relevant, self.pointed),
            "chars": self.chars,
        }

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


def regressions(current: dict[str, Any], expected: dict[str, Any]) -> list[str]:
    found = []
    for group, by_pointer in expected["groups"].items():
        was = by_pointer[GATED]
        now = current["groups"].get(group, {}).get(GATED)
        if now is None:
            found.append(f"{group} Check-COVID claims: no longer measured")
            continue
        for name in ("hit_rate", "precision"):
            fall = was[name] - now[name]
            if fall > TOLERANCE:
                found.append(
                    f"{group} Check-COVID claims: pointer {name} {was[name]}% -> {now[name]}% "
                    f"(-{fall:.2f} points)"
                )
    return found


def report(scores: dict[str, dict[str, Score]]) -> str:
    lines = []
    for group, by_pointer in scores.items():
        lines.append(f"\n== {group} Check-COVID claims")
        lines.append(
            f"{'pointer':<10}{'claims':>7}{'hit':>9}{'precision':>11}{'sentences':>11}{'chars':>9}"
        )
        lines.extend(score.row(name) for name, score in by_pointer.items())
    return "\n".join(lines)


def run(data: Path, expected: Path | None) -> tuple[GateResult, dict[str, Any] | None]:
    reason = missing_data(data)
    if reason is not None:
        return skipped(NAME, reason), None
    started = time.perf_counter()
    with default_settings():
        scores = measure(load(data), load_settings())
    seconds = time.perf_counter() - started
    figures = {
        "groups": {
            group: {name: score.figures() for name, score in by_pointer.items()}
            for group, by_pointer in scores.items()
        }
    }
    wanted = read_expected(expected)
    problems = regressions(figures, wanted) if wanted is not None else []
    every = scores["all"][GATED]
    summary = (
        f"pointers on {every.claims} Check-COVID claims: hit {every.hits}/{every.claims} "
        f"({percent(every.hits, every.claims):.2f} %), precision {every.relevant}/"
        f"{every.pointed} ({percent(every.relevant, every.pointed):.2f} %)"
    )
    return judged(NAME, summary, problems, seconds, report(scores)), figures


def gate(quick: bool = False, expected: Path | None = None) -> GateResult:
    """The pointer gate against the committed figures (quick)."""
    return run(DEV_CLAIMS, expected or expected_file(NAME))[0]


def main(argv: Sequence[str] | None = None) -> int:
    parser = gate_parser(__doc__, NAME)
    parser.add_argument("--data", type=Path, default=DEV_CLAIMS)
    args = parser.parse_args(argv)
    result, figures = run(args.data, compared_with(args))
    if args.write_expected and figures is not None:
        write_expected(args.write_expected, figures, result.seconds)
    return finish(result)


if __name__ == "__main__":
    sys.exit(main())
