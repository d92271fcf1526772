"""The language of each claim and passage, and the gate on the languages the judge was
measured on.

A claim too short to tell its language by ("MwSt.", "1.299 €") takes the answer's. A claim
that passes the exact checks in a language outside ``judge_languages`` is not judged as if its
language had been measured: it comes out ``unverified``, which blocks, unless the settings
let the judge read it (``other_languages = "judge"``), and then the response says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from judge.config import OtherLanguages, Settings
from judge.reading import read
from judge.reading.languages import UNDETERMINED, detect
from judge.schemas import CheckOutcome, Claim, ClaimVerdict, EvidenceLedger, Label

__all__ = [
    "claim_language",
    "language_gate",
    "passage_languages",
    "text_language",
    "unmeasured_warning",
    "with_languages",
]


def text_language(text: str | None) -> str:
    """The language of ``text`` (ISO 639-1), or ``und`` when it cannot be told."""
    return detect(text) if text else UNDETERMINED


def claim_language(claim: str, answer_language: str) -> str:
    """A claim's language, as the exact checks read it; the answer's where the claim is too
    short to tell."""
    found = read(claim).language
    return answer_language if found == UNDETERMINED else found


def passage_languages(ledger: EvidenceLedger) -> dict[str, str]:
    return {passage.id: text_language(passage.text) for passage in ledger.passages}


def measured(language: str, settings: Settings) -> bool:
    """Whether the judge was measured on ``language``; a text with no language to tell (a
    bare number) has nothing a language could misread."""
    return language == UNDETERMINED or language in settings.judge_languages


def language_gate(
    claim: Claim, language: str, outcomes: list[CheckOutcome], settings: Settings
) -> ClaimVerdict | None:
    """The verdict of a claim the judge may not read, or ``None`` when it goes to the judge."""
    if measured(language, settings) or settings.other_languages is OtherLanguages.JUDGE:
        return None
    return ClaimVerdict(
        claim=claim,
        label=Label.UNVERIFIED,
        reason=(
            f"passed every exact check; written in '{language}', which the judge was not "
            f"measured on (judge_languages: {', '.join(settings.judge_languages)})"
        ),
        checks=outcomes,
        language=language,
    )


def with_languages(verdicts: Iterable[ClaimVerdict], answer_language: str) -> list[ClaimVerdict]:
    """The verdicts with each claim's language recorded (``answer_language`` where a claim is
    too short to tell)."""
    return [
        verdict
        if verdict.language is not None
        else verdict.model_copy(
            update={"language": claim_language(verdict.claim.text, answer_language)}
        )
        for verdict in verdicts
    ]


def unmeasured_warning(verdicts: Sequence[ClaimVerdict], settings: Settings) -> list[str]:
    """A warning naming the languages claims were judged in that the judge was not measured
    on (with ``other_languages = "judge"``)."""
    languages = sorted(
        {
            verdict.language
            for verdict in verdicts
            if verdict.judge is not None
            and verdict.language is not None
            and not measured(verdict.language, settings)
        }
    )
    if not languages:
        return []
    return [
        f"claims in {', '.join(languages)} were judged by a judge measured only on "
        f"{', '.join(settings.judge_languages)}: their verdicts are unmeasured"
    ]
