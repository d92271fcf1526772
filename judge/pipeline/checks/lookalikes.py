"""The look-alike check: numbers and codes written with letters drawn like digits.

"З1 days" (Cyrillic Ze for 3), "б0" (Cyrillic be for 6), "2.О" (Cyrillic O) read as numbers to a
person, but the number and identifier checks see no number there at all, so nothing is
compared. A token that puts such a letter next to a digit, or is made of such letters alone,
cannot be checked exactly: a person must look at it.
"""

from __future__ import annotations

import re

from judge.pipeline.checks.outcome import missing
from judge.schemas import CheckOutcome, CheckStatus, Label

# Cyrillic and Greek letters drawn like 0, 3, 4, 6 (and like 1: Ukrainian I, Greek iota).
_FOREIGN = "ОоЗзбЧчІіΟοΙ"
# Latin letters drawn like 0 and 1 count only between digits ("4O7"): "CO2" and "O2" are words.
_LATIN_BETWEEN = re.compile(r"\d[OolI]\d")
_NEXT_TO_DIGIT = re.compile(rf"\d[.,]?[{_FOREIGN}]|[{_FOREIGN}][.,]?\d")
_ONLY_FOREIGN = re.compile(rf"[{_FOREIGN}]+")
_TOKEN = re.compile(r"[^\s,;:()\[\]]+")


def disguised(token: str) -> bool:
    core = token.strip(".!?'\"")
    return bool(
        _NEXT_TO_DIGIT.search(core) or _LATIN_BETWEEN.search(core) or _ONLY_FOREIGN.fullmatch(core)
    )


class LookalikeCheck:
    """Sends a claim to review when it writes a number or code with look-alike letters the
    evidence does not also use."""

    name: str = "lookalikes"

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None:
        found = [t for t in _TOKEN.findall(claim) if disguised(t) and t not in evidence]
        if not found:
            return None
        return missing(
            self.name,
            Label.NEEDS_REVIEW,
            "Numbers or codes written with look-alike letters",
            found,
            status=CheckStatus.NEEDS_REVIEW,
            how="letters drawn like digits hide the value from the exact checks",
        )
