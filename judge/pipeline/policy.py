"""Turn per-claim verdicts into one answer-level action: pass, repair, regenerate or block.

Pure: no I/O. The rules, strictest first:
- block: any contradiction, failed number / date / identifier / quote check, bad citation,
  claim needing review, unverified claim, verifier error, exceeded limit, or an answer screen
  (:mod:`judge.pipeline.screens.answer`, computed once per request): citation stuffing, or
  markup in the answer that hides or strikes out text (what is read is not what was checked,
  wherever it stands);
- repair: only repairable failures (unsupported, uncited, added hedge, sentence without a
  claim) and what remains after removing them still answers (enough supported content);
- regenerate: repairable failures, but removing them leaves too little;
- pass: every factual claim supported and the answer fully covered by claims.

An answer threshold ``t_answer`` (fitted by ``judge calibrate`` on labelled answers) judges the
answer by its weakest judged claim, apart from the claim threshold: above ``t_entail`` it is
stricter (an answer whose weakest claim falls below it is regenerated); below ``t_entail`` it
tolerates claims the judge scored between the two, so that one borderline sentence of a long
answer does not fail it. Only the judge's score is relaxed: a failed exact check, a
contradiction, an error, an uncited or unchecked claim still decide as above, and each
tolerated claim keeps its ``unsupported`` label and is named in the reasons.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from judge.pipeline.screens.answer import AnswerScreens
from judge.schemas import (
    Action,
    CharSpan,
    CheckStatus,
    ClaimOrigin,
    ClaimVerdict,
    CoverageReport,
    Label,
    RepairEdit,
)

BLOCKING_LABELS = frozenset(
    {
        Label.CONTRADICTED,
        Label.NUMBER_MISMATCH,
        Label.DATE_MISMATCH,
        Label.IDENTIFIER_MISMATCH,
        Label.QUOTE_MISMATCH,
        Label.NAME_MISMATCH,
        Label.BAD_CITATION,
        Label.NEEDS_REVIEW,
        Label.UNVERIFIED,
        Label.VERIFIER_ERROR,
    }
)
REPAIRABLE_LABELS = frozenset({Label.UNSUPPORTED, Label.UNCITED, Label.HEDGE_ADDED})


@dataclass(frozen=True)
class PolicyInput:
    verdicts: Sequence[ClaimVerdict]
    answer: str | None
    coverage: CoverageReport = field(default_factory=CoverageReport)
    screens: AnswerScreens = field(default_factory=AnswerScreens)
    limits_exceeded: Sequence[str] = ()
    repair_min_kept_ratio: float = 0.5
    t_answer: float | None = None


@dataclass(frozen=True)
class PolicyDecision:
    action: Action
    reasons: list[str]
    failing_claims: list[str]
    repaired_answer: str | None = None
    repair_edits: list[RepairEdit] = field(default_factory=list)


def decide(inputs: PolicyInput) -> PolicyDecision:
    if inputs.limits_exceeded:
        return PolicyDecision(Action.BLOCK, [f"limit: {r}" for r in inputs.limits_exceeded], [])

    failing = [v for v in inputs.verdicts if v.label not in (Label.SUPPORTED, Label.NOT_FACTUAL)]
    tolerated = [v for v in failing if _tolerated(v, inputs.t_answer)]
    failing = [v for v in failing if v not in tolerated]
    failing_ids = [v.claim.id for v in failing]
    blocking = [v for v in failing if v.label in BLOCKING_LABELS]
    reasons = [_describe(v) for v in failing]
    stuffing, markup = inputs.screens.citation_stuffing, inputs.screens.hidden_markup
    if stuffing:
        reasons.append("citation stuffing: citations spread over every passage")
    if markup:
        shown = "; ".join(found.describe() for found in markup[:4])
        more = f" (and {len(markup) - 4} more)" if len(markup) > 4 else ""
        reasons.append(f"markup hides text from a reader of the rendered answer: {shown}{more}")
    if blocking or stuffing or markup:
        return PolicyDecision(Action.BLOCK, reasons, failing_ids)

    gap_spans = list(inputs.coverage.sentences_without_claims)
    if inputs.coverage.uncovered_words:
        reasons.append(
            "not covered by any claim: " + ", ".join(inputs.coverage.uncovered_words[:10])
        )
    if not failing and not gap_spans and not inputs.coverage.uncovered_words:
        if not any(v.label is Label.SUPPORTED for v in inputs.verdicts):
            return PolicyDecision(Action.PASS, ["no factual claims to verify"], [])
        weakest = _weakest_below(inputs.verdicts, inputs.t_answer)
        if weakest is not None:
            reason = (
                f"{weakest.claim.id}: weakest claim, P(supported) {weakest.score:.2f} "
                f"< t_answer {inputs.t_answer:.2f}"
            )
            return PolicyDecision(Action.REGENERATE, [reason], [weakest.claim.id])
        return PolicyDecision(Action.PASS, [_describe_tolerated(v, inputs) for v in tolerated], [])

    for span in gap_spans:
        reasons.append(f"sentence at {span.start}-{span.end} yielded no claim")
    return _repair_or_regenerate(inputs, failing, gap_spans, reasons, failing_ids)


def _repair_or_regenerate(
    inputs: PolicyInput,
    failing: Sequence[ClaimVerdict],
    gap_spans: Sequence[CharSpan],
    reasons: list[str],
    failing_ids: list[str],
) -> PolicyDecision:
    # A failed conclusion or uncovered words cannot be cut out by span: regenerate.
    unrepairable = (
        inputs.answer is None
        or inputs.coverage.uncovered_words
        or any(v.claim.span is None or v.claim.origin is ClaimOrigin.CONCLUSION for v in failing)
    )
    if unrepairable:
        return PolicyDecision(Action.REGENERATE, reasons, failing_ids)
    answer_text = inputs.answer or ""
    remove = _merge([v.claim.span for v in failing if v.claim.span is not None] + list(gap_spans))
    factual_spans = _merge(
        [
            v.claim.span
            for v in inputs.verdicts
            if v.claim.span is not None and v.label is not Label.NOT_FACTUAL
        ]
    )
    total = sum(s.end - s.start for s in factual_spans) or 1
    removed = sum(_overlap(s, factual_spans) for s in remove)
    kept_ratio = 1.0 - removed / total
    kept_supported = any(
        v.label is Label.SUPPORTED
        and v.claim.span is not None
        and not any(_contains(r, v.claim.span) for r in remove)
        for v in inputs.verdicts
    )
    if kept_ratio < inputs.repair_min_kept_ratio or not kept_supported:
        reasons.append(f"repair would keep {kept_ratio:.0%} of the answer: regenerate")
        return PolicyDecision(Action.REGENERATE, reasons, failing_ids)
    edits = [
        RepairEdit(
            span=span,
            claim_ids=[
                v.claim.id
                for v in failing
                if v.claim.span is not None and _contains(span, v.claim.span)
            ],
        )
        for span in remove
    ]
    return PolicyDecision(
        Action.REPAIR, reasons, failing_ids, apply_edits(answer_text, edits), edits
    )


_NOT_FAILED = frozenset({CheckStatus.PASSED, CheckStatus.SKIPPED})


def decided_by_judge_score(verdict: ClaimVerdict) -> bool:
    """Only the judge's score decided this claim: it was judged and scored, every exact check
    passed, and it came out supported or unsupported (not contradicted, not an error). These are
    the claims an answer threshold may weigh; ``judge calibrate`` fits it on the same ones."""
    return (
        verdict.label in (Label.SUPPORTED, Label.UNSUPPORTED)
        and verdict.judge is not None
        and verdict.score is not None
        and all(c.status in _NOT_FAILED for c in verdict.checks)
    )


def _tolerated(verdict: ClaimVerdict, t_answer: float | None) -> bool:
    """A claim the judge alone found unsupported, with a score the answer rule accepts."""
    return (
        t_answer is not None
        and verdict.label is Label.UNSUPPORTED
        and decided_by_judge_score(verdict)
        and (verdict.score or 0.0) >= t_answer
    )


def _describe_tolerated(verdict: ClaimVerdict, inputs: PolicyInput) -> str:
    return (
        f"{verdict.claim.id} unsupported, tolerated by the answer rule: P(supported) "
        f"{verdict.score or 0.0:.2f} >= t_answer {inputs.t_answer or 0.0:.2f}"
    )


def _weakest_below(verdicts: Sequence[ClaimVerdict], t_answer: float | None) -> ClaimVerdict | None:
    """The judged supported claim with the lowest score, if that score is below ``t_answer``."""
    if t_answer is None:
        return None
    scored = [v for v in verdicts if v.label is Label.SUPPORTED and v.score is not None]
    weakest = min(scored, key=lambda v: v.score or 0.0, default=None)
    if weakest is None or weakest.score is None or weakest.score >= t_answer:
        return None
    return weakest


def apply_edits(answer: str, edits: Sequence[RepairEdit]) -> str:
    """Apply span edits (non-overlapping) from the end backwards, then tidy whitespace."""
    text = answer
    for edit in sorted(edits, key=lambda e: e.span.start, reverse=True):
        text = text[: edit.span.start] + edit.replacement + text[edit.span.end :]
    text = re.sub(r"[ \t]{2,}", " ", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return re.sub(r" +([.,;:])", r"\1", text).strip()


def _describe(verdict: ClaimVerdict) -> str:
    detail = verdict.reason or verdict.error or ""
    return f"{verdict.claim.id} {verdict.label.value}" + (f": {detail}" if detail else "")


def _merge(spans: Sequence[CharSpan]) -> list[CharSpan]:
    merged: list[CharSpan] = []
    for span in sorted(spans, key=lambda s: (s.start, s.end)):
        if merged and span.start <= merged[-1].end:
            last = merged[-1]
            merged[-1] = CharSpan(start=last.start, end=max(last.end, span.end))
        else:
            merged.append(span)
    return merged


def _overlap(span: CharSpan, others: Sequence[CharSpan]) -> int:
    return sum(max(0, min(span.end, o.end) - max(span.start, o.start)) for o in others)


def _contains(outer: CharSpan, inner: CharSpan) -> bool:
    return bool(outer.start <= inner.start and inner.end <= outer.end)
