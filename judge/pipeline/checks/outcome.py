"""Building check outcomes with one wording across checks."""

from __future__ import annotations

from collections.abc import Sequence

from judge.schemas import CheckOutcome, CheckStatus, Label


def passed(check: str, what: str) -> CheckOutcome:
    return CheckOutcome(
        check=check, status=CheckStatus.PASSED, detail=f"{what} found in the cited evidence"
    )


def missing(
    check: str,
    label: Label,
    what: str,
    tokens: Sequence[str],
    *,
    status: CheckStatus = CheckStatus.FAILED,
    how: str = "",
) -> CheckOutcome:
    """An outcome naming the claim's tokens that the cited evidence does not hold."""
    unique = tuple(dict.fromkeys(tokens))
    listed = ", ".join(repr(token) for token in unique)
    detail = f"{what} {listed} not found in the cited evidence"
    if how:
        detail += f" ({how})"
    return CheckOutcome(check=check, status=status, label=label, detail=detail, missing=unique)


def flagged(
    check: str,
    label: Label,
    detail: str,
    missing: Sequence[str],
    *,
    confident: bool,
    sentence: str = "",
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
    )
