"""Refusing bad configuration with one line that names the setting and where it came from.

A value the settings model rejects (``--timeout -5``, ``JUDGE_TIMEOUT_S=abc``, a negative number
in a config file) and a ``JUDGE_*`` variable that names no setting are ``ConfigError`` (exit
code 3), like an unknown key in a config file: a misspelt variable must not be silently ignored
while the default it meant to change stays in force.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from judge.errors import ConfigError

ENV_PREFIX = "JUDGE_"
# Variables with the prefix that are not settings, each read by the module named.
READ_ELSEWHERE = frozenset(
    {
        "JUDGE_CONFIG",  # judge.config.load_settings: the config file
        "JUDGE_STATE_DIR",  # judge.state.default_state_dir (also the state_dir setting)
        "JUDGE_DEBUG",  # judge.cli.app: print the traceback of an internal error
        "JUDGE_SERVE_TOKEN",  # judge.cli.serve: the service's bearer token
        "JUDGE_VLLM_PYTHON",  # local_models.backends: the interpreter that imports vllm
        "JUDGE_VLLM_ARGS",  # local_models.backends: extra vllm server flags
    }
)

S = TypeVar("S", bound=BaseModel)


def env_name(field: str) -> str:
    return f"{ENV_PREFIX}{field.upper()}"


def refuse_unknown_environment(
    settings: type[BaseModel], environ: Mapping[str, str] | None = None
) -> None:
    """Refuse a ``JUDGE_*`` variable that is neither a setting nor read elsewhere."""
    environ = os.environ if environ is None else environ
    fields = set(settings.model_fields)
    known = {env_name(f) for f in fields} | READ_ELSEWHERE
    unknown = sorted(
        key for key in environ if key.upper().startswith(ENV_PREFIX) and key.upper() not in known
    )
    if not unknown:
        return
    hints = []
    for key in unknown:
        close = difflib.get_close_matches(key.upper(), sorted(known), n=1)
        hints.append(key + (f" (did you mean {close[0]}?)" if close else ""))
    raise ConfigError(f"unknown environment variable {', '.join(hints)}")


def environment_settings(settings: type[BaseModel]) -> dict[str, Any]:
    """The settings the ``JUDGE_*`` variables set, each already validated."""
    try:
        from_env = settings()
    except ValidationError as exc:
        raise ConfigError(
            _first_error(exc, lambda field: f"environment variable {env_name(field)}")
        ) from None
    return {name: getattr(from_env, name) for name in from_env.model_fields_set}


def validated(
    settings: type[S],
    values: Mapping[str, Any],
    *,
    sources: Mapping[str, str] | None = None,
) -> S:
    """``values`` validated as ``settings``; the first bad one is a ``ConfigError`` naming it
    (and, with ``sources``, where it came from)."""
    try:
        return settings.model_validate(dict(values))
    except ValidationError as exc:
        where = sources or {}
        raise ConfigError(
            _first_error(exc, lambda field: f"setting {field}" + _from(where.get(field)))
        ) from None


def _from(source: str | None) -> str:
    return f" (from {source})" if source else ""


def _first_error(exc: ValidationError, name: Callable[[str], str]) -> str:
    error = exc.errors(include_url=False)[0]
    field = ".".join(str(part) for part in error["loc"]) or "settings"
    value = error.get("input")
    shown = f" = {value!r}" if value is not None and not isinstance(value, dict) else ""
    message = str(error["msg"]).removeprefix("Value error, ")
    return f"invalid {name(field)}{shown[:80]}: {message}"


def normalise_base_urls(value: Any) -> str | None:
    """The endpoints as one comma-joined string, each checked to be an http(s) URL with a host.

    Raises ``ValueError`` (reported by the settings as naming ``base_url``) for a bad entry.
    """
    if value is None:
        return None
    if isinstance(value, str):
        parts = value.split(",")
    elif isinstance(value, list | tuple):
        parts = []
        for item in value:
            if not isinstance(item, str):
                raise ValueError(f"each base URL must be a string, not {type(item).__name__}")
            parts.extend(item.split(","))
    else:
        raise ValueError("give a URL, a comma-separated list of URLs, or a list of URLs")
    urls = [part.strip() for part in parts if part.strip()]
    if not urls:
        if isinstance(value, str):
            return None  # an empty JUDGE_BASE_URL means none: the embedded judge
        raise ValueError("the list of base URLs is empty")
    for url in urls:
        _check_url(url)
    duplicates = sorted({u for u in urls if urls.count(u) > 1})
    if duplicates:
        raise ValueError(f"base URL {duplicates[0]!r} is listed twice")
    return ",".join(urls)


def _check_url(url: str) -> None:
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise ValueError(f"{url!r} is not a URL: {exc}") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise ValueError(f"{url!r} is not an http(s) URL with a host")
