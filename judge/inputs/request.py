"""Parse requests from JSON, turning validation errors into one-line errors that name the field."""

from __future__ import annotations

import codecs
import json
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from judge.errors import InputError
from judge.inputs import strict_json
from judge.schemas import VerifyRequest

MAX_JSON_DEPTH = 32


def parse_request(data: Any) -> VerifyRequest:
    if isinstance(data, VerifyRequest):
        return data
    if not isinstance(data, dict):
        raise InputError("the request must be a JSON object", field="request")
    _check_values(data)
    try:
        return VerifyRequest.model_validate(data)
    except ValidationError as exc:
        raise input_error_from(exc) from None


def load_request(path: Path) -> VerifyRequest:
    return parse_request(read_json(path, field="request"))


def read_json(path: Path, *, field: str) -> Any:
    """A JSON file's content; any read, decode or parse failure is an InputError naming
    ``field`` and the file."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}", field=field) from None
    return parse_json(raw, field=field, source=str(path))


# Byte-order marks, longest first: a UTF-32 LE mark starts like UTF-16 LE's.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def decode_text(raw: bytes, *, field: str, source: str) -> str:
    """Text of a JSON document: UTF-8 with or without a byte-order mark, or UTF-16/32 with
    one. Anything else is refused, naming ``source``."""
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            body, label = raw[len(bom) :], f"{encoding} (with a byte-order mark)"
            break
    else:
        body, encoding, label = raw, "utf-8", "UTF-8"
    try:
        return body.decode(encoding)
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{source} is not {label} text: byte 0x{body[exc.start]:02x} at offset {exc.start}",
            field=field,
        ) from None


def parse_json(raw: bytes | str, *, field: str, source: str) -> Any:
    """A JSON document from bytes or text; every failure is an InputError naming ``field``."""
    text = raw if isinstance(raw, str) else decode_text(raw, field=field, source=source)
    try:
        return strict_json.loads(text)
    except strict_json.DuplicateKeyError as exc:
        raise InputError(f"{source} holds a {exc.describe()}", field=field) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"malformed JSON in {source} at line {exc.lineno} column {exc.colno}: {exc.msg}",
            field=field,
        ) from None
    except RecursionError:
        raise InputError(f"JSON in {source} nested too deeply", field=field) from None
    except ValueError as exc:
        # Python refuses integers of more than sys.get_int_max_str_digits() digits.
        raise InputError(f"{source} holds an unreadable value: {exc}", field=field) from None


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
        elif not str(part).isidentifier():
            # A key from the request is untrusted text: quoted and escaped, on one line.
            out += f"[{json.dumps(str(part))}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _check_values(value: Any, location: tuple[int | str, ...] = ()) -> None:
    """Refuse what no field may hold, naming the field: JSON nested deeper than
    :data:`MAX_JSON_DEPTH` (an exhaustion attack on validators and renderers) and text with
    lone surrogates (escapes like ``"\\ud800"`` that are not Unicode text; they cannot be
    encoded, hashed or logged)."""
    if len(location) > MAX_JSON_DEPTH:
        raise InputError(f"JSON nested deeper than {MAX_JSON_DEPTH} levels", field="request")
    if isinstance(value, str):
        bad = _SURROGATE.search(value)
        if bad is not None:
            raise InputError(
                f"lone surrogate U+{ord(bad.group()):04X} at character {bad.start()} "
                "is not Unicode text",
                field=_format_location(location) or "request",
            )
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_values(key, location)
            _check_values(item, (*location, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_values(item, (*location, index))


_SURROGATE = re.compile("[\ud800-\udfff]")


def exceeded_limits(
    req: VerifyRequest, *, max_answer_chars: int, max_claims: int
) -> tuple[str, ...]:
    """The size limits a request exceeds, each named with its figures. Not an input error: an
    over-long answer is blocked with the reason, never truncated and checked in part."""
    if req.answer is not None and len(req.answer) > max_answer_chars:
        return (f"answer: {len(req.answer)} characters exceed the limit of {max_answer_chars}",)
    if req.claims is not None and len(req.claims) > max_claims:
        return (f"claims: {len(req.claims)} claims exceed the limit of {max_claims}",)
    return ()
