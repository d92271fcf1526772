"""Align each claim with the passages it must be checked against.

A claim is checked against its cited passages only. A cited id absent from the ledger is a
fabricated source. An uncited factual claim fails under the strict policy, or under the
search policy is aligned to the passages most similar to it; the exact checks also read the
passages holding claim words those lack (``widen``), where a detail of a sentence drawing on
several passages may come from, while the judge reads the most similar ones only.
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
    check_only_ids: tuple[str, ...] = ()  # read by the exact checks, not shown to the judge

    @property
    def checkable(self) -> bool:
        return self.status in (AlignmentStatus.CITED, AlignmentStatus.SEARCHED)

    @property
    def checked_ids(self) -> tuple[str, ...]:
        """The passages the exact checks read."""
        return self.passage_ids + self.check_only_ids


PassageRanker = Callable[[str, int], list[tuple[str, float]]]
# (claim text, the passages search chose) -> more passages for the exact checks alone
PassageWidener = Callable[[str, Sequence[str]], list[str]]


def align_claim(
    claim: Claim,
    ledger: EvidenceLedger,
    *,
    policy: CitationPolicy,
    max_citations: int,
    search: PassageRanker,
    search_top_k: int,
    factual: bool,
    widen: PassageWidener | None = None,
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
            wider = tuple(widen(claim.text, ranked)) if widen is not None else ()
            return Alignment(claim, AlignmentStatus.SEARCHED, tuple(ranked), check_only_ids=wider)
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
    widen: PassageWidener | None = None,
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
            widen=widen,
        )
        for claim in claims
    ]
