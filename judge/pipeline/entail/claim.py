"""Judge one aligned claim: choose its evidence, window it, ask the judge, build the verdict."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from judge.config import EvidenceMode, Settings
from judge.pipeline.context import ClaimContext
from judge.pipeline.entail.aggregate import (
    ClaimJudgement,
    judge_over_views,
    judge_sentences,
    probe_judgement,
)
from judge.pipeline.entail.pointers import sentence_pointers
from judge.pipeline.entail.select import select_evidence
from judge.pipeline.entail.thresholds import Thresholds
from judge.pipeline.entail.windows import SourceSpan, premises_for_claim
from judge.protocols import ContradictionProbe, Judge
from judge.reading.sentences import split_sentences
from judge.schemas import (
    Claim,
    ClaimVerdict,
    EvidenceLedger,
    EvidenceSpan,
    Label,
    Passage,
)
from judge.schemas.judging import Premise


def selected_spans(
    claim_text: str, passages: list[Passage], settings: Settings
) -> list[SourceSpan]:
    """The claim's best-matching evidence sentences (BM25) with their neighbours."""
    selected = select_evidence(
        claim_text,
        passages,
        settings.selection_top_sentences,
        settings.selection_neighbours,
    )
    return [SourceSpan(s.passage_id, s.start, s.end) for s in selected]


@dataclass(frozen=True)
class JudgedClaim:
    """A claim the judge has answered: its judgement and what its verdict is built from. An
    unsupported claim may still be probed for a contradiction (``judgement.probe_target``)."""

    context: ClaimContext
    judgement: ClaimJudgement
    views: EvidenceViews
    passages: list[Passage]


async def judge_claim(judge: Judge, context: ClaimContext) -> JudgedClaim:
    """Judge one aligned claim that passed the exact checks: its evidence views, windows and
    sentences. The contradiction probe is left to the caller (:func:`probe_claim`)."""
    alignment, ledger, settings = context.alignment, context.ledger, context.settings
    question, thresholds = context.question, context.thresholds
    # A claim aligned by search is judged against the passages search found.
    claim = alignment.claim.model_copy(update={"citations": alignment.passage_ids})
    passages = [p for pid in alignment.passage_ids if (p := ledger.get(pid)) is not None]
    views = evidence_views(claim, passages, ledger, settings)
    slope = thresholds.length_slope
    result = await judge_over_views(
        judge, claim, views.premises, question, thresholds.t_entail, thresholds.t_contra, slope
    )
    sentences = sentence_claims(claim) if settings.judge_claim_sentences else []
    if len(sentences) > 1 and result.label is not Label.CONTRADICTED:
        # Every sentence cites what the claim cites: one set of whole-passage windows serves
        # them all.
        whole = views.whole or claim_premises(claim, ledger, settings)
        each = [(sentence, whole) for sentence in sentences]
        result = await judge_sentences(
            judge, result, each, question, thresholds.t_entail, thresholds.t_contra, slope
        )
    return JudgedClaim(context, result, views, passages)


async def probe_claim(probe: ContradictionProbe, judged: JudgedClaim) -> JudgedClaim:
    """The claim after the contradiction probe (unchanged when none is pending)."""
    context = judged.context
    judgement = await probe_judgement(
        judged.judgement, probe, context.question, context.thresholds.t_contra
    )
    return replace(judged, judgement=judgement)


def claim_verdict(judged: JudgedClaim) -> ClaimVerdict:
    """The verdict of a judged claim, with its evidence pointers."""
    context, result = judged.context, judged.judgement
    thresholds = context.thresholds
    trace = result.trace.model_copy(update={"calibration_hash": thresholds.hash})
    premises = judged.views.premises[result.view]
    deciding = next((p for p in premises if p.window_index == result.window), premises[0])
    evidence = pointer_spans(
        context.alignment.claim.text,
        deciding,
        judged.passages,
        context.ledger,
        quoted=result.evidence,
    )
    return ClaimVerdict(
        claim=context.alignment.claim,
        label=result.label,
        score=result.p_supported,
        contradiction_score=result.p_contradicted,
        reason=result.reason
        or score_reason(result.label, result.p_supported, result.p_contradicted, thresholds),
        evidence=evidence,
        checks=context.outcomes,
        judge=trace,
    )


def claim_premises(
    claim: Claim, ledger: EvidenceLedger, settings: Settings, spans: list[SourceSpan] | None = None
) -> list[Premise]:
    """The claim's premises in token windows: over ``spans``, or the whole cited passages."""
    return premises_for_claim(
        claim,
        ledger,
        window_tokens=settings.window_tokens,
        overlap_tokens=settings.window_overlap_tokens,
        spans=spans,
    )


def fits_one_window(ledger: EvidenceLedger, settings: Settings) -> bool:
    """Whether the whole evidence, every passage in ledger order, is one judge window."""
    everything = Claim(id="ledger", text="the whole evidence", citations=tuple(ledger.ids))
    return len(claim_premises(everything, ledger, settings)) == 1


@dataclass(frozen=True)
class EvidenceViews:
    """The evidence a claim is judged on: per view, its selected sentences (None for the whole
    passages) and its premises; with both, the selected view comes first. ``whole`` keeps the
    whole-passage windows when they were built, judged or not, so they are not built twice."""

    spans: list[list[SourceSpan] | None]
    premises: list[list[Premise]]
    whole: list[Premise] | None


def evidence_views(
    claim: Claim, passages: list[Passage], ledger: EvidenceLedger, settings: Settings
) -> EvidenceViews:
    """The claim's evidence views under ``settings.evidence_mode``."""
    mode = settings.evidence_mode
    if mode is EvidenceMode.AUTO:
        whole = claim_premises(claim, ledger, settings)
        if len(whole) == 1:
            return EvidenceViews([None], [whole], whole)
        selected = selected_spans(claim.text, passages, settings)
        return EvidenceViews([selected], [claim_premises(claim, ledger, settings, selected)], whole)
    spans: list[list[SourceSpan] | None] = []
    if mode in (EvidenceMode.SELECTED, EvidenceMode.BOTH):
        spans.append(selected_spans(claim.text, passages, settings))
    if mode in (EvidenceMode.WHOLE, EvidenceMode.BOTH):
        spans.append(None)
    views = [claim_premises(claim, ledger, settings, view) for view in spans]
    whole_view = views[-1] if spans[-1] is None else None
    if len(views) == 2 and [p.text for p in views[0]] == [p.text for p in views[1]]:
        # The selection kept every sentence (short passages): one view, one call.
        return EvidenceViews(spans[1:], views[1:], whole_view)
    return EvidenceViews(spans, views, whole_view)


def sentence_claims(claim: Claim) -> list[Claim]:
    """The sentences of a claim, each a claim with the same citations."""
    sentences = split_sentences(claim.text, strict=False)
    return [
        claim.model_copy(update={"id": f"{claim.id}.s{number}", "text": sentence.text})
        for number, sentence in enumerate(sentences, start=1)
    ]


def pointer_spans(
    claim_text: str,
    premise: Premise,
    passages: list[Passage],
    ledger: EvidenceLedger,
    *,
    quoted: Sequence[EvidenceSpan] = (),
) -> list[EvidenceSpan]:
    """The sentences a verdict points at: the claim's best-matching sentences inside the judge's
    quote or, without one, inside the window that decided (see ``pointers``). The quote itself
    when no sentence in it matches, the window when nothing in it does."""
    pointed = sentence_pointers(claim_text, premise, passages, quoted)
    return pointed or list(quoted) or premise_spans(premise, ledger)


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
