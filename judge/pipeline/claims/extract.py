"""Stage 2 as the pipeline runs it: the sentence baseline, then, when a judge is at hand, LLM
decomposition; and, once the answer's claims have passed, its main conclusion. A failed model
call never drops a claim: it becomes that claim's verifier error (or, by setting, a note and the
whole sentence)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from judge.config import ConclusionPolicy, Extractor, Settings
from judge.errors import InputError, VerifierFault, fault_text
from judge.pipeline.claims.decompose import facts_to_claims
from judge.pipeline.claims.sentences import sentence_claims
from judge.pipeline.progress import stage
from judge.protocols import ConclusionExtractor, Decomposer, Judge, Metered
from judge.reading.answer import AnswerReading, is_factual, read_answer
from judge.reading.languages import UNDETERMINED
from judge.schemas import Claim, ClaimOrigin, StructuredClaim, VerifyRequest

CONCLUSION_ID = "conclusion"


@dataclass
class Extraction:
    """The claims of one answer, its reading (none for structured claims), and what went wrong
    on the way."""

    claims: list[Claim]
    reading: AnswerReading | None
    errors: dict[str, str] = field(default_factory=dict)  # claim id -> verifier error
    notes: list[str] = field(default_factory=list)
    calls: int = 0  # judge calls spent extracting

    @property
    def language(self) -> str:
        """The answer's language (``und`` for structured claims or one too short to tell)."""
        return self.reading.language if self.reading is not None else UNDETERMINED


async def extract_claims(req: VerifyRequest, judge: Judge | None, settings: Settings) -> Extraction:
    if req.claims is not None:
        return Extraction(claims_from_structured(req.claims), None)
    answer = req.answer or ""
    reading = read_answer(answer, known_ids=[p.id for p in req.evidence])
    claims = sentence_claims(reading)
    extraction = Extraction(claims, reading)
    # Over the claim limit the pipeline blocks the answer: no model call may come first.
    if judge is None or len(claims) > settings.max_claims:
        return extraction
    if settings.extractor is Extractor.LLM:
        stage("decomposing claims")
        await _decompose(extraction, answer, req.question, judge, settings)
    return extraction


def claims_from_structured(items: Sequence[StructuredClaim]) -> list[Claim]:
    """Claims given by the caller, with the chunk ids each one cites."""
    claims: list[Claim] = []
    for index, item in enumerate(items):
        text = " ".join(item.text.split())
        if not text:
            raise InputError(f"claim {index} has no text", field="claims")
        claims.append(
            Claim(
                id=f"c{index + 1}",
                text=text,
                citations=tuple(item.cited_ids),
                origin=ClaimOrigin.STRUCTURED,
            )
        )
    return claims


async def _decompose(
    extraction: Extraction,
    answer: str,
    question: str | None,
    judge: Judge,
    settings: Settings,
) -> None:
    if not isinstance(judge, Decomposer):
        extraction.notes.append("the judge cannot decompose claims: sentences judged whole")
        return
    out: list[Claim] = []
    for claim in extraction.claims:
        if not is_factual(claim.text) or claim.span is None:
            out.append(claim)
            continue
        context = answer[: claim.span.start]
        try:
            before = _calls_so_far(judge)
            facts = await judge.decompose(claim.text, context, question)
        except VerifierFault as exc:
            out.append(claim)
            if settings.decompose_fallback:
                extraction.notes.append(
                    f"decomposition of {claim.id} failed ({fault_text(exc)}): judged as a sentence"
                )
            else:
                extraction.errors[claim.id] = f"decomposition failed: {fault_text(exc)}"
            continue
        extraction.calls += _calls_since(judge, before)
        out.extend(facts_to_claims(claim, facts))
    extraction.claims = out


async def add_conclusion(
    extraction: Extraction, req: VerifyRequest, judge: Judge | None, settings: Settings
) -> Claim | None:
    """The answer's main conclusion as its own claim, added to ``extraction``: fragments that
    are each supported can still add up to a conclusion the evidence does not support. None for
    structured claims, an answer of fewer than two factual sentences, an answer without a
    question under the default policy, or a judge that cannot extract one. A failed extraction
    is the conclusion's verifier error."""
    policy = settings.check_conclusion
    if policy is ConclusionPolicy.NEVER or (
        policy is ConclusionPolicy.QUESTION and not (req.question or "").strip()
    ):
        return None
    if not (
        req.answer is not None and req.claims is None and isinstance(judge, ConclusionExtractor)
    ):
        return None
    factual = [
        c
        for c in extraction.claims
        if c.origin is not ClaimOrigin.CONCLUSION and is_factual(c.text)
    ]
    if len({c.sentence_index for c in factual}) < 2:
        return None
    stage("extracting the main conclusion")
    citations: list[str] = []
    for claim in factual:
        citations.extend(cid for cid in claim.citations if cid not in citations)
    try:
        before = _calls_so_far(judge)
        text = await judge.main_conclusion(req.answer, req.question)
        extraction.calls += _calls_since(judge, before)
    except VerifierFault as exc:
        extraction.errors[CONCLUSION_ID] = f"conclusion extraction failed: {fault_text(exc)}"
        text = "(main conclusion of the answer)"
    conclusion = Claim(
        id=CONCLUSION_ID, text=text, citations=tuple(citations), origin=ClaimOrigin.CONCLUSION
    )
    extraction.claims.append(conclusion)
    return conclusion


def _calls_so_far(judge: object) -> int | None:
    return judge.usage.calls if isinstance(judge, Metered) else None


def _calls_since(judge: object, before: int | None) -> int:
    """Model calls made since ``before``: none for an answer served from the verdict cache; one
    when the judge does not count its calls."""
    if before is None or not isinstance(judge, Metered):
        return 1
    return judge.usage.calls - before
