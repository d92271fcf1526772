"""Reply bodies for a scripted judge server: what an OpenAI-compatible server answers.

Each builder returns a chat-completions response body (a ``dict``, answered with HTTP 200) or an
``httpx.Response`` (an HTTP error), ready to be one step of a
:class:`judge.testing.FakeJudgeServer` script. :func:`verdict_response` writes a verdict in any
of the judge's verdict variants with log-probabilities on its label token, which is where the
verifier reads its score; ``scored=False`` leaves them out, as a server without logprobs would.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from judge.pipeline.entail.verdict import label_value_offset

FAKE_MODEL = "fake-judge"
LABELS = ("supported", "unsupported", "contradicted")
# The yes/no variant's answers: it has no contradiction answer, so "contradicted" reads "no".
YES_NO = {"supported": "yes", "unsupported": "no", "contradicted": "no"}

_ids = itertools.count(1)


def chat_completion(
    content: str,
    *,
    finish_reason: str = "stop",
    logprobs: list[dict[str, Any]] | None = None,
    model: str = FAKE_MODEL,
    prompt_tokens: int = 120,
    completion_tokens: int = 30,
) -> dict[str, Any]:
    """An OpenAI chat-completions response body whose one choice says ``content``."""
    return {
        "id": f"chatcmpl-fake-{next(_ids)}",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish_reason,
                "logprobs": {"content": logprobs} if logprobs is not None else None,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def verdict_json(
    label: str,
    reason: str = "checked against the evidence",
    quote: str = "",
    ids: Sequence[str] = (),
    *,
    variant: str = "label_first",
) -> str:
    """A verdict's JSON text in the field order of ``variant`` (``label_first``,
    ``quote_first``, ``label_only``, ``yes_no``, ``contradiction``)."""
    fields: dict[str, Any] = {
        "label": label,
        "reason": reason,
        "evidence_quote": quote,
        "evidence_ids": list(ids),
    }
    if variant == "yes_no":
        return json.dumps({"answer": YES_NO[label]})
    if variant == "contradiction":
        return json.dumps({"answer": "yes" if label == "contradicted" else "no"})
    order: tuple[str, ...] = ("label", "reason", "evidence_quote", "evidence_ids")
    if variant == "quote_first":
        order = ("evidence_quote", "evidence_ids", "label", "reason")
    elif variant == "label_only":
        order = ("label",)
    return json.dumps({name: fields[name] for name in order}, ensure_ascii=False)


def _entry(token: str, logprob: float, top: Sequence[tuple[str, float]] = ()) -> dict[str, Any]:
    return {
        "token": token,
        "logprob": logprob,
        "bytes": list(token.encode("utf-8")),
        "top_logprobs": [
            {"token": t, "logprob": lp, "bytes": list(t.encode("utf-8"))} for t, lp in top
        ]
        or [{"token": token, "logprob": logprob, "bytes": list(token.encode("utf-8"))}],
    }


def logprob_content(
    content: str,
    alternatives: Mapping[str, float],
    *,
    chosen: str,
    lead: str = "",
    key: str = "label",
) -> list[dict[str, Any]]:
    """Logprob entries for ``content`` whose label-value token is ``lead + chosen``.

    ``alternatives`` maps each top token at that position to its probability (tokens include
    the ``lead``, as servers report them); every other token gets probability 1.
    """
    start = label_value_offset(content, key)
    if start is None or not content.startswith(chosen, start):
        raise ValueError("content has no label value starting with the chosen token")
    head, tail = content[: start - len(lead)], content[start + len(chosen) :]
    if not content[:start].endswith(lead):
        raise ValueError("lead does not precede the label value")
    top = sorted(((t, math.log(p)) for t, p in alternatives.items()), key=lambda x: -x[1])
    own = dict(top).get(lead + chosen, math.log(0.5))
    return (
        [_entry(piece, 0.0) for piece in _chunks(head)]
        + [_entry(lead + chosen, own, top)]
        + [_entry(piece, 0.0) for piece in _chunks(tail)]
    )


def _chunks(text: str) -> list[str]:
    return [piece for piece in re.findall(r"\s?[A-Za-z_]+|\s?\d+|\s?[^\sA-Za-z_\d]+|\s+", text)]


def label_alternatives(scores: Mapping[str, float]) -> dict[str, float]:
    """Whole-label tokens with the given probabilities."""
    return {label: p for label, p in scores.items() if p > 0}


def confident(label: str, p: float = 0.9) -> dict[str, float]:
    """Scores that give ``label`` probability ``p`` and share the rest."""
    return {name: (p if name == label else (1 - p) / 2) for name in LABELS}


def verdict_response(
    label: str = "supported",
    reason: str = "checked against the evidence",
    quote: str = "",
    ids: Sequence[str] = (),
    *,
    variant: str = "label_first",
    scores: Mapping[str, float] | None = None,
    finish_reason: str = "stop",
    scored: bool = True,
) -> dict[str, Any]:
    """A verdict answer with logprobs for the label token: ``scores``, or by default 0.9 for
    ``label``. ``scored=False`` sends no logprobs (a verdict whose score cannot be read)."""
    content = verdict_json(label, reason, quote, ids, variant=variant)
    if scores is None and scored:
        scores = confident(label)
    logprobs = None
    if scores is not None and variant == "yes_no":
        answers: dict[str, float] = {}
        for name, p in label_alternatives(scores).items():
            answers[YES_NO[name]] = answers.get(YES_NO[name], 0.0) + p
        logprobs = logprob_content(content, answers, chosen=YES_NO[label], key="answer")
    elif scores is not None and variant == "contradiction":
        p_yes = scores.get("contradicted", 0.0)
        chosen = "yes" if label == "contradicted" else "no"
        alternatives = {"yes": p_yes, "no": 1.0 - p_yes}
        logprobs = logprob_content(content, alternatives, chosen=chosen, key="answer")
    elif scores is not None:
        logprobs = logprob_content(content, label_alternatives(scores), chosen=label)
    return chat_completion(content, logprobs=logprobs, finish_reason=finish_reason)


def facts_response(facts: Sequence[str]) -> dict[str, Any]:
    """The answer to a decomposition request: the claim's atomic facts."""
    return chat_completion(json.dumps({"facts": list(facts)}))


def conclusion_response(conclusion: str) -> dict[str, Any]:
    """The answer to a main-conclusion request."""
    return chat_completion(json.dumps({"conclusion": conclusion}))


def http_error(status: int, message: str = "fake server error") -> httpx.Response:
    """An HTTP error with an OpenAI-style error body."""
    # retry-after-ms keeps the openai client's retry sleep at a millisecond in tests.
    return httpx.Response(
        status,
        json={"error": {"message": message, "type": "server_error", "code": status}},
        headers={"retry-after-ms": "1"},
    )
