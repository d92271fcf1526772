"""Markup in answer text that a renderer hides or strikes out.

An answer is read rendered, as Markdown or HTML. ``Shipping fees are <del>not</del> refunded``
is checked as "not refunded" and read as "refunded"; so are an HTML comment, GitHub's
``~~strikethrough~~``, letters struck through by combining overlays, an element with
``hidden`` or ``style``, a character reference that spells a letter or digit, image alt text and
Markdown link definitions (never shown). Markup that only emphasises or lays out text
(``**bold**``, ``<b>``, ``<br>``, tables, lists) shows every word and is left alone.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from judge.reading import lexicon
from judge.reading.normalise import CHARACTER_REFERENCE

# Elements that hide, strike out, replace, reorder or run their content, and attributes that
# hide or restyle any element: common/markup.toml.
_HIDING_ELEMENTS = lexicon.words("markup", "common", name="hiding_element")
# An attribute is read by name, not within a value ("<a href='/style-guide'>" shows its text).
_ATTRIBUTES = lexicon.alternation(lexicon.words("markup", "common", name="hiding_attribute"))
_HIDING_ATTRIBUTE = re.compile(rf"(?:^|\s)(?:{_ATTRIBUTES})(?=\s*=|\s|/|$)", re.IGNORECASE)
# Entities a writer types for the character itself.
_PLAIN_ENTITIES = lexicon.words("markup", "common", name="plain_entity")
# Characters that change the number after them; U+FFFD, what a broken reference shows.
_SIGNS = frozenset("+-\u2212\u00b1\u2213\ufffd")

_TAG = re.compile(r"</?([A-Za-z][A-Za-z0-9-]*)(\s[^<>]*)?/?>")
_FINDERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # An opener hides all that follows it, up to "-->" or the end; a lone "-->" is an arrow.
    ("an HTML comment", re.compile(r"<!--")),
    # GitHub strikes out text between two tildes or two pairs, when the closing one follows a
    # character ("~not~", "~~not~~"); "~5 to ~7 days" strikes nothing.
    ("strikethrough", re.compile(r"~~[^~\n]+?~~|(?<!~)~(?=[^\s~])[^~\n]*?[^\s~]~(?!~)")),
    # Combining overlays draw a stroke through the letter before them: "n̶o̶t̶" reads struck out.
    ("struck-through characters", re.compile(r"(?:\w[\u0334-\u0338\u20d2\u20d3\u20e5\u20e6]+)+")),
    ("a character reference", CHARACTER_REFERENCE),
    ("image alt text", re.compile(r"!\[[^\]\n]*\][(\[]")),
    # A link definition is never shown; one with a title, or the comment idioms that point at
    # "#" or "<>", carries text. A bare reference list ("[1]: https://...") does not.
    (
        "a link definition",
        re.compile(
            r"^[ ]{0,3}\[[^\]^\n][^\]\n]*\]:[ \t]*(?:#|<>|(?:<[^>\n]*>|\S+)[ \t]+"
            r"""(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))""",
            re.MULTILINE,
        ),
    ),
)


@dataclass(frozen=True)
class HiddenMarkup:
    """Markup at ``start``-``end`` of a text that keeps some of it from a reader."""

    start: int
    end: int
    text: str
    kind: str

    def describe(self) -> str:
        # The markup is untrusted text: shown quoted and escaped, on one line, cut short.
        return f"{self.kind} {self.text[:40]!r} at {self.start}-{self.end}"


@lru_cache(maxsize=32)
def hidden_markup(text: str) -> tuple[HiddenMarkup, ...]:
    """Every piece of ``text`` that a Markdown or HTML renderer would hide or strike out, in
    order; found once per text (the policy asks for an answer's at every decision)."""
    found = [
        HiddenMarkup(match.start(), match.end(), match.group(), kind)
        for kind, pattern in _FINDERS
        for match in pattern.finditer(text)
        if kind != "a character reference" or not _plain_entity(match.group())
    ]
    found += [
        HiddenMarkup(match.start(), match.end(), match.group(), "an HTML element")
        for match in _TAG.finditer(text)
        if _hides(match.group(1).lower(), match.group(2) or "")
    ]
    return tuple(sorted(found, key=lambda item: item.start))


def _plain_entity(reference: str) -> bool:
    if reference[1:-1].lower() in _PLAIN_ENTITIES:
        return True
    # Typography (quotes, dashes, "≥", "©", spaces) hides no word: the checks read it decoded
    # (judge.reading.normalise). A letter, digit, mark or control spells text a reader sees and a
    # judge reading the source may not, and a sign turns a number.
    shown = html.unescape(reference)
    if len(shown) != 1 or shown in _SIGNS:
        return False
    return unicodedata.category(shown)[0] in "PS" or unicodedata.category(shown) == "Zs"


def _hides(name: str, attributes: str) -> bool:
    # Any other element shows its content (a comparison like "x<y and y>z" reads as one).
    return name in _HIDING_ELEMENTS or bool(_HIDING_ATTRIBUTE.search(attributes))
