"""Parse requests from JSON, turning validation errors into one-line errors that name the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from judge.errors import InputError
from judge.schemas import VerifyRequest

MAX_JSON_DEPTH = 32


def parse_request(data: Any) -> VerifyRequest:
    if isinstance(data, VerifyRequest):
        return data
    if not isinstance(data, dict):
        raise InputError("the request must be a JSON object", field="request")
    _check_depth(data)
    try:
        return VerifyRequest.model_validate(data)
    except ValidationError as exc:
        raise input_error_from(exc) from None


def load_request(path: Path) -> VerifyRequest:
    return parse_request(read_json(path, field="request"))


def read_json(path: Path, *, field: str) -> Any:
    """A JSON file's content; any read or parse failure is an InputError naming ``field``."""
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}", field=field) from None
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", field=field
        ) from None
    except RecursionError:
        raise InputError("JSON nested too deeply", field=field) from None


def input_error_from(exc: ValidationError) -> InputError:
    first = exc.errors()[0]
    location = _format_location(first.get("loc", ()))
    message = str(first.get("msg", "invalid value")).removeprefix("Value error, ")
    return InputError(message, field=location or "request")


def _format_location(loc: tuple[int | str, ...] | Any) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _check_depth(value: Any, depth: int = 0) -> None:
    # Deeply nested JSON is an exhaustion attack on validators and renderers; refuse it early.
    if depth > MAX_JSON_DEPTH:
        raise InputError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels", field="request")
    if isinstance(value, dict):
        for item in value.values():
            _check_depth(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_depth(item, depth + 1)
