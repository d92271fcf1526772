"""Judging one claim over its evidence: token windows, evidence views and the contradiction
probe, each call through :class:`judge.protocols.Judge`. No I/O of its own."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from judge.pipeline.entail.length import length_calibrated
from judge.pipeline.entail.score import decide_label
from judge.pipeline.entail.verdict import evidence_spans
from judge.protocols import ContradictionProbe, Judge
from judge.schemas import Claim, EvidenceSpan, JudgeTrace, Label
from judge.schemas.judging import EntailmentResult, Premise


@dataclass
class ClaimJudgement:
    """The judge's decision on one claim over all its evidence windows."""

    label: Label  # SUPPORTED, UNSUPPORTED or CONTRADICTED
    p_supported: float | None  # highest over the windows judged
    p_contradicted: float | None
    reason: str
    evidence: list[EvidenceSpan]
    trace: JudgeTrace  # the deciding window's, with calls, tokens and time summed over windows
    window: int
    results: list[EntailmentResult] = field(default_factory=list)
    view: int = 0  # which evidence view decided (see judge_over_views)
    # Set on an unsupported claim the judge could not call contradicted: what the
    # contradiction probe would ask, if the caller decides to ask it (see probe_judgement).
    probe_target: ProbeTarget | None = None


@dataclass(frozen=True)
class ProbeTarget:
    """The contradiction probe's question about an unsupported claim: the claim, or its weakest
    sentence, on the windows it was judged on. A contradiction it finds is placed at ``view``
    and, when given, ``window`` (a sentence's windows are the whole claim's passages, so its
    contradiction points where the whole claim was judged)."""

    claim: Claim
    premises: Sequence[Premise]
    view: int = 0
    window: int | None = None


def _can_contradict(results: Sequence[EntailmentResult]) -> bool:
    return any(r.p_contradicted is not None or r.label == "contradicted" for r in results)


def _best(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return max(known) if known else None


async def judge_over_windows(
    judge: Judge,
    claim: Claim,
    premises: Sequence[Premise],
    question: str | None,
    t_entail: float,
    t_contra: float,
    length_slope: float = 0.0,
) -> ClaimJudgement:
    """Supported if any window supports the claim, contradicted if any window contradicts it
    (contradiction wins, so judging stops at the first). A ``VerifierFault`` from any window
    propagates: a claim is never decided on part of its evidence.

    With a judge that cannot say "contradicted" (no contradiction score and never that label),
    an unsupported claim gets a ``probe_target``: :func:`probe_judgement` can ask it again,
    window by window, whether the evidence makes it false."""
    if not premises:
        raise ValueError(f"claim {claim.id!r} has no premise to be judged against")
    results: list[EntailmentResult] = []
    labels: list[Label] = []
    for premise in premises:
        result = await judge.entail(claim, premise, question)
        result = length_calibrated(result, premise, length_slope)
        results.append(result)
        labels.append(decide_label(result, t_entail, t_contra))
        if labels[-1] is Label.CONTRADICTED:
            break

    if Label.CONTRADICTED in labels:
        label = Label.CONTRADICTED
        deciding = labels.index(Label.CONTRADICTED)
    elif Label.SUPPORTED in labels:
        label = Label.SUPPORTED
        supported = [i for i, lab in enumerate(labels) if lab is Label.SUPPORTED]
        deciding = max(supported, key=lambda i: results[i].p_supported or 0.0)
    else:
        label = Label.UNSUPPORTED
        deciding = max(range(len(results)), key=lambda i: results[i].p_supported or 0.0)

    judgement = _judgement(label, results[deciding], premises[deciding], results)
    if label is Label.UNSUPPORTED and not _can_contradict(results):
        judgement.probe_target = ProbeTarget(claim, premises)
    return judgement


async def judge_over_views(
    judge: Judge,
    claim: Claim,
    views: Sequence[Sequence[Premise]],
    question: str | None,
    t_entail: float,
    t_contra: float,
    length_slope: float = 0.0,
) -> ClaimJudgement:
    """Judge the claim on each evidence view (the selected sentences, the whole passages); its
    support score is the mean of the views' scores, so each view can outvote the other's
    misreading. Contradiction in any view wins; without scores, supported needs every view.
    One view is :func:`judge_over_windows`. The probe target is the first view."""
    if len(views) == 1:
        return await judge_over_windows(
            judge, claim, views[0], question, t_entail, t_contra, length_slope
        )
    parts: list[ClaimJudgement] = []
    for premises in views:
        part = await judge_over_windows(
            judge, claim, premises, question, t_entail, t_contra, length_slope
        )
        part.view = len(parts)
        parts.append(part)
        if part.label is Label.CONTRADICTED:
            return _spent_on(part, parts)
    label, mean = _pooled(parts, lambda scores: sum(scores) / len(scores), t_entail)
    # The first view (the selected sentences) points at the evidence unless another decided.
    chosen = next((part for part in parts if part.label is label), parts[0])
    judgement = _spent_on(chosen, parts)
    judgement.label, judgement.p_supported = label, mean
    results = [result for part in parts for result in part.results]
    judgement.probe_target = None
    if label is Label.UNSUPPORTED and not _can_contradict(results):
        judgement.probe_target = ProbeTarget(claim, views[0])
    return judgement


def _pooled(
    parts: Sequence[ClaimJudgement],
    pool: Callable[[list[float]], float],
    t_entail: float,
) -> tuple[Label, float | None]:
    """The label and support score of judgements pooled into one (none contradicted): the
    pooled score against ``t_entail`` or, when any part has no score, supported only if every
    part is."""
    scores = [part.p_supported for part in parts]
    known = [score for score in scores if score is not None]
    if len(known) < len(scores):
        supported = all(part.label is Label.SUPPORTED for part in parts)
        return (Label.SUPPORTED if supported else Label.UNSUPPORTED), None
    score = pool(known)
    return (Label.SUPPORTED if score >= t_entail else Label.UNSUPPORTED), score


def _judgement(
    label: Label,
    chosen: EntailmentResult,
    premise: Premise,
    spent: list[EntailmentResult],
) -> ClaimJudgement:
    judgement = ClaimJudgement(
        label=label,
        p_supported=_best([r.p_supported for r in spent]),
        p_contradicted=_best([r.p_contradicted for r in spent]),
        reason=chosen.reason,
        evidence=evidence_spans(premise, chosen.evidence_quote),
        trace=chosen.trace.model_copy(update={"window": premise.window_index}),
        window=premise.window_index,
    )
    return _with_spent(judgement, list(spent))


def _spent_on(chosen: ClaimJudgement, parts: list[ClaimJudgement]) -> ClaimJudgement:
    """``chosen`` with the calls, tokens and time of every part."""
    return _with_spent(chosen, [result for part in parts for result in part.results])


def _with_spent(judgement: ClaimJudgement, spent: list[EntailmentResult]) -> ClaimJudgement:
    trace = judgement.trace.model_copy(
        update={
            "cached": all(r.trace.cached for r in spent),
            "calls": sum(r.trace.calls for r in spent),
            "prompt_tokens": sum(r.trace.prompt_tokens for r in spent),
            "completion_tokens": sum(r.trace.completion_tokens for r in spent),
            "latency_s": sum(r.trace.latency_s for r in spent),
        }
    )
    return replace(judgement, trace=trace, results=spent)


async def _probed(
    judgement: ClaimJudgement,
    probe: ContradictionProbe,
    claim: Claim,
    premises: Sequence[Premise],
    question: str | None,
    t_contra: float,
) -> ClaimJudgement:
    """Ask the probe window by window; contradicted at the first window whose P(contradicted)
    reaches ``t_contra``. The support score stays the judge's own: the probe answers a
    different question."""
    spent = list(judgement.results)
    for premise in premises:
        probed = await probe.probe_contradiction(claim, premise, question)
        spent.append(probed)
        if decide_label(probed, 1.0, t_contra) is Label.CONTRADICTED:
            contradicted = _judgement(Label.CONTRADICTED, probed, premise, spent)
            contradicted.p_supported = judgement.p_supported
            return contradicted
    unsupported = _with_spent(judgement, spent)
    unsupported.p_contradicted = _best([r.p_contradicted for r in spent])
    return unsupported


async def judge_sentences(
    judge: Judge,
    whole: ClaimJudgement,
    sentences: Sequence[tuple[Claim, Sequence[Premise]]],
    question: str | None,
    t_entail: float,
    t_contra: float,
    length_slope: float = 0.0,
) -> ClaimJudgement:
    """A multi-sentence claim judged whole (``whole``) and sentence by sentence: it is as
    supported as its weakest part, and contradicted if any part is. Small judges pass a
    summary whose one edited sentence hides among true ones; asked alone, that sentence fails.
    ``view`` and ``window`` stay those of the whole claim's judgement, whose evidence views the
    caller holds. When the sentences turn a supported claim unsupported, the probe target is
    the weakest sentence (see :func:`judge_over_windows`)."""
    parts = [whole]
    for sentence, premises in sentences:
        part = await judge_over_windows(
            judge, sentence, premises, question, t_entail, t_contra, length_slope
        )
        parts.append(part)
        if part.label is Label.CONTRADICTED:
            break
    spent = [result for part in parts for result in part.results]
    contradicted = [part for part in parts if part.label is Label.CONTRADICTED]
    if contradicted:
        return _with_spent(replace(contradicted[0], view=whole.view, window=whole.window), spent)
    label, weakest = _pooled(parts, min, t_entail)
    judged = _with_spent(whole, spent)
    judged.label, judged.p_supported = label, weakest
    if label is Label.UNSUPPORTED and _can_contradict(spent):
        judged.probe_target = None
    if label is whole.label:
        return judged
    failing = min(range(1, len(parts)), key=lambda i: parts[i].p_supported or 0.0)
    judged.reason = parts[failing].reason
    if label is Label.UNSUPPORTED and not _can_contradict(spent):
        sentence, premises = sentences[failing - 1]
        judged.probe_target = ProbeTarget(sentence, premises, whole.view, whole.window)
    return judged


async def probe_judgement(
    judgement: ClaimJudgement,
    probe: ContradictionProbe,
    question: str | None,
    t_contra: float,
) -> ClaimJudgement:
    """Ask the contradiction probe about a judgement's ``probe_target`` (unchanged without
    one): contradicted if a window's P(contradicted) reaches ``t_contra``. The probe only splits
    the unsupported: it never turns a claim supported."""
    target = judgement.probe_target
    if target is None:
        return judgement
    probed = await _probed(judgement, probe, target.claim, target.premises, question, t_contra)
    probed.probe_target = None
    if probed.label is Label.CONTRADICTED:
        probed.view = target.view
        if target.window is not None:
            probed.window = target.window
    return probed
