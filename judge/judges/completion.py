"""One structured completion through instructor: the verdict parsed, the usage counted.

Imported on the first call that goes to a server (see :mod:`judge.judges.transport`).
Structured output goes through ``instructor`` in ``JSON_SCHEMA`` mode, which sends the verdict
schema as ``response_format`` so the server constrains decoding to it; instructor re-asks
(``reasks`` times) only when the output does not validate: malformed JSON, a value outside the
schema, a quote not in the evidence, an unknown id.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

import instructor
import openai
from instructor.core.hooks import HookName, Hooks
from pydantic import BaseModel

from judge.judges.faults import openai_fault
from judge.prompts.rendering import RenderedPrompt

M = TypeVar("M", bound=BaseModel)

# instructor logs every failed attempt at ERROR, model output included; the faults raised here
# carry what matters. A NullHandler keeps Python's last-resort handler from printing them to
# stderr when the application has configured no logging, and still lets records propagate.
logging.getLogger("instructor").addHandler(logging.NullHandler())


@dataclass
class Completed(Generic[M]):
    parsed: M
    completion: Any
    calls: int
    prompt_tokens: int
    completion_tokens: int
    latency_s: float


@dataclass
class Attempts:
    """Calls sent for one completion, re-asks included; counted as they go, so a completion
    that fails still reports what it spent."""

    count: int = 0


def structured_client(client: openai.AsyncOpenAI) -> instructor.AsyncInstructor:
    return instructor.from_openai(client, mode=instructor.Mode.JSON_SCHEMA)


async def complete(
    client: instructor.AsyncInstructor,
    prompt: RenderedPrompt,
    response_model: type[M],
    model: str,
    decoding: dict[str, Any],
    *,
    reasks: int,
    attempts: Attempts,
) -> Completed[M]:
    """``prompt`` answered as ``response_model``, each call counted in ``attempts``. A failure
    is raised as the ``VerifierFault`` it stands for; anything else (a bug) as it is."""

    def on_attempt(*_args: Any, **_kwargs: Any) -> None:
        attempts.count += 1

    hooks = Hooks()
    hooks.on(HookName.COMPLETION_KWARGS, on_attempt)
    request: dict[str, Any] = {
        "model": model,
        "temperature": decoding["temperature"],
        "max_tokens": decoding["max_tokens"],
    }
    if decoding["logprobs"]:
        request["logprobs"] = True
        request["top_logprobs"] = decoding["top_logprobs"]
    started = time.perf_counter()
    try:
        parsed, completion = await client.create_with_completion(
            messages=cast(Any, prompt.messages()),
            response_model=response_model,
            max_retries=reasks,
            hooks=hooks,
            **request,
        )
    except Exception as exc:
        fault = openai_fault(exc, attempts=attempts.count)
        if fault is None:
            raise
        raise fault from exc
    latency = time.perf_counter() - started
    usage = getattr(completion, "usage", None)
    # instructor sums usage over re-asks into the final completion's usage.
    prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
    completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
    return Completed(parsed, completion, attempts.count, prompt_tokens, completion_tokens, latency)
