"""Every error the verifier raises, split by whose fault it is.

    JudgeError                      base class
    ├── InputError                  the caller's request is wrong (exit code 3)
    │   ├── LimitExceeded           the request is over a configured bound
    │   └── CalibrationInfeasible   no threshold meets the stated objective
    ├── ConfigError                 the configuration is wrong (exit code 3)
    ├── AuditError                  the audit log could not be opened, read or written
    │   └── DuplicateRecord         a record with this id is already logged
    └── VerifierFault               the verifier could not decide (exit code 4)
        ├── JudgeUnavailable        refused connection, timeout, 4xx/5xx, dead local server
        │   └── RequestDeadlineExceeded  the request's time budget ran out first
        ├── JudgeOutputInvalid      malformed, truncated or out-of-schema judge output
        ├── CacheFault              the verdict cache could not be read or written
        ├── LocalServerError        the embedded judge server failed to start or died
        └── GeneratorFault          the generator produced no usable draft

A ``VerifierFault`` never passes an answer: the pipeline turns it into ``verifier_error``
verdicts and a blocked answer.
"""

from __future__ import annotations


class JudgeError(Exception):
    """Base class of every error raised by this package."""


class InputError(JudgeError):
    """The request is malformed. ``field`` names the offending field."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field

    def __str__(self) -> str:
        base = super().__str__()
        return f"{self.field}: {base}" if self.field else base


class LimitExceeded(InputError):
    """The request is over a configured bound (answer length, claim count, passage size)."""


class ConfigError(JudgeError):
    """The configuration is invalid."""


class VerifierFault(JudgeError):
    """The verifier could not reach a decision. Always fails closed."""


class JudgeUnavailable(VerifierFault):
    """The judge endpoint refused, timed out, or answered with an HTTP error."""


class JudgeOutputInvalid(VerifierFault):
    """The judge's output was malformed, truncated, or outside the verdict schema."""


class CacheFault(VerifierFault):
    """The verdict cache could not be used."""


class LocalServerError(VerifierFault):
    """The embedded judge server could not be started, or died."""


class CalibrationInfeasible(InputError):
    """No threshold meets the stated objective on these predictions."""


class AuditError(JudgeError):
    """The audit log could not be opened, read or written."""


class DuplicateRecord(AuditError):
    """A record with this id is already logged (a fault of the caller, not of the log)."""


class RequestDeadlineExceeded(JudgeUnavailable):
    """The request's time budget ran out before the judge answered."""


class GeneratorFault(VerifierFault):
    """The generator produced no usable draft: unreachable, an HTTP error, empty or cut-off
    output. Fails closed like any verifier fault: the answer is blocked."""


class GeneratorStalled(GeneratorFault):
    """The generator sent no text within a stream's time bound (keep-alives and empty
    deltas are not text)."""


def fault_text(exc: BaseException) -> str:
    """How a fault reads in a verdict's reason: its class and message."""
    return f"{type(exc).__name__}: {exc}"
