"""The guard endpoint's request and response bodies, OpenAI's chat-completions format with the
``grounding`` extension field, and its OpenAI-style errors; shared by the buffered reply
(:mod:`judge.service.chat`) and the verified stream (:mod:`judge.service.chat_stream`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from judge.answer.types import Drafting
from judge.config import CitationPolicy
from judge.schemas import VerifyResponse

__all__ = [
    "AssistantMessage",
    "ChatCompletion",
    "ChatCompletionRequest",
    "ChatMessage",
    "Choice",
    "Grounding",
    "GroundingOptions",
    "OpenAIError",
    "OpenAIErrorBody",
    "Outcome",
    "StreamMode",
    "Usage",
    "openai_error",
]

# "partial" is a stream's only: verified sentences went out, the answer as a whole did not verify.
Outcome = Literal["passed", "repaired", "partial", "refused", "verifier_error"]
StreamMode = Literal["sentences", "buffered"]


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: str = Field(min_length=1)
    content: str | list[dict[str, Any]] | None = None


class GroundingOptions(BaseModel):
    """The extension field of a guarded request: the evidence the reply must be grounded in."""

    model_config = ConfigDict(extra="forbid")

    evidence: Annotated[
        list[Any],
        Field(min_length=1, description="Passages: strings (ids S1, S2, ...) or objects."),
        WithJsonSchema(
            {
                "type": "array",
                "minItems": 1,
                "items": {
                    "anyOf": [
                        {"type": "string"},
                        {"type": "object", "description": "A passage, as in VerifyRequest."},
                    ]
                },
            }
        ),
    ]
    citation_policy: CitationPolicy | None = Field(
        default=None, description="strict: uncited claims fail; search: they are aligned"
    )
    question: str | None = Field(default=None, description="Default: the last user message.")
    stream_mode: StreamMode = Field(
        default="sentences",
        description=(
            "With stream: true. sentences: each sentence is sent once verified; buffered: the "
            "whole reply is verified first (it can then be repaired or refused as a whole)."
        ),
    )
    include_withheld: bool = Field(
        default=False,
        description=(
            "Quote in the response's grounding field the text that was not sent (claims, "
            "reasons and check details of withheld, stopped or refused sentences), for a "
            "reviewer. Off: those are named by id and label only."
        ),
    )


class ChatCompletionRequest(BaseModel):
    """An OpenAI chat-completions request with the ``grounding`` extension field."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(min_length=1)
    messages: list[ChatMessage] = Field(min_length=1)
    grounding: GroundingOptions
    stream: bool = False
    n: Literal[1] = Field(default=1, description="One choice: the one that is verified.")
    max_tokens: int | None = Field(default=None, ge=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    top_p: float | None = Field(default=None, ge=0.0, le=1.0)
    stop: str | list[str] | None = None
    seed: int | None = None
    presence_penalty: float | None = Field(default=None, ge=-2.0, le=2.0)
    frequency_penalty: float | None = Field(default=None, ge=-2.0, le=2.0)


class AssistantMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str


class Choice(BaseModel):
    index: int = 0
    message: AssistantMessage
    finish_reason: Literal["stop"] = "stop"


class Usage(BaseModel):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class Grounding(BaseModel):
    """What the guard did with the reply, and the verification it decided on."""

    outcome: Outcome
    verification: VerifyResponse
    drafting: Drafting | None = Field(
        default=None,
        description="The citation grammar the reply was written under, or the note saying why "
        "it was written under the prompt alone.",
    )


class ChatCompletion(BaseModel):
    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[Choice]
    usage: Usage
    grounding: Grounding


class OpenAIError(BaseModel):
    message: str
    type: str
    param: str | None = None
    code: str | None = None


class OpenAIErrorBody(BaseModel):
    error: OpenAIError


def openai_error(status: int, message: str, kind: str, param: str | None = None) -> Response:
    """An error response in OpenAI's form (``{"error": {...}}``), which its SDKs raise."""
    body = OpenAIErrorBody(error=OpenAIError(message=message, type=kind, param=param))
    return JSONResponse(body.model_dump(), status_code=status)
