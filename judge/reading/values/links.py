"""Finding web and e-mail addresses in normalised text, each with its host and path as they
compare: without scheme, a leading "www.", case and trailing punctuation."""

from __future__ import annotations

import re
from dataclasses import dataclass

from judge.reading import lexicon

__all__ = ["EMAIL", "Address", "Email", "find_addresses", "find_emails"]

# Top-level domains read without a scheme or "www.": common/top_level_domains.toml.
_TLDS = lexicon.alternation(lexicon.words("top_level_domains", "common"))
_LABEL = r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?"
_PATH = r"(?:[/?#][^\s<>()\[\]\"'`]*)?"
_ADDRESS = re.compile(
    rf"(?<![\w@.-])(?:(?P<scheme>https?://|ftp://)(?P<host1>{_LABEL}(?:\.{_LABEL})+)"
    rf"|(?P<host2>(?:www\.)?{_LABEL}(?:\.{_LABEL})*\.(?:{_TLDS})))(?![\w-])(?P<path>{_PATH})",
    re.IGNORECASE,
)
EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+", re.IGNORECASE)
_TRAILING = ".,;:!?"


@dataclass(frozen=True)
class Address:
    text: str  # as written
    host: str  # casefolded, without "www."
    path: str  # casefolded, without trailing punctuation or slash
    bare: bool  # a domain alone: no scheme, no path
    start: int = 0
    end: int = 0


def find_addresses(text: str) -> list[Address]:
    """The web addresses of ``text`` (already normalised), e-mail addresses left out."""
    mails = [match.span() for match in EMAIL.finditer(text)]
    found = []
    for match in _ADDRESS.finditer(text):
        if any(start <= match.start() < end for start, end in mails):
            continue
        host = (match.group("host1") or match.group("host2")).casefold().removeprefix("www.")
        path = match.group("path").rstrip(_TRAILING).rstrip("/").casefold()
        written = match.group(0).rstrip(_TRAILING)
        bare = not match.group("scheme") and not path
        start = match.start()
        found.append(Address(written, host, path, bare, start, start + len(written)))
    return found


@dataclass(frozen=True)
class Email:
    text: str
    start: int
    end: int


def find_emails(text: str) -> list[Email]:
    """The e-mail addresses of ``text`` with their offsets."""
    return [Email(m.group(0), m.start(), m.end()) for m in EMAIL.finditer(text)]
