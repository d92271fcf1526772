"""Judge one aligned claim: choose its evidence, window it, ask the judge, build the verdict."""

from __future__ import annotations

from judge.align import Alignment
from judge.calibration import Thresholds
from judge.config import Settings
from judge.entail import judge_claim as judge_over_windows
from judge.protocols import Judge, Premise
from judge.schemas import CheckOutcome, ClaimVerdict, EvidenceLedger, EvidenceSpan, Label, Passage
from judge.select import select_evidence
from judge.windows import SourceSpan, premises_for_claim


def evidence_spans_for(
    claim_text: str, passages: list[Passage], settings: Settings
) -> list[SourceSpan] | None:
    """The evidence sentences to judge against, or None for the whole cited passages."""
    if not settings.evidence_selection:
        return None
    selected = select_evidence(
        claim_text,
        passages,
        settings.selection_top_sentences,
        settings.selection_neighbours,
    )
    return [SourceSpan(s.passage_id, s.start, s.end) for s in selected]


async def judge_claim(
    judge: Judge,
    alignment: Alignment,
    outcomes: list[CheckOutcome],
    ledger: EvidenceLedger,
    question: str | None,
    settings: Settings,
    thresholds: Thresholds,
) -> ClaimVerdict:
    # A claim aligned by search is judged against the passages search found.
    claim = alignment.claim.model_copy(update={"citations": alignment.passage_ids})
    passages = [p for pid in alignment.passage_ids if (p := ledger.get(pid)) is not None]
    premises = premises_for_claim(
        claim,
        ledger,
        window_tokens=settings.window_tokens,
        overlap_tokens=settings.window_overlap_tokens,
        spans=evidence_spans_for(claim.text, passages, settings),
    )
    result = await judge_over_windows(
        judge, claim, premises, question, thresholds.t_entail, thresholds.t_contra
    )
    trace = result.trace.model_copy(update={"calibration_hash": thresholds.hash})
    deciding = next((p for p in premises if p.window_index == result.window), premises[0])
    evidence = result.evidence or premise_spans(deciding, ledger)
    return ClaimVerdict(
        claim=alignment.claim,
        label=result.label,
        score=result.p_supported,
        contradiction_score=result.p_contradicted,
        reason=result.reason
        or score_reason(result.label, result.p_supported, result.p_contradicted, thresholds),
        evidence=evidence,
        checks=outcomes,
        judge=trace,
    )


def premise_spans(premise: Premise, ledger: EvidenceLedger) -> list[EvidenceSpan]:
    """The evidence a verdict was judged on, as passage spans: used when the judge quoted none."""
    spans: list[EvidenceSpan] = []
    for piece in premise.pieces:
        passage = ledger.get(piece.passage_id)
        if passage is None:
            continue
        end = piece.passage_start + (piece.premise_end - piece.premise_start)
        spans.append(
            EvidenceSpan(
                passage_id=piece.passage_id,
                start=piece.passage_start,
                end=end,
                text=passage.text[piece.passage_start : end],
            )
        )
    return spans


def score_reason(
    label: Label, p_supported: float | None, p_contradicted: float | None, thresholds: Thresholds
) -> str:
    """The reason of a verdict whose judge gave none (the label-only variant): its scores."""
    if p_supported is None:
        return f"the judge's label: {label.value}"
    if label is Label.CONTRADICTED and p_contradicted is not None:
        return f"P(contradicted) {p_contradicted:.2f} >= t_contra {thresholds.t_contra:.2f}"
    relation = ">=" if label is Label.SUPPORTED else "<"
    return f"P(supported) {p_supported:.2f} {relation} t_entail {thresholds.t_entail:.2f}"
