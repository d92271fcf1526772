"""Building check outcomes with one wording across checks."""

from __future__ import annotations

from collections.abc import Sequence

from judge.reading import read
from judge.reading.cited import Cited, locate_in
from judge.schemas import CharSpan, CheckOutcome, CheckStatus, EvidenceSpan, Finding, Label


def located(
    outcome: CheckOutcome,
    claim: str,
    claim_at: tuple[int, int] | None,
    cited: Cited,
    evidence_at: tuple[int, int] | None = None,
) -> CheckOutcome:
    """``outcome`` with the spans of its finding put back in the texts as given: ``claim_at``
    (offsets into the claim's reading) as offsets into the claim, and ``evidence_at`` (into
    the reading of the cited passages) as a passage id and offsets into that passage."""
    update: dict[str, object] = {}
    if claim_at is not None:
        found = locate_in(claim, read(claim).text, *claim_at)
        if found is not None:
            update["claim_span"] = CharSpan(start=found[0], end=found[1])
    if evidence_at is not None and (where := cited.locate(*evidence_at)) is not None:
        update["evidence_span"] = EvidenceSpan(
            passage_id=where.passage_id, start=where.start, end=where.end, text=where.text
        )
    return outcome.model_copy(update=update) if update else outcome


def passed(check: str, what: str, derivations: Sequence[str] = ()) -> CheckOutcome:
    """A pass; values the evidence gives only by arithmetic are named with their computation."""
    detail = f"{what} found in the cited evidence"
    if derivations:
        detail += "; computed from it: " + "; ".join(derivations)
    return CheckOutcome(
        check=check,
        status=CheckStatus.PASSED,
        detail=detail,
        derivations=tuple(dict.fromkeys(derivations)),
    )


def missing(
    check: str,
    label: Label,
    what: str,
    tokens: Sequence[str],
    *,
    status: CheckStatus = CheckStatus.FAILED,
    how: str = "",
    finding: Finding | None = Finding.ABSENT,
    sentence: str = "",
) -> CheckOutcome:
    """An outcome naming the claim's tokens that the cited evidence does not hold, or (a
    conflict) holds otherwise."""
    unique = tuple(dict.fromkeys(tokens))
    listed = ", ".join(repr(token) for token in unique)
    detail = f"{what} {listed} not found in the cited evidence"
    if how:
        detail += f" ({how})"
    return CheckOutcome(
        check=check,
        status=status,
        label=label,
        detail=detail,
        missing=unique,
        evidence_sentence=sentence,
        finding=finding,
    )


def flagged(
    check: str,
    label: Label,
    detail: str,
    missing: Sequence[str],
    *,
    confident: bool,
    sentence: str = "",
    finding: Finding = Finding.CONFLICT,
) -> CheckOutcome:
    """A failure labelled ``label`` where the check is confident, else one for review, read
    against the evidence ``sentence`` when there is one."""
    return CheckOutcome(
        check=check,
        status=CheckStatus.FAILED if confident else CheckStatus.NEEDS_REVIEW,
        label=label if confident else Label.NEEDS_REVIEW,
        detail=detail,
        missing=tuple(missing),
        evidence_sentence=sentence,
        finding=finding,
    )


def conflicting(
    check: str,
    label: Label,
    what: str,
    pairs: Sequence[tuple[str, str]],
    *,
    absent: Sequence[str] = (),
    how: str = "",
    sentence: str = "",
    written: Sequence[str] = (),
) -> CheckOutcome:
    """A conflict: the claim's values with the ones the cited evidence states in their place
    ("'60 days' where the evidence says '30 days'"), and any it does not state at all.
    ``written`` gives the claim's values as its text has them where the pairs describe them
    otherwise ("at most 5 days" for the claim's "5 days")."""
    stated = "; ".join(f"{mine!r} where the evidence says {theirs!r}" for mine, theirs in pairs)
    detail = f"{what} the cited evidence states otherwise: {stated}"
    if absent:
        detail += "; not found in it: " + ", ".join(repr(token) for token in dict.fromkeys(absent))
    if how:
        detail += f" ({how})"
    return CheckOutcome(
        check=check,
        status=CheckStatus.FAILED,
        label=label,
        detail=detail,
        missing=tuple(dict.fromkeys([*(written or [mine for mine, _ in pairs]), *absent])),
        evidence_sentence=sentence,
        finding=Finding.CONFLICT,
    )
