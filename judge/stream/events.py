"""What a verified stream yields: each sentence with its verdicts as it is decided, then the
answer-level result."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from judge.schemas import CharSpan, ClaimVerdict, VerifyResponse

__all__ = ["Release", "StreamEnd", "StreamOutcome", "StreamResult", "StreamedSentence"]

StreamOutcome = Literal["passed", "repaired", "partial", "refused", "verifier_error"]


class Release(StrEnum):
    RELEASED = "released"  # verified: its text goes out
    WITHHELD = "withheld"  # a failure a repair would cut: left out, the stream goes on
    STOPPED = "stopped"  # a failure that blocks: the stream ends here, this text never goes out


class StreamEnd(StrEnum):
    """How the stream ended."""

    COMPLETED = "completed"  # the generator finished and every sentence was decided
    STOPPED = "stopped"  # a sentence's failure blocks (contradiction, failed check, ...)
    INVALID = "invalid"  # the text cannot be read: a malformed citation, an uncuttable run
    LIMIT = "limit"  # over max_answer_chars or max_claims
    GENERATOR_FAULT = "generator_fault"  # the chunks stopped with an error, or stalled
    ABANDONED = "abandoned"  # its reader went away (a client gone or too slow)
    DEADLINE = "deadline"  # not finished within the stream's deadline
    SHUTDOWN = "shutdown"  # the service stopped it on its way down


class StreamedSentence(BaseModel):
    """One sentence, decided. Only a ``released`` sentence's text may be shown; ``delta`` is
    what it adds to the released text (the blank before it included)."""

    index: int = Field(description="position among the answer's sentences, from 0")
    text: str = Field(description="the sentence as written, citation markers included")
    span: CharSpan = Field(description="where it stands in the streamed answer")
    release: Release
    delta: str = Field(description="text added to the released answer; empty unless released")
    verdicts: list[ClaimVerdict]
    delay_s: float = Field(description="seconds from the sentence's completion to its decision")
    elapsed_s: float = Field(description="seconds from the stream's start to the decision")


class StreamResult(BaseModel):
    """The answer-level result of a stream: the verification of every sentence decided, how
    the stream ended and what its reader should be told after the released text."""

    response: VerifyResponse
    outcome: StreamOutcome
    ended: StreamEnd
    released_text: str
    notice: str | None = Field(
        default=None, description="what to show after the released text, when anything"
    )
    stop_reason: str | None = Field(default=None, description="why the stream ended early")
    released: list[int] = Field(default_factory=list, description="indexes of released sentences")
    withheld: list[int] = Field(default_factory=list)
    stopped: int | None = Field(default=None, description="the sentence that stopped the stream")
    not_verified: list[int] = Field(
        default_factory=list, description="sentences cut off by the stop, never decided"
    )
    received_chars: int = Field(description="characters of answer text received")
    first_release_s: float | None = Field(
        default=None, description="seconds from the start to the first released sentence"
    )

    @property
    def passed(self) -> bool:
        return self.outcome == "passed"
