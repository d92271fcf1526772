"""Text normalisation shared by the exact checks: :mod:`judge.text.normalise`, and a folded
form for matching words and phrases.
"""

from __future__ import annotations

from judge.text.normalise import normalise

__all__ = ["fold", "normalise"]


def fold(text: str) -> str:
    """Normalised and lower-cased: for matching words and phrases regardless of case."""
    return normalise(text).casefold()
