"""The suite's scripted judge: :mod:`judge.testing`'s fake server, plus replies that fail.

The server, its default rule-based script and the reply builders live in :mod:`judge.testing`
(the benchmarks use them too); tests import them from here, beside the failures only the
fail-safe tests script: JSON cut off or left open, a read timeout, a refused connection.
"""

from __future__ import annotations

from typing import Any

import httpx

from judge.testing import (
    FAKE_BASE_URL,
    FAKE_MODEL,
    LABELS,
    YES_NO,
    FakeJudgeServer,
    Script,
    Spec,
    chat_completion,
    conclusion_response,
    confident,
    facts_response,
    fake_settings,
    fenced,
    http_error,
    label_alternatives,
    logprob_content,
    requested_variant,
    rule_based_judge,
    run_fake_openai_server,
    verdict_json,
    verdict_response,
)

__all__ = [
    "FAKE_BASE_URL",
    "FAKE_MODEL",
    "LABELS",
    "YES_NO",
    "FakeJudgeServer",
    "Script",
    "Spec",
    "chat_completion",
    "conclusion_response",
    "confident",
    "connection_refused",
    "facts_response",
    "fake_settings",
    "fenced",
    "http_error",
    "invalid_json_response",
    "label_alternatives",
    "logprob_content",
    "read_timeout",
    "requested_variant",
    "rule_based_judge",
    "run_fake_openai_server",
    "truncated_response",
    "verdict_json",
    "verdict_response",
]


def invalid_json_response() -> dict[str, Any]:
    return chat_completion('{"label": "supported", "reason": "the evidence says so"')


def truncated_response() -> dict[str, Any]:
    return chat_completion('{"label": "supported", "reason": "the evid', finish_reason="length")


def read_timeout() -> httpx.ReadTimeout:
    return httpx.ReadTimeout("fake read timeout")


def connection_refused() -> httpx.ConnectError:
    return httpx.ConnectError("[Errno 111] Connection refused")
