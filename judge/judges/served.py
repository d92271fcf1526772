"""The models a judge server serves (``GET {root}/models``), asked over plain httpx.

The model id is part of every cache key, so a judge without ``JUDGE_MODEL`` asks the server
which model it serves even when the cache then answers every call. Asked here, that lookup
needs no openai client: a request the cache answers in full never loads it.
"""

from __future__ import annotations

from typing import Any

import httpx

from judge.errors import JudgeUnavailable


async def served_models(client: httpx.AsyncClient, root: str, api_key: str) -> list[str]:
    """The ids the server lists. ``JudgeUnavailable`` when it cannot be reached, answers an
    error or a list that does not parse."""
    try:
        response = await client.get(
            f"{root.rstrip('/')}/models", headers={"Authorization": f"Bearer {api_key}"}
        )
    except httpx.TimeoutException as exc:
        raise JudgeUnavailable(f"judge request timed out ({type(exc).__name__})") from exc
    except httpx.TransportError as exc:
        raise JudgeUnavailable(f"cannot connect to the judge: {exc}") from exc
    except Exception as exc:
        # A caller's client may raise its own errors (a fail-fast transport raises openai's).
        from judge.judges.faults import openai_fault

        fault = openai_fault(exc)
        if fault is None:
            raise
        raise fault from exc
    if response.is_error:
        raise JudgeUnavailable(
            f"judge answered HTTP {response.status_code} to the model list: {response.text[:200]!r}"
        )
    try:
        return _ids(response.json())
    except ValueError as exc:
        raise JudgeUnavailable(f"the judge's model list does not parse: {exc}") from exc


def _ids(payload: Any) -> list[str]:
    entries = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(entries, list):
        raise ValueError("no 'data' list")
    ids = [entry.get("id") if isinstance(entry, dict) else None for entry in entries]
    if not all(isinstance(model_id, str) and model_id for model_id in ids):
        raise ValueError("an entry without a string 'id'")
    return [str(model_id) for model_id in ids]
