"""The look-alike check: what the normalisation had to undo in a claim is sent to review.

:mod:`judge.reading.normalise` reads a digit drawn as a letter ("Ƽ0%", "З1 days", "4O7") as the
digit, so the number and identifier checks compare the value a reader sees; it drops invisible
and bidirectional controls, so they compare the text that is displayed. A claim that needed
either cannot be trusted to say what it shows: a person must look at it, even when the value
it reads as is right. Disguises the cited evidence itself uses are not the claim's doing.
"""

from __future__ import annotations

import re

from judge.pipeline.checks.outcome import missing
from judge.reading import read
from judge.reading.normalise import DIGIT_LOOKALIKES
from judge.schemas import CheckOutcome, CheckStatus, Label

_TOKEN = re.compile(r"[^\s,;:()\[\]]+")


def _foreign_only(token: str) -> bool:
    # A token made only of non-Latin letters drawn like digits ("ЗО") hides a number too.
    core = token.strip(".!?'\"%")
    return bool(core) and all(not c.isascii() and c in DIGIT_LOOKALIKES for c in core)


class LookalikeCheck:
    """Sends a claim to review when it writes a number or code with look-alike characters, or
    holds bidirectional controls or invisible characters inside a word or number, that the
    evidence does not also hold."""

    name: str = "lookalikes"
    lexicon: tuple[str, ...] = ()  # digits, codes and characters: every language

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None:
        said = read(claim).normalised
        found = [f"{written} (read as {as_read})" for written, as_read in said.disguised]
        found += [t for t in _TOKEN.findall(claim) if _foreign_only(t)]
        found = [f for f in found if f.partition(" (read as")[0] not in evidence]
        seen = read(evidence).normalised
        if said.bidi and not seen.bidi:
            found.append("bidirectional controls: " + ", ".join(said.hidden))
        elif said.hidden_inside and not seen.hidden_inside:
            found.append("invisible characters inside a word or number: " + ", ".join(said.hidden))
        if not found:
            return None
        return missing(
            self.name,
            Label.NEEDS_REVIEW,
            "Look-alike or hidden characters",
            found,
            status=CheckStatus.NEEDS_REVIEW,
            how="they make the text shown differ from the text checked",
            finding=None,
        )
