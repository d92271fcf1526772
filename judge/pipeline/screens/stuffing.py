"""Citation stuffing: an answer that cites (nearly) every passage for every claim.

Citations spread uniformly over the whole ledger say nothing about where each claim comes from;
they make every claim look grounded while pointing nowhere in particular.
"""

from __future__ import annotations

from collections.abc import Sequence


def detect_citation_stuffing(
    citations_per_claim: Sequence[Sequence[str]],
    ledger_ids: Sequence[str],
    min_passages: int = 3,
) -> bool:
    """Whether the claims' citations blanket a ledger of at least ``min_passages`` passages.

    True when every cited claim cites every passage, or when there are two or more cited claims
    and each cites more than half of the ledger. Uncited claims and ids outside the ledger are
    left to the citation checks and do not count here.
    """
    ledger = set(ledger_ids)
    if len(ledger) < max(min_passages, 1):
        return False
    cited = [set(ids) & ledger for ids in citations_per_claim if ids]
    if not cited:
        return False
    if all(ids == ledger for ids in cited):
        return True
    return len(cited) >= 2 and all(2 * len(ids) > len(ledger) for ids in cited)


def may_become_stuffing(
    citations_per_claim: Sequence[Sequence[str]],
    ledger_ids: Sequence[str],
    min_passages: int = 3,
) -> bool:
    """Whether claims still to come could make these citation stuffing
    (:func:`detect_citation_stuffing`): every cited claim so far cites more than half of a
    ledger of at least ``min_passages`` passages. A stream holds its text back meanwhile."""
    ledger = set(ledger_ids)
    if len(ledger) < max(min_passages, 1):
        return False
    cited = [set(ids) & ledger for ids in citations_per_claim if ids]
    return bool(cited) and all(2 * len(ids) > len(ledger) for ids in cited)


def over_cap(citations: Sequence[str], cap: int) -> bool:
    """Whether one claim cites more distinct passages than ``cap`` allows."""
    if cap < 1:
        raise ValueError(f"citation cap must be at least 1, got {cap}")
    return len(set(citations)) > cap
