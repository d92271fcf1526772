"""The model-facing stages of the pipeline: claim extraction and entailment, with fail-closed
handling of every fault. Orchestrated by :mod:`judge.pipeline.runner`."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field

from judge.config import Extractor, Settings
from judge.errors import VerifierFault
from judge.pipeline.align import Alignment
from judge.pipeline.claims.decompose import facts_to_claims
from judge.pipeline.claims.sentences import (
    Sentence,
    claims_from_structured,
    extract_sentence_claims,
    is_factual,
    split_sentences,
)
from judge.pipeline.entail.thresholds import Thresholds
from judge.pipeline.progress import claims_judged, stage
from judge.protocols import Judge
from judge.schemas import (
    CheckOutcome,
    Claim,
    ClaimOrigin,
    ClaimVerdict,
    EvidenceLedger,
    FirstTierSignal,
    Label,
    VerifyRequest,
)


@dataclass
class JudgeSession:
    """The judge for one request, or the reason there is none (which fails closed)."""

    judge: Judge | None
    unavailable: str | None = None
    calls: int = 0


@dataclass
class Extraction:
    claims: list[Claim]
    sentences: list[Sentence]
    errors: dict[str, str] = field(default_factory=dict)  # claim id -> verifier error
    notes: list[str] = field(default_factory=list)


@contextlib.asynccontextmanager
async def judge_session(
    settings: Settings, judge: Judge | None, use_judge: bool
) -> AsyncIterator[JudgeSession]:
    if not use_judge:
        yield JudgeSession(None)
        return
    if judge is not None:
        yield JudgeSession(judge)
        return
    from judge.judges import endpoint as runtime

    stack = contextlib.AsyncExitStack()
    try:
        real_judge = await stack.enter_async_context(runtime.open_judge(settings))
    except VerifierFault as exc:
        # No judge could be opened (dead endpoint, local server failed): every claim that
        # needed one becomes verifier_error.
        await stack.aclose()
        yield JudgeSession(None, unavailable=_fault_text(exc))
        return
    async with stack:
        yield JudgeSession(real_judge)


async def extract_claims(
    req: VerifyRequest, session: JudgeSession, settings: Settings
) -> Extraction:
    if req.claims is not None:
        return Extraction(claims_from_structured(req.claims), [])
    answer = req.answer or ""
    known = [p.id for p in req.evidence]
    sentences = split_sentences(answer, known_ids=known)
    claims = extract_sentence_claims(answer, known_ids=known)
    extraction = Extraction(claims, sentences)
    # Over the claim limit the pipeline blocks the answer: no model call may come first.
    if session.judge is None or len(claims) > settings.max_claims:
        return extraction
    if settings.extractor is Extractor.LLM:
        stage("decomposing claims")
        await _decompose(extraction, answer, req.question, session, settings)
    if settings.check_conclusion:
        stage("extracting the main conclusion")
        await _add_conclusion(extraction, answer, req.question, session)
    return extraction


async def _decompose(
    extraction: Extraction,
    answer: str,
    question: str | None,
    session: JudgeSession,
    settings: Settings,
) -> None:
    decompose = getattr(session.judge, "decompose", None)
    if decompose is None:
        extraction.notes.append("the judge cannot decompose claims: sentences judged whole")
        return
    out: list[Claim] = []
    for claim in extraction.claims:
        if not is_factual(claim.text) or claim.span is None:
            out.append(claim)
            continue
        context = answer[: claim.span.start]
        try:
            facts: list[str] = await decompose(claim.text, context, question)
        except VerifierFault as exc:
            out.append(claim)
            if settings.decompose_fallback:
                extraction.notes.append(
                    f"decomposition of {claim.id} failed ({_fault_text(exc)}): judged as a sentence"
                )
            else:
                extraction.errors[claim.id] = f"decomposition failed: {_fault_text(exc)}"
            continue
        session.calls += 1
        out.extend(facts_to_claims(claim, facts))
    extraction.claims = out


async def _add_conclusion(
    extraction: Extraction, answer: str, question: str | None, session: JudgeSession
) -> None:
    """Check the answer's main conclusion as its own claim: fragments that are each supported
    can still add up to a conclusion the evidence does not support."""
    factual = [
        c
        for c in extraction.claims
        if c.origin is not ClaimOrigin.CONCLUSION and is_factual(c.text)
    ]
    if len({c.sentence_index for c in factual}) < 2:
        return
    conclude = getattr(session.judge, "main_conclusion", None)
    if conclude is None:
        return
    citations: list[str] = []
    for claim in factual:
        citations.extend(cid for cid in claim.citations if cid not in citations)
    claim_id = "conclusion"
    try:
        text: str = await conclude(answer, question)
        session.calls += 1
    except VerifierFault as exc:
        extraction.errors[claim_id] = f"conclusion extraction failed: {_fault_text(exc)}"
        text = "(main conclusion of the answer)"
    extraction.claims.append(
        Claim(id=claim_id, text=text, citations=tuple(citations), origin=ClaimOrigin.CONCLUSION)
    )


async def entail_all(
    items: Sequence[tuple[Alignment, list[CheckOutcome]]],
    ledger: EvidenceLedger,
    question: str | None,
    session: JudgeSession,
    settings: Settings,
    thresholds: Thresholds,
) -> list[ClaimVerdict]:
    """Judge every claim that passed the exact checks; results keep the input order."""
    if session.judge is None:
        if session.unavailable is None:
            return [_unverified(a, outcomes) for a, outcomes in items]
        return [_error(a.claim, outcomes, session.unavailable) for a, outcomes in items]

    # One request view of the judge for all claims: its fence nonce stays the same, so the
    # evidence prefix of the prompts is byte-identical and the server's prefix cache reuses it.
    bind = getattr(session.judge, "for_request", None)
    judge: Judge = bind(ledger_hash=ledger.ledger_hash) if bind else session.judge
    semaphore = asyncio.Semaphore(settings.concurrency)
    results: list[ClaimVerdict | None] = [None] * len(items)

    judged = 0
    claims_judged(judged, len(items))

    async def run(position: int) -> None:
        nonlocal judged
        alignment, outcomes = items[position]
        async with semaphore:
            results[position] = await judge_one(
                judge, alignment, outcomes, ledger, question, settings, thresholds
            )
        judged += 1
        claims_judged(judged, len(items))

    # Claims of one passage go consecutively so the server's prefix cache reuses the evidence.
    order = sorted(range(len(items)), key=lambda i: (items[i][0].passage_ids, i))
    await asyncio.gather(*(run(i) for i in order))
    verdicts = [v for v in results if v is not None]
    session.calls += sum(v.judge.calls for v in verdicts if v.judge is not None)
    return verdicts


async def judge_one(
    judge: Judge,
    alignment: Alignment,
    outcomes: list[CheckOutcome],
    ledger: EvidenceLedger,
    question: str | None,
    settings: Settings,
    thresholds: Thresholds,
) -> ClaimVerdict:
    from judge.pipeline.entail.claim import judge_claim

    try:
        return await judge_claim(judge, alignment, outcomes, ledger, question, settings, thresholds)
    except VerifierFault as exc:
        return _error(alignment.claim, outcomes, _fault_text(exc))
    except Exception as exc:
        return _error(alignment.claim, outcomes, f"unexpected {type(exc).__name__}: {exc}")


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


def _unverified(alignment: Alignment, outcomes: list[CheckOutcome]) -> ClaimVerdict:
    return ClaimVerdict(
        claim=alignment.claim,
        label=Label.UNVERIFIED,
        reason="passed every exact check; no judge consulted",
        checks=outcomes,
    )


def _error(claim: Claim, outcomes: list[CheckOutcome], message: str) -> ClaimVerdict:
    return ClaimVerdict(
        claim=claim, label=Label.VERIFIER_ERROR, reason=message, error=message, checks=outcomes
    )


def _fault_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"
