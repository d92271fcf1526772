"""What the guard endpoint's ``grounding`` field says about text it did not send.

The verification of a reply quotes the reply: each claim's text, the reasons and the check
details (``Numbers '60' not found ...``). For the sentences that went out that is what the
reader already has; for those withheld, stopped or refused it is unverified text, wrong values
included, in bytes every client receives. So by default the field keeps those claims' ids,
labels, spans, scores and evidence, and leaves out their words: the claim text becomes
:data:`WITHHELD_TEXT`, reasons, check details and error messages are dropped, the answer-level
reasons are cut to their kind (``c2 number_mismatch``) and the uncovered words to their spans.
A caller who wants the quotes for a reviewer asks for them (``grounding.include_withheld``);
the audit log always holds everything.
"""

from __future__ import annotations

from collections.abc import Collection

from judge.schemas import CheckOutcome, ClaimOrigin, ClaimVerdict, VerifyResponse

__all__ = ["WITHHELD_TEXT", "brief", "shown_in_stream", "without_withheld"]

WITHHELD_TEXT = "[withheld]"


def without_withheld(response: VerifyResponse, shown: Collection[str]) -> VerifyResponse:
    """``response`` quoting only the claims whose ids are in ``shown`` (the text that was
    sent); unchanged when every claim was."""
    quoted = response.coverage.uncovered_words
    if all(v.claim.id in shown for v in response.verdicts) and not quoted:
        return response
    verdicts = [v if v.claim.id in shown else _unquoted(v) for v in response.verdicts]
    coverage = response.coverage.model_copy(update={"uncovered_words": []})
    return response.model_copy(
        update={
            "verdicts": verdicts,
            "reasons": [brief(reason) for reason in response.reasons],
            "coverage": coverage,
        }
    )


def shown_in_stream(response: VerifyResponse, released: Collection[int]) -> set[str]:
    """The claims a stream sent: those of its released sentences, and the conclusion when
    every sentence decided was released (it restates them all)."""
    shown = {
        v.claim.id
        for v in response.verdicts
        if v.claim.sentence_index is not None and v.claim.sentence_index in released
    }
    sentence_claims = [v for v in response.verdicts if v.claim.origin is not ClaimOrigin.CONCLUSION]
    if all(v.claim.id in shown for v in sentence_claims):
        shown |= {v.claim.id for v in response.verdicts}
    return shown


def brief(reason: str | None) -> str | None:
    """A reason cut to its kind: what comes before its first ``": "`` (``c2 number_mismatch``,
    ``verifier error``), which names, never quotes."""
    if reason is None:
        return None
    return reason.split(": ", 1)[0]


def _unquoted(verdict: ClaimVerdict) -> ClaimVerdict:
    claim = verdict.claim.model_copy(update={"text": WITHHELD_TEXT})
    return verdict.model_copy(
        update={
            "claim": claim,
            "reason": "",
            "error": brief(verdict.error),
            "checks": [_check_unquoted(check) for check in verdict.checks],
        }
    )


def _check_unquoted(check: CheckOutcome) -> CheckOutcome:
    return check.model_copy(update={"detail": "", "missing": ()})
