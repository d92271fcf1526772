"""The seams of the pipeline: what a judge, its optional abilities and a deterministic check
look like.

Runtime-checkable protocols: the real HTTP judge and the test fakes satisfy them without
registration, and the pipeline asks ``isinstance(judge, Decomposer)`` rather than probing for
attributes. A judge offers an ability by having the method.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from judge.schemas import CheckOutcome, Claim
from judge.schemas.judging import EntailmentResult, Premise


@runtime_checkable
class Judge(Protocol):
    """Decides whether a premise entails, contradicts or does not support a claim.

    Raises ``judge.errors.VerifierFault`` (never returns a default label) when it cannot decide.
    """

    @property
    def model_id(self) -> str: ...

    async def entail(
        self, claim: Claim, premise: Premise, question: str | None = None
    ) -> EntailmentResult: ...


@runtime_checkable
class ContradictionProbe(Protocol):
    """Asks whether the evidence makes a claim false, of a claim that a binary judge found
    unsupported, to keep contradictions apart from missing support."""

    async def probe_contradiction(
        self, claim: Claim, premise: Premise, question: str | None = None
    ) -> EntailmentResult: ...


@runtime_checkable
class Decomposer(Protocol):
    """Splits a sentence into atomic, decontextualised facts."""

    async def decompose(
        self, sentence: str, context: str, question: str | None = None
    ) -> list[str]: ...


@runtime_checkable
class ConclusionExtractor(Protocol):
    """States an answer's main conclusion as one claim."""

    async def main_conclusion(self, answer: str, question: str | None = None) -> str: ...


@runtime_checkable
class RequestScoped(Protocol):
    """A judge that gives each request its own view: a fresh prompt-fence nonce and the
    request's ledger hash in its cache keys."""

    def for_request(self, *, ledger_hash: str | None = None) -> Judge: ...


@runtime_checkable
class Pingable(Protocol):
    """A judge whose server can be asked whether it is up (readiness probes)."""

    async def ping(self) -> object: ...


@runtime_checkable
class Check(Protocol):
    """A deterministic check of a claim against the text of its cited evidence.

    Returns ``None`` when the claim holds nothing this check looks at.
    Pure: no I/O, no state between calls. A check that reads words may name the word lists it
    reads by (``lexicon``, names in judge/reading/lexicon): it then runs only on claims and
    evidence in a language that has them all, and is skipped, with the reason, elsewhere. A
    check without one reads digits, codes or characters and runs in every language.
    """

    name: str

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None: ...


@runtime_checkable
class PassageCheck(Protocol):
    """A check that reads the cited passages as passages: each (id, text) in citation order.
    A finding it reports names the claim's span (offsets into the claim) and the evidence's
    (a passage id and offsets into that passage's text). The pipeline calls
    ``check_passages``; ``__call__`` reads one text as one passage without an id.
    """

    name: str

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None: ...

    def check_passages(
        self, claim: str, passages: Sequence[tuple[str, str]]
    ) -> CheckOutcome | None: ...


class Usage(Protocol):
    @property
    def calls(self) -> int: ...


@runtime_checkable
class Metered(Protocol):
    """A judge that counts the model calls it really made (a cached answer costs none)."""

    @property
    def usage(self) -> Usage: ...
