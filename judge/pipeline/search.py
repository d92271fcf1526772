"""Where an uncited claim finds its passages under the search citation policy, and which
further passages the exact checks read for it. Built once per request over its ledger; nothing
is ranked or windowed until an uncited claim asks (a cited answer never does)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

from judge.config import Settings
from judge.pipeline.entail.claim import fits_one_window
from judge.pipeline.entail.select import PassageCover, rank_passages
from judge.schemas import EvidenceLedger


class PassageSearch:
    """The passage search of one request."""

    def __init__(self, ledger: EvidenceLedger, settings: Settings) -> None:
        self._ledger = ledger
        self._settings = settings

    def rank(self, text: str, top_k: int) -> list[tuple[str, float]]:
        """The ``top_k`` passages most similar to ``text``. A claim that shares no word with
        any passage (an abstractive summary sentence) gets the whole evidence when it fits one
        window, for the judge to decide; beyond one window it stays uncited.

        With ``search_whole_evidence`` every claim gets the whole evidence when it fits one
        window, in ledger order, so a claim drawing on several passages sees them all and every
        claim of the answer shares one evidence prefix. That is off by default: on the
        development answers it did not beat the most similar two passages and made longer
        prompts (benchmarks/history/accuracy-rounds-2026-11-29-to-12-03.md)."""
        if self._settings.search_whole_evidence and self._fits_one_window:
            return self._everything
        found = rank_passages(text, self._ledger.passages, top_k)
        return found or (self._everything if self._fits_one_window else [])

    def widen(self, text: str, chosen: Sequence[str]) -> list[str]:
        """The passages the exact checks read besides those search chose (``search_cover_k``):
        those holding the claim words the chosen ones lack. Only the checks read them: a hard
        check must not fail a detail the evidence holds elsewhere, while the small judge, shown
        more text, supports more of what it should not
        (benchmarks/history/accuracy-rounds-2026-11-29-to-12-03.md)."""
        extra = self._settings.search_cover_k
        return self._cover.covering(text, chosen, extra) if extra > 0 else []

    @property
    def _everything(self) -> list[tuple[str, float]]:
        return [(pid, 1.0) for pid in self._ledger.ids]

    @cached_property
    def _fits_one_window(self) -> bool:
        # The whole ledger is windowed once, and only if a claim needs it.
        return fits_one_window(self._ledger, self._settings)

    @cached_property
    def _cover(self) -> PassageCover:
        return PassageCover(self._ledger.passages)
