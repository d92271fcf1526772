"""JSON with each key of an object given once.

Python's parser keeps the last of two equal keys; other readers keep the first. A request with
two ``answer`` keys could then be verified as one answer and shown as the other, so every
document the verifier reads as input refuses duplicates.
"""

from __future__ import annotations

import json
from typing import Any


class DuplicateKeyError(Exception):
    """An object names a key twice. Not a ``ValueError``: callers tell it from bad syntax."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key

    def describe(self) -> str:
        # The key is untrusted text: quoted and escaped, on one line, cut short.
        return f"duplicate key {json.dumps(self.key[:80])}: an object may give each key once"


def loads(text: str | bytes) -> Any:
    """``json.loads``, raising :class:`DuplicateKeyError` for a key given twice in one object."""
    return json.loads(text, object_pairs_hook=_unique)


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise DuplicateKeyError(key)
        found[key] = value
    return found
