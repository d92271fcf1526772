from judge.config import CitationPolicy
from judge.pipeline.align import Alignment, AlignmentStatus, align_claim
from judge.schemas import Claim, ClaimOrigin, EvidenceLedger, Passage

LEDGER = EvidenceLedger(
    passages=(
        Passage(id="S1", text="Unopened items can be returned within 30 days."),
        Passage(id="S2", text="Refunds are issued within 5 to 7 business days."),
    )
)


def ranker(text: str, k: int) -> list[tuple[str, float]]:
    return [("S2", 1.5), ("S1", 0.0)][:k]


def align(
    claim: Claim, policy: CitationPolicy = CitationPolicy.STRICT, factual: bool = True, cap: int = 4
) -> Alignment:
    return align_claim(
        claim,
        LEDGER,
        policy=policy,
        max_citations=cap,
        search=ranker,
        search_top_k=2,
        factual=factual,
    )


def test_cited_claim_is_checked_against_its_citations_only() -> None:
    result = align(Claim(id="c1", text="x", citations=("S1",)))
    assert result.status is AlignmentStatus.CITED
    assert result.passage_ids == ("S1",)


def test_unknown_id_is_bad_citation_naming_it() -> None:
    result = align(Claim(id="c1", text="x", citations=("S1", "S9")))
    assert result.status is AlignmentStatus.BAD_CITATION
    assert result.unknown_ids == ("S9",)


def test_uncited_fails_under_strict_and_searches_under_search() -> None:
    claim = Claim(id="c1", text="Refunds take a week.")
    assert align(claim).status is AlignmentStatus.UNCITED
    searched = align(claim, CitationPolicy.SEARCH)
    assert searched.status is AlignmentStatus.SEARCHED
    assert searched.passage_ids == ("S2",)  # zero-score passages are not aligned


def test_citation_cap() -> None:
    claim = Claim(id="c1", text="x", citations=("S1", "S2"))
    assert align(claim, cap=1).status is AlignmentStatus.OVER_CAP
    conclusion = Claim(id="k", text="x", citations=("S1", "S2"), origin=ClaimOrigin.CONCLUSION)
    assert align(conclusion, cap=1).status is AlignmentStatus.CITED


def test_non_factual_is_not_aligned() -> None:
    assert align(Claim(id="c1", text="Sure!"), factual=False).status is AlignmentStatus.NOT_FACTUAL
