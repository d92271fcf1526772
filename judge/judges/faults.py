"""What an exception from the openai/instructor stack stands for: a ``VerifierFault``.

``JudgeUnavailable`` for the transport and HTTP errors, ``JudgeOutputInvalid`` for truncated or
invalid output once the re-asks are spent, ``None`` for anything else (a bug, raised as it is).
Imported where such an exception is caught, so openai loads only after a call was sent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import openai
from instructor.core.exceptions import IncompleteOutputException, InstructorError
from pydantic import ValidationError

from judge.errors import JudgeOutputInvalid, JudgeUnavailable, VerifierFault
from judge.judges.transport import TransportFailed


def openai_fault(exc: BaseException, *, attempts: int | None = None) -> VerifierFault | None:
    """The VerifierFault an exception from the openai/instructor stack stands for, if any."""
    for current in _chain(exc):
        if isinstance(current, VerifierFault):
            return current
        if isinstance(current, TransportFailed):
            return JudgeUnavailable(str(current))
        if isinstance(current, openai.APITimeoutError):
            return JudgeUnavailable("judge request timed out")
        if isinstance(current, openai.APIConnectionError):
            return JudgeUnavailable(f"cannot reach the judge: {current}")
        if isinstance(current, openai.APIStatusError):
            return JudgeUnavailable(
                f"judge answered HTTP {current.status_code}: {_status_detail(current)}"
            )
        if isinstance(current, IncompleteOutputException):
            return JudgeOutputInvalid("judge output was truncated (finish_reason=length)")
    tried = f" after {attempts} attempt(s)" if attempts else ""
    for current in _chain(exc):
        if isinstance(current, ValidationError | json.JSONDecodeError):
            return JudgeOutputInvalid(f"judge output invalid{tried}: {_output_summary(current)}")
    for current in _chain(exc):
        if isinstance(current, InstructorError):
            return JudgeOutputInvalid(f"judge output invalid{tried}: {_output_summary(current)}")
    return None


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _output_summary(exc: BaseException) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'output'}: {err['msg']}"
            for err in exc.errors(include_url=False, include_input=False)[:5]
        )
    attempts = getattr(exc, "failed_attempts", None)
    if isinstance(exc, InstructorError) and attempts:
        return _output_summary(attempts[-1].exception)
    first_line = (str(exc).strip().splitlines() or [""])[0]
    return f"{type(exc).__name__}: {first_line[:300]}"


def _status_detail(error: openai.APIStatusError) -> str:
    body = error.body
    if isinstance(body, dict):
        message = body.get("message") or body.get("error") or body
        return str(message)[:200]
    return str(body or error.message)[:200]
