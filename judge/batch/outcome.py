"""Verify one batch item into its output row; whatever goes wrong becomes an error row.

A row is what one output line holds: ``id``, ``source`` (file:line), ``status``, ``action``,
``verdicts``, ``errors``, judge calls, tokens and seconds. ``status`` is ``ok`` for a decided
answer, ``verifier_error`` when the verifier could not decide (the answer is blocked), and
``invalid`` or ``malformed`` for a record that never reached it. Only ``ok`` rows can pass.
"""

from __future__ import annotations

import time
from typing import Any

from judge.batch.records import BatchItem
from judge.config import Settings
from judge.errors import InputError
from judge.pipeline.runner import verify
from judge.protocols import Judge
from judge.schemas import Action, Label, VerifyResponse

OK = "ok"
VERIFIER_ERROR = "verifier_error"
ERROR_STATUSES = (VERIFIER_ERROR, "invalid", "malformed")

Row = dict[str, Any]


def is_error(row: Row) -> bool:
    return row.get("status") != OK


def row_key(row: Row) -> str | None:
    """The key of the record a row answers (its id, or its place when it had none)."""
    key = row.get("id") if row.get("id") is not None else row.get("source")
    return str(key) if key is not None else None


async def verify_item(
    item: BatchItem, settings: Settings, judge: Judge | None, *, use_judge: bool = True
) -> Row:
    if item.request is None:
        return error_row(item, item.status, item.error or "unreadable record")
    started = time.perf_counter()
    try:
        response = await verify(item.request, settings, judge=judge if use_judge else None)
    except InputError as exc:
        return error_row(item, "invalid", str(exc))
    except Exception as exc:
        # A fault outside any verdict (cache, thresholds, a bug): never a pass.
        return error_row(item, VERIFIER_ERROR, f"{type(exc).__name__}: {exc}", started=started)
    return response_row(item, response)


def response_row(item: BatchItem, response: VerifyResponse) -> Row:
    errors = list(dict.fromkeys(v.error or v.reason for v in response.verdicts if v.error))
    if response.limits_exceeded:
        status, errors = "invalid", list(response.limits_exceeded)
    elif any(v.label is Label.VERIFIER_ERROR for v in response.verdicts):
        status = VERIFIER_ERROR
    else:
        status = OK
    traces = [v.judge for v in response.verdicts if v.judge is not None]
    return {
        "id": item.id,
        "source": item.source,
        "status": status,
        # An undecided answer is blocked, whatever the policy made of the rest.
        "action": response.action.value if status == OK else Action.BLOCK.value,
        "verdicts": [v.model_dump(mode="json") for v in response.verdicts],
        "errors": errors,
        "judge_calls": response.judge_calls,
        "prompt_tokens": sum(t.prompt_tokens for t in traces),
        "completion_tokens": sum(t.completion_tokens for t in traces),
        "seconds": response.seconds,
        "request_id": response.request_id,
    }


def error_row(item: BatchItem, status: str, error: str, *, started: float | None = None) -> Row:
    seconds = round(time.perf_counter() - started, 4) if started is not None else 0.0
    return {
        "id": item.id,
        "source": item.source,
        "status": status,
        "action": Action.BLOCK.value,
        "verdicts": [],
        "errors": [error],
        "judge_calls": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "seconds": seconds,
        "request_id": None,
    }
