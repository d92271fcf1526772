"""Finding identifiers in normalised text: order, ticket, version, CVE and SKU codes, model
names and hashes ("ORD-88213", "CVE-2024-3094", "v3.2", "#4021", "GPT-4o", "a3f9c21"), and
the pattern that finds one in other text, tolerant of case and separators only."""

from __future__ import annotations

import re
from dataclasses import dataclass

from judge.reading.languages import CJK_LETTERS
from judge.reading.values.units import CURRENCY_CODES

__all__ = ["HEX_TOKEN", "Identifier", "evidence_pattern", "find_identifiers"]

# Upper-case prefix and at least three digits: ORD-88213, INC-2041, CVE-2024-3094, MH370. Not
# a fiscal year ("FY2021"), which the date check reads.
_PREFIXED = r"(?!FY\s?'?\d{2,4}(?![\w-]))[A-Z]{2,10}[-_#]?\d{3,}(?:[-/]\d+)*"
# Upper-case letter and digit groups joined by hyphens, at least three digits: AB12-34-X.
_SKU = r"(?=(?:[A-Z-]*\d){3})(?=[\dA-Z-]*[A-Z])[A-Z\d]+(?:-[A-Z\d]+)+"
# "v3.2", "version 3.2" and "3.2.1": a version the claim names in words is still a version
# ("Version 3.2" against "v3.2"), not a decimal number.
_VERSION = r"(?:[vV]|[Vv]ersion\s)\d+(?:\.\d+)+|\d+(?:\.\d+){2,}"
_VERSION_PREFIX = re.compile(r"^(?:version\s*|v)", re.IGNORECASE)
_HEX = r"(?:0x)?(?=[a-fA-F]*\d)(?=\d*[a-fA-F])[0-9a-fA-F]{7,64}"
_TICKET = r"#\d{3,}"
# Model and product names: capitals then one or two digits, an optional lower-case suffix
# ("X2", "GPT-4o", "A7"). Not quarters, halves or fiscal years ("Q3", "H1", "FY24").
_MODEL = r"(?!(?:Q[1-4]|H[12]|FY\d{2})(?![\w-]))[A-Z]{1,10}-?\d{1,2}[a-z]{0,2}"
# A file or case number: digits, a slash, and a number of five digits or with a leading zero
# ("2024/00871"); not a fraction ("1/2"), a date ("2024/05") or a range of years ("2019/2020").
_FILE_NUMBER = r"\d{2,}/(?:0\d{3,}|\d{5,})"
# An amount with its currency code glued on ("USD250") is money: the number check reads it.
_NOT_MONEY = rf"(?!{CURRENCY_CODES}\d)"
# No letter or digit right before or after a code, a letter of the scripts written without
# spaces aside ("型番はKX-4512Jです").
_WORD = rf"(?![{CJK_LETTERS}])\w"
_IDENTIFIER = re.compile(
    rf"(?<![.#-])(?<!{_WORD}){_NOT_MONEY}(?:(?P<version>{_VERSION})|(?P<hex>{_HEX})"
    rf"|(?P<code>{_PREFIXED}|{_SKU}|{_FILE_NUMBER})|(?P<ticket>{_TICKET})|(?P<model>{_MODEL}))"
    rf"(?!{_WORD}|-|\.\d)"
)
HEX_TOKEN = re.compile(r"(?<![\w])(?:0x)?([0-9a-fA-F]{7,64})(?![\w])")
_LOOKS_LIKE_THOUSANDS = re.compile(r"\d{1,3}(?:\.\d{3})+")
_LOOKS_LIKE_DATE = re.compile(
    r"[0-3]?\d\.[0-3]?\d\.(?:1\d{3}|20\d{2})|(?:1\d{3}|20\d{2})\.[01]?\d\.[0-3]?\d"
)


@dataclass(frozen=True)
class Identifier:
    text: str
    kind: str
    start: int
    end: int


# Characters that glue a code to the text around it without being part of it: a trailing
# hyphen or underscore ("ORD-88213-", "Z9-Z9-"), a hyphen joining it to a lower-case word
# ("ORD-88213-shipped", "order-ORD-88213", often an em dash the normaliser made a hyphen), a
# hash before its letters or a version ("#ORD-88213", "#4.2.1") and a short lower-case ending
# ("ORD-88213x"). Each is blanked in a copy of the text, so the code is read with its offsets
# unchanged; without this the code would not be read at all, and a changed digit would pass
# unseen.
_GLUE = re.compile(
    r"(?<=[A-Za-z0-9])[-_]+(?![A-Za-z0-9])"
    r"|(?<=[A-Z0-9])-(?=[a-z]{2})"
    r"|(?<=[a-z]{2})-(?=[A-Z0-9])"
    r"|(?<![\w#])#(?=[A-Za-z]|\d+\.\d)"
)
_LOWER_ENDING = re.compile(r"(?<=[A-Z]{2})([-_#]?\d{3,})([a-z]{1,3})(?![\w-])")


def _unglued(text: str) -> str:
    """``text`` with the glue around codes blanked, character for character."""
    text = _GLUE.sub(lambda match: " " * len(match.group(0)), text)
    return _LOWER_ENDING.sub(lambda match: match.group(1) + " " * len(match.group(2)), text)


def find_identifiers(text: str) -> list[Identifier]:
    """The identifiers in ``text`` (already normalised)."""
    found = []
    for match in _IDENTIFIER.finditer(_unglued(text)):
        kind = match.lastgroup or "code"
        raw = match.group(0)
        if kind == "version" and (
            _LOOKS_LIKE_THOUSANDS.fullmatch(raw) or _LOOKS_LIKE_DATE.fullmatch(raw)
        ):
            continue  # "1.500.000" is a number, "03.03.2024" and "1994.06.12" dates
        found.append(Identifier(raw, kind, match.start(), match.end()))
    return found


def evidence_pattern(identifier: Identifier) -> re.Pattern[str]:
    """A pattern finding the identifier in evidence, tolerant of case and separators only."""
    if identifier.kind == "version":
        core = re.escape(_VERSION_PREFIX.sub("", identifier.text))
        return re.compile(rf"(?<![\w.])(?:v|version\s*)?{core}(?![\w]|\.\d)", re.IGNORECASE)
    if identifier.kind == "ticket":
        return re.compile(rf"(?<![\w]){re.escape(identifier.text)}(?!\d)")
    chunks = re.findall(r"[A-Za-z]+|\d+", identifier.text)
    joined = r"[\s_#-]*".join(re.escape(chunk) for chunk in chunks)
    return re.compile(rf"(?<![A-Za-z0-9]){joined}(?![A-Za-z0-9])", re.IGNORECASE)
