"""One reply through buffered and streamed verification with the same scripted judge, and what
the stream released of the text the buffered path blocks.

The property the stream keeps: every reply the buffered pipeline blocks is stopped by the
stream before the offending text is released. The offending text is that of the claims whose
failure blocks (a contradiction, a failed exact check, ...: the policy's blocking labels); for
a failed main conclusion, the bare replies to the question that state it ("Yes."); when the
buffered path blocked on the answer as a whole (markup that hides text, citation stuffing), the
whole reply; over a limit, the text past it. "Stopped before it" means: the stream did not end
as
``passed``, ``repaired`` or ``partial``, and no sentence it released reaches past the start of
the first offending span. Besides, no text of any claim the buffered path failed, blocking or
not, may be released (:attr:`Parity.released_failing`).

Used by the parity test (``tests/stream/test_buffered_parity.py``) and its gate
(``python -m benchmarks.gates.stream_parity``), over the red-team corpus and the dev answers.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from judge.config import Settings
from judge.errors import InputError
from judge.judges.transport import default_http_client
from judge.pipeline.claims.sentences import split_answer
from judge.pipeline.entail.llm_judge import build_http_judge
from judge.pipeline.policy import BLOCKING_LABELS
from judge.pipeline.runner import verify
from judge.protocols import Judge
from judge.reading.words import is_bare_reply
from judge.schemas import Action, ClaimOrigin, Passage, VerifyRequest, VerifyResponse
from judge.stream import (
    Release,
    StreamedSentence,
    StreamEnd,
    StreamLimits,
    StreamResult,
    StreamVerification,
)
from judge.testing.rule_judge import RuleJudge

__all__ = [
    "CHUNKINGS",
    "JUDGES",
    "Chunking",
    "JudgeKind",
    "Parity",
    "buffered_verdict",
    "chunked",
    "rule_judge",
    "stream_parity",
]

JudgeKind = Literal["rule", "yes"]
JUDGES: tuple[JudgeKind, ...] = ("rule", "yes")
Chunking = Literal["tokens", "chars", "random"]
CHUNKINGS: tuple[Chunking, ...] = ("tokens", "chars", "random")


@dataclass
class Parity:
    """What the two paths made of one reply."""

    buffered: Action | None  # None: the buffered path refused the request as invalid
    stream_outcome: str
    stream_ended: StreamEnd | None
    offending: list[tuple[int, int]] = field(default_factory=list)
    failing: list[tuple[int, int]] = field(default_factory=list)
    released: list[tuple[int, int]] = field(default_factory=list)
    same_sentences: bool = True  # the stream cut the sentences the buffered split finds
    same_labels: bool = True  # and gave their claims the same labels (where it decided them)

    @property
    def blocked(self) -> bool:
        return self.buffered is Action.BLOCK

    @property
    def leaked(self) -> bool:
        """The buffered path blocks this reply and the stream released offending text, or
        text after it, or ended as if the reply were fine."""
        if not self.blocked:
            return False
        if self.stream_outcome in ("passed", "repaired", "partial"):
            return True
        first = min((start for start, _ in self.offending), default=0)
        return any(end > first for _, end in self.released)

    @property
    def released_failing(self) -> bool:
        """The stream released text of a claim the buffered path failed."""
        return any(
            start < failed_end and failed_start < end
            for start, end in self.released
            for failed_start, failed_end in self.failing
        )


def rule_judge(settings: Settings, kind: JudgeKind) -> Judge:
    """A fresh in-process scripted judge: the rule-based fake (``rule``, which obeys injected
    instructions as a weak model might) or its permissive variant (``yes``: every claim
    supported, so only the exact checks stand between a wrong value and the reader)."""
    transport = RuleJudge(permissive=kind == "yes", obeys_injections=True).transport
    client = default_http_client(settings, transport=transport)
    return build_http_judge(settings, http_client=client, cache=None)


def chunked(text: str, how: Chunking, seed: int = 0) -> list[str]:
    """``text`` as a generator might send it: model-sized tokens (each word with the blank
    before it), one character at a time, or pieces of 1 to 12 characters."""
    if how == "chars":
        return list(text)
    if how == "tokens":
        pieces: list[str] = []
        word = ""
        for char in text:
            if char.isspace() and word.strip():
                pieces.append(word)
                word = ""
            word += char
        return [*pieces, word] if word else pieces
    rng = random.Random(seed)
    out, start = [], 0
    while start < len(text):
        size = rng.randint(1, 12)
        out.append(text[start : start + size])
        start += size
    return out


async def buffered_verdict(
    evidence: Sequence[Passage],
    answer: str,
    question: str | None,
    settings: Settings,
    judge: Judge,
) -> VerifyResponse | None:
    """The buffered verification of ``answer``; None when it refuses the request."""
    try:
        request = VerifyRequest(evidence=list(evidence), answer=answer, question=question)
        return await verify(request, settings, judge=judge)
    except InputError:
        return None


async def stream_parity(
    evidence: Sequence[Passage],
    answer: str,
    question: str | None,
    settings: Settings,
    judge: Callable[[], Judge],
    pieces: Sequence[str],
    limits: StreamLimits | None = None,
    *,
    buffered: VerifyResponse | Literal["verify"] | None = "verify",
) -> Parity:
    """Verify ``answer`` buffered (unless its ``buffered`` verification is given) and streamed
    in ``pieces``, each with a fresh judge from ``judge``; what each made of it."""
    if buffered == "verify":
        buffered = await buffered_verdict(evidence, answer, question, settings, judge())
    assert buffered is None or isinstance(buffered, VerifyResponse)
    try:
        verification = StreamVerification(
            evidence, settings, question=question, judge=judge(), limits=limits
        )
    except InputError:
        return Parity(buffered.action if buffered else None, "rejected", None)
    events = [event async for event in verification.events(_source(pieces))]
    result = events[-1]
    assert isinstance(result, StreamResult)
    decided = [e for e in events[:-1] if isinstance(e, StreamedSentence)]
    parity = Parity(
        buffered.action if buffered else None,
        result.outcome,
        result.ended,
        released=[(e.span.start, e.span.end) for e in decided if e.release is Release.RELEASED],
    )
    if buffered is None:
        return parity
    parity.offending = _offending(buffered, answer, settings)
    parity.failing = _spans(buffered, set(buffered.failing_claims))
    if not buffered.limits_exceeded:  # over a limit the buffered path decides no claim
        parity.same_sentences, parity.same_labels = _agreement(buffered, decided)
    return parity


def _offending(response: VerifyResponse, answer: str, settings: Settings) -> list[tuple[int, int]]:
    if response.action is not Action.BLOCK:
        return []
    if response.limits_exceeded:
        return [(_past_limits(answer, settings), len(answer))]
    blocking = [v for v in response.verdicts if v.label in BLOCKING_LABELS]
    spans = _spans(response, {v.claim.id for v in blocking})
    if any(v.claim.origin is ClaimOrigin.CONCLUSION for v in blocking):
        spans += _bare_replies(answer) or [(0, len(answer))]
    return spans or [(0, len(answer))]  # blocked on the answer as a whole


def _bare_replies(answer: str) -> list[tuple[int, int]]:
    sentences, _ = split_answer(answer)
    return [(s.span.start, s.span.end) for s in sentences if is_bare_reply(s.text)]


def _past_limits(answer: str, settings: Settings) -> int:
    """Where an answer over a limit goes past it: its character limit, or the sentence of
    its first claim past the claim limit."""
    start = min(len(answer), settings.max_answer_chars)
    try:
        _, claims = split_answer(answer)
    except InputError:
        return start
    if len(claims) > settings.max_claims:
        span = claims[settings.max_claims].span
        if span is not None:
            start = min(start, span.start)
    return start


def _spans(response: VerifyResponse, ids: set[str]) -> list[tuple[int, int]]:
    return [
        (v.claim.span.start, v.claim.span.end)
        for v in response.verdicts
        if v.claim.id in ids and v.claim.span is not None
    ]


def _agreement(response: VerifyResponse, decided: Sequence[StreamedSentence]) -> tuple[bool, bool]:
    buffered = {
        (v.claim.span.start, v.claim.span.end): (v.claim.text, v.label)
        for v in response.verdicts
        if v.claim.span is not None
    }
    streamed = {
        (v.claim.span.start, v.claim.span.end): (v.claim.text, v.label)
        for event in decided
        for v in event.verdicts
        if v.claim.span is not None
    }
    same_sentences = all(
        buffered.get(span, ("",))[0] == text for span, (text, _) in streamed.items()
    )
    same_labels = all(buffered.get(span) == value for span, value in streamed.items())
    return same_sentences, same_labels


async def _source(pieces: Sequence[str]) -> AsyncIterator[str]:
    for piece in pieces:
        yield piece
