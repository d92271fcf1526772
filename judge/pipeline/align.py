"""Align each claim with the passages it must be checked against.

A claim is checked against its cited passages only. A cited id absent from the ledger is a
fabricated source. An uncited factual claim fails under the strict policy, or under the
search policy is aligned to the passages most similar to it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from judge.config import CitationPolicy
from judge.schemas import Claim, ClaimOrigin, EvidenceLedger


class AlignmentStatus(StrEnum):
    CITED = "cited"
    SEARCHED = "searched"  # uncited, aligned by similarity under the search policy
    UNCITED = "uncited"
    BAD_CITATION = "bad_citation"
    OVER_CAP = "over_cap"
    NOT_FACTUAL = "not_factual"


@dataclass(frozen=True)
class Alignment:
    claim: Claim
    status: AlignmentStatus
    passage_ids: tuple[str, ...] = ()
    unknown_ids: tuple[str, ...] = ()

    @property
    def checkable(self) -> bool:
        return self.status in (AlignmentStatus.CITED, AlignmentStatus.SEARCHED)


PassageRanker = Callable[[str, int], list[tuple[str, float]]]


def align_claim(
    claim: Claim,
    ledger: EvidenceLedger,
    *,
    policy: CitationPolicy,
    max_citations: int,
    search: PassageRanker,
    search_top_k: int,
    factual: bool,
) -> Alignment:
    if not factual:
        return Alignment(claim, AlignmentStatus.NOT_FACTUAL)
    known = set(ledger.ids)
    unknown = tuple(cid for cid in claim.citations if cid not in known)
    if unknown:
        return Alignment(claim, AlignmentStatus.BAD_CITATION, claim.citations, unknown)
    # The conclusion carries every citation of the answer by construction: no cap for it.
    if len(claim.citations) > max_citations and claim.origin is not ClaimOrigin.CONCLUSION:
        return Alignment(claim, AlignmentStatus.OVER_CAP, claim.citations)
    if claim.citations:
        return Alignment(claim, AlignmentStatus.CITED, claim.citations)
    if policy is CitationPolicy.SEARCH:
        ranked = [pid for pid, score in search(claim.text, search_top_k) if score > 0]
        if ranked:
            return Alignment(claim, AlignmentStatus.SEARCHED, tuple(ranked))
    return Alignment(claim, AlignmentStatus.UNCITED)


def align_claims(
    claims: Sequence[Claim],
    ledger: EvidenceLedger,
    *,
    policy: CitationPolicy,
    max_citations: int,
    search: PassageRanker,
    search_top_k: int,
    is_factual: Callable[[str], bool],
) -> list[Alignment]:
    return [
        align_claim(
            claim,
            ledger,
            policy=policy,
            max_citations=max_citations,
            search=search,
            search_top_k=search_top_k,
            factual=is_factual(claim.text),
        )
        for claim in claims
    ]
