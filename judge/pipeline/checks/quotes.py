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
from judge.reading import Reading, read
from judge.reading.words import words
from judge.schemas import CheckOutcome, Label

MIN_WORDS = 3
# Straight quotes pair with each other; curly, guillemet and low-high quotes with their partner.
_QUOTED = re.compile(
    r'"(?P<straight>[^"\n]{1,600})"|“(?P<curly>[^”“\n]{1,600})”|„(?P<low>[^“”„\n]{1,600})[“”]'
    r"|«(?P<angle>[^»\n]{1,600})»|»(?P<angle_rev>[^«\n]{1,600})«"
)
_ELISION = re.compile(r"\.\.\.|…|\[[^\]]*\]|\(\.\.\.\)")
_QUOTE_MARKS = re.compile(r"[\"“”„«»]")
# An editor's letter in brackets ("[I]f they're there") is the letter; a quote mark written
# twice (as spreadsheets escape one) is one.
_BRACKETED_LETTER = re.compile(r"\[(\w)\]")
_DOUBLED_QUOTE = re.compile(r'""')
# Contractions read in full, on both sides: a quotation is not misquoted by "they're" for
# "they are". "'s" is left alone: "is", "has" or a possessive.
_CONTRACTIONS = (
    (re.compile(r"\bcan't\b"), "can not"),
    (re.compile(r"\bwon't\b"), "will not"),
    (re.compile(r"n't\b"), " not"),
    (re.compile(r"'re\b"), " are"),
    (re.compile(r"'ll\b"), " will"),
    (re.compile(r"'ve\b"), " have"),
    (re.compile(r"'m\b"), " am"),
    (re.compile(r"\bcannot\b"), "can not"),
)


def quoted_spans(claim: str) -> list[str]:
    """The quoted passages of ``claim`` (as written) long enough to check."""
    text = _DOUBLED_QUOTE.sub('"', read(claim).text)
    if text.count('"') % 2:
        # An unpaired straight quote (an inch mark, a dropped closing quote) would pair the
        # wrong stretches of text; only the typographic quotes are read then.
        text = text.replace('"', "")
    spans = []
    for match in _QUOTED.finditer(text):
        quote = next(group for group in match.groups() if group is not None)
        if len(words(quote)) >= MIN_WORDS and not is_title(quote):
            spans.append(quote.strip())
    return spans


def is_title(quote: str) -> bool:
    """Whether a quote reads as a name ("Invasion of Privacy", "The A.V. Club"): every longer
    word capitalised. Quoted names are titles of works, not quotations of what someone said."""
    long_words = [w for w, _, _ in words(quote) if len(w) >= 4 and w.isalpha()]
    return bool(long_words) and all(w[0].isupper() for w in long_words)


def _word_line(text: str) -> str:
    """Lower-cased words of ``text``, contractions in full, space-separated with a space at
    each end."""
    folded = _QUOTE_MARKS.sub(" ", _BRACKETED_LETTER.sub(r"\1", text).casefold())
    for contraction, full in _CONTRACTIONS:
        folded = contraction.sub(full, folded)
    return " " + " ".join(word for word, _, _ in words(folded)) + " "


def _evidence_words(evidence: Reading) -> str:
    return _word_line(evidence.text)


def _holds(quote: str, evidence_words: str) -> bool:
    position = 0
    # A bracketed letter ("[a]nd") is the writer's re-casing of the word, not an insertion.
    for part in _ELISION.split(_BRACKETED_LETTER.sub(r"\1", quote)):
        line = _word_line(part)
        if not line.strip():
            continue
        found = evidence_words.find(line, position)
        if found < 0:
            return False
        position = found + len(line) - 1
    return True


class QuoteCheck:
    """Fails a claim quoting words that the evidence does not contain."""

    name: str = "quotes"
    lexicon: tuple[str, ...] = ()  # digits, codes and characters: every language

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None:
        quotes = quoted_spans(claim)
        if not quotes:
            return None
        line = read(evidence).view(_evidence_words)
        absent = [q for q in quotes if not _holds(q, line)]
        if absent:
            return missing(
                self.name,
                Label.QUOTE_MISMATCH,
                "Quoted text",
                absent,
                how="compared word for word, ignoring case, punctuation and quote style",
            )
        return passed(self.name, "Every quotation of the claim was")
