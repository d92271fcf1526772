"""Stage 4 as the pipeline runs it: decide a claim without a model wherever alignment or an
exact check already does, in order; the first check that does not pass decides the label."""

from __future__ import annotations

from collections.abc import Sequence

from judge.pipeline.align import Alignment, AlignmentStatus
from judge.pipeline.entail.pointers import check_pointer
from judge.pipeline.ledger import passages_text
from judge.protocols import Check, PassageCheck
from judge.reading import read
from judge.reading.languages import pair, reads
from judge.schemas import (
    CheckOutcome,
    CheckStatus,
    ClaimVerdict,
    EvidenceLedger,
    EvidenceSpan,
    Label,
    Passage,
)


def pre_judge(
    alignment: Alignment, ledger: EvidenceLedger, checks: Sequence[Check]
) -> tuple[ClaimVerdict | None, list[CheckOutcome]]:
    """The claim's verdict when alignment or an exact check decides it (else ``None``), and the
    outcomes of the checks it ran. A check that raises fails the claim closed."""
    claim = alignment.claim
    if alignment.status is AlignmentStatus.NOT_FACTUAL:
        return ClaimVerdict(claim=claim, label=Label.NOT_FACTUAL, reason="no checkable content"), []
    if alignment.status is AlignmentStatus.BAD_CITATION:
        reason = "cites passages not in the evidence: " + ", ".join(alignment.unknown_ids)
        return ClaimVerdict(claim=claim, label=Label.BAD_CITATION, reason=reason), []
    if alignment.status is AlignmentStatus.OVER_CAP:
        reason = f"cites {len(alignment.passage_ids)} passages, over the per-claim cap"
        return ClaimVerdict(claim=claim, label=Label.BAD_CITATION, reason=reason), []
    if alignment.status is AlignmentStatus.UNCITED:
        return ClaimVerdict(
            claim=claim, label=Label.UNCITED, reason="factual claim without a citation"
        ), []

    evidence = passages_text(ledger, alignment.checked_ids)
    passages = [p for pid in alignment.checked_ids if (p := ledger.get(pid)) is not None]
    outcomes: list[CheckOutcome] = []
    languages = pair(read(claim.text).language, read(evidence).language)
    for check in checks:
        if (skipped := _unread(check, languages)) is not None:
            outcomes.append(skipped)
            continue
        try:
            if isinstance(check, PassageCheck):
                outcome = check.check_passages(claim.text, [(p.id, p.text) for p in passages])
            else:
                outcome = check(claim.text, evidence)
            pointer = _pointer(outcome, passages)
        except Exception as exc:
            error = f"check {check.name} failed: {type(exc).__name__}: {exc}"
            verdict = ClaimVerdict(
                claim=claim, label=Label.VERIFIER_ERROR, reason=error, error=error, checks=outcomes
            )
            return verdict, outcomes
        if outcome is None:
            continue
        outcomes.append(outcome)
        if outcome.status is not CheckStatus.PASSED:
            label = outcome.label or (
                Label.NEEDS_REVIEW
                if outcome.status is CheckStatus.NEEDS_REVIEW
                else Label.UNSUPPORTED
            )
            reason = f"{outcome.detail} (checked against {', '.join(alignment.checked_ids)})"
            verdict = ClaimVerdict(
                claim=claim,
                label=label,
                reason=reason,
                evidence=pointer,
                checks=outcomes,
                finding=outcome.finding,
            )
            return verdict, outcomes
    return None, outcomes


def _unread(check: Check, languages: tuple[str, str]) -> CheckOutcome | None:
    """The outcome of a word check skipped for a language it has no word lists for."""
    lists = getattr(check, "lexicon", ())
    unread = [language for language in dict.fromkeys(languages) if not reads(language, lists)]
    if not unread:
        return None
    return CheckOutcome(
        check=check.name,
        status=CheckStatus.SKIPPED,
        detail=f"not read: no word lists ({', '.join(lists)}) for {', '.join(unread)}",
    )


def _pointer(outcome: CheckOutcome | None, passages: Sequence[Passage]) -> list[EvidenceSpan]:
    """The passage sentence a failing outcome was read against, where it names one; found
    inside the check's guard, so a fault here fails the claim closed as the check's would."""
    if outcome is None or outcome.status is CheckStatus.PASSED or not outcome.evidence_sentence:
        return []
    return check_pointer(outcome.evidence_sentence, passages)
