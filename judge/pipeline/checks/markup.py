"""The markup check: a claim written with markup that a renderer hides or strikes out is sent
to review. "Shipping fees are <del>not</del> refunded" is checked with its "not" and read
without it; the answer-level rule in :mod:`judge.pipeline.policy` also blocks such markup
outside any claim."""

from __future__ import annotations

from judge.reading.markup import hidden_markup
from judge.schemas import CheckOutcome, CheckStatus, Label


class MarkupCheck:
    """Sends a claim to review when it holds markup that hides or strikes out text."""

    name: str = "markup"
    lexicon: tuple[str, ...] = ()  # digits, codes and characters: every language

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None:
        found = hidden_markup(claim)
        if not found:
            return None
        return CheckOutcome(
            check=self.name,
            status=CheckStatus.NEEDS_REVIEW,
            label=Label.NEEDS_REVIEW,
            detail="Markup that hides or strikes out text: "
            + ", ".join(item.describe() for item in found[:4])
            + " (a reader of the rendered answer does not see what was checked)",
            missing=tuple(dict.fromkeys(item.text for item in found)),
        )
