"""The first-tier classifier's scores beside the judge's verdicts: where the two agree."""

from __future__ import annotations

from judge.schemas import ClaimVerdict, FirstTierSignal, Label


def compare_first_tier(verdicts: list[ClaimVerdict], signal: FirstTierSignal) -> list[ClaimVerdict]:
    """Attach the first tier's score to each claim it scored and say whether the judge agreed."""
    by_index = {c.index: c.score for c in signal.claims if c.index is not None}
    by_text = {c.text: c.score for c in signal.claims if c.text is not None}
    out: list[ClaimVerdict] = []
    for position, verdict in enumerate(verdicts):
        score = by_text.get(verdict.claim.text, by_index.get(position))
        if score is None or verdict.label is Label.NOT_FACTUAL:
            out.append(verdict)
            continue
        agrees = (score >= signal.threshold) == (verdict.label is Label.SUPPORTED)
        out.append(
            verdict.model_copy(update={"first_tier_score": score, "agrees_with_first_tier": agrees})
        )
    return out
