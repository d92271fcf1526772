"""Optional dependencies and the extra that installs each: one table for every optional import.

A command that needs an extra imports it where it is used; when the import fails the command
line turns the ``ModuleNotFoundError`` into one line that names the install command.
"""

from __future__ import annotations

PACKAGE = "grounding-judge"

# Top-level module -> the extra of pyproject.toml that installs it.
EXTRA_OF_MODULE: dict[str, str] = {
    "fastapi": "serve",
    "uvicorn": "serve",
    "starlette": "serve",
    "prometheus_client": "serve",
    "matplotlib": "eval",
    "numpy": "eval",
    "xllamacpp": "local",
    "onnxruntime": "embed",
    "tokenizers": "embed",
    "playwright": "dev",
}


def install_command(extra: str) -> str:
    return f"pip install '{PACKAGE}[{extra}]'"


def missing_extra(exc: ModuleNotFoundError, feature: str) -> str | None:
    """``"judge serve needs the 'serve' extra: pip install ..."`` when ``exc`` is a missing
    optional dependency, else ``None`` (a missing module of our own is a bug, not an extra)."""
    top = (exc.name or "").split(".")[0]
    extra = EXTRA_OF_MODULE.get(top)
    if extra is None:
        return None
    return f"{feature} needs the '{extra}' extra: {install_command(extra)}"
