"""The answer screens: what the answer-level rules read besides the claims' verdicts, computed
once per request and handed to the policy (:mod:`judge.pipeline.policy`), which reads no text.

* citation stuffing: the factual claims' citations blanket the ledger (:mod:`.stuffing`);
* markup that hides or strikes out text from a reader of the rendered answer
  (:mod:`judge.reading.markup`): what is read is not what was checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from judge.config import Settings
from judge.pipeline.claims.extract import Extraction
from judge.pipeline.claims.sentences import coverage
from judge.pipeline.screens.stuffing import detect_citation_stuffing
from judge.reading.answer import is_factual
from judge.reading.markup import HiddenMarkup, hidden_markup
from judge.schemas import Claim, CoverageReport


@dataclass(frozen=True)
class AnswerScreens:
    citation_stuffing: bool = False
    hidden_markup: tuple[HiddenMarkup, ...] = ()


def answer_rules(
    extraction: Extraction, ledger_ids: Sequence[str], settings: Settings
) -> tuple[CoverageReport, AnswerScreens]:
    """What the answer-level rules read besides the verdicts, once per request: the coverage
    of the answer's content by its claims, and the answer screens."""
    reading, claims = extraction.reading, extraction.claims
    answer = reading.text if reading is not None else None
    screens = screen_answer(answer, claims, ledger_ids, settings)
    report = coverage(reading, claims) if reading is not None and reading.text else CoverageReport()
    return report, screens


def screen_answer(
    answer: str | None, claims: Sequence[Claim], ledger_ids: Sequence[str], settings: Settings
) -> AnswerScreens:
    """The screens of one answer (its text, or None for structured claims) over its claims."""
    stuffing = settings.detect_stuffing and detect_citation_stuffing(
        [claim.citations for claim in claims if is_factual(claim.text)],
        ledger_ids,
        min_passages=settings.stuffing_min_passages,
    )
    return AnswerScreens(stuffing, hidden_markup(answer) if answer else ())
