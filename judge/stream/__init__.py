"""Verification of an answer as it is written: complete sentences are cut from the growing
text, verified as soon as each is complete and released in order, each only after its verdict
(:mod:`judge.stream.engine`)."""

from judge.stream.engine import StreamLimits, StreamVerification
from judge.stream.events import Release, StreamedSentence, StreamEnd, StreamOutcome, StreamResult

__all__ = [
    "Release",
    "StreamEnd",
    "StreamLimits",
    "StreamOutcome",
    "StreamResult",
    "StreamVerification",
    "StreamedSentence",
]
