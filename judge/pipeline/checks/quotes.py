"""The quote check: text the claim puts in double quotes must be in the evidence verbatim.

Verbatim means the same words in the same order. Case is ignored (titles are re-cased, dialogue
data is lower-cased), and so are whitespace, punctuation and the style of quote marks,
apostrophes and dashes: a comma moved inside the closing mark does not change a quotation. An
ellipsis or a bracketed insertion splits a quote into parts that must appear in order.

Not checked: quotes of one or two words (scare quotes), and quoted names in Title Case ("The
A.V. Club", "Invasion of Privacy"), which name a work rather than quote what someone said.
"""

from __future__ import annotations

import re

from judge.pipeline.checks.outcome import missing, passed
from judge.pipeline.checks.text import fold, normalise
from judge.schemas import CheckOutcome, Label

MIN_WORDS = 3
# Straight quotes pair with each other; curly, guillemet and low-high quotes with their partner.
_QUOTED = re.compile(
    r'"(?P<straight>[^"\n]{1,600})"|“(?P<curly>[^”“\n]{1,600})”|„(?P<low>[^“”„\n]{1,600})[“”]'
    r"|«(?P<angle>[^»\n]{1,600})»|»(?P<angle_rev>[^«\n]{1,600})«"
)
_ELISION = re.compile(r"\.\.\.|…|\[[^\]]*\]|\(\.\.\.\)")
_QUOTE_MARKS = re.compile(r"[\"“”„«»]")
_WORD = re.compile(r"\w+(?:'\w+)*")


def quoted_spans(claim: str) -> list[str]:
    """The quoted passages of ``claim`` long enough to check, as written."""
    claim = normalise(claim)
    if claim.count('"') % 2:
        # An unpaired straight quote (an inch mark, a dropped closing quote) would pair the
        # wrong stretches of text; only the typographic quotes are read then.
        claim = claim.replace('"', "")
    spans = []
    for match in _QUOTED.finditer(claim):
        text = next(group for group in match.groups() if group is not None)
        if len(_WORD.findall(text)) >= MIN_WORDS and not is_title(text):
            spans.append(text.strip())
    return spans


def is_title(quote: str) -> bool:
    """Whether a quote reads as a name ("Invasion of Privacy", "The A.V. Club"): every longer
    word capitalised. Quoted names are titles of works, not quotations of what someone said."""
    long_words = [w for w in _WORD.findall(quote) if len(w) >= 4 and w.isalpha()]
    return bool(long_words) and all(w[0].isupper() for w in long_words)


def _words(text: str) -> str:
    """Lower-cased words and numbers of ``text``, space-separated with a space at each end."""
    return " " + " ".join(_WORD.findall(_QUOTE_MARKS.sub(" ", fold(text)))) + " "


def _holds(quote: str, evidence_words: str) -> bool:
    position = 0
    for part in _ELISION.split(quote):
        words = _words(part)
        if not words.strip():
            continue
        found = evidence_words.find(words, position)
        if found < 0:
            return False
        position = found + len(words) - 1
    return True


class QuoteCheck:
    """Fails a claim quoting words that the evidence does not contain."""

    name: str = "quotes"

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None:
        quotes = quoted_spans(claim)
        if not quotes:
            return None
        text = _words(evidence)
        absent = [q for q in quotes if not _holds(q, text)]
        if absent:
            return missing(
                self.name,
                Label.QUOTE_MISMATCH,
                "Quoted text",
                absent,
                how="compared word for word, ignoring case, punctuation and quote style",
            )
        return passed(self.name, "Every quotation of the claim was")
