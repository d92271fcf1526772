"""The link check: web addresses and e-mail addresses in the claim must be the evidence's.

A made-up link is among the commonest fabrications of a model that writes answers, and no
judge can tell "acme.com/returns" from "acme.com/refunds" by meaning. Addresses compare without
their scheme, a leading "www.", case and trailing punctuation; a claim may give less of an
address than the evidence ("acme.com" for "https://www.acme.com/returns" or for
"support.acme.com"), never more or another. A bare domain with no scheme and no path is often
a company's name ("Amazon.com reported ..."): against evidence that writes no address at all,
its name ("Amazon") is enough. E-mail addresses must match whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from judge.pipeline.checks.outcome import missing, passed
from judge.pipeline.checks.text import normalise
from judge.schemas import CheckOutcome, Label

# Top-level domains read without a scheme or "www.": the common generic ones and the country
# codes seen most; "e.g." or "U.S." end in none of them.
_TLDS = (
    "com|org|net|edu|gov|mil|int|io|ai|co|info|biz|app|dev|news|uk|us|de|fr|eu|ca|au|in|jp|cn|"
    "ru|nl|es|it|ch|se|no|be|at|nz|ie|me|tv|ly|br|mx|za|kr|pl|pt|dk|fi|gr|tr|il|sg|hk"
)
_LABEL = r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?"
_PATH = r"(?:[/?#][^\s<>()\[\]\"'`]*)?"
_ADDRESS = re.compile(
    rf"(?<![\w@.-])(?:(?P<scheme>https?://|ftp://)(?P<host1>{_LABEL}(?:\.{_LABEL})+)"
    rf"|(?P<host2>(?:www\.)?{_LABEL}(?:\.{_LABEL})*\.(?:{_TLDS})))(?![\w-])(?P<path>{_PATH})",
    re.IGNORECASE,
)
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)+", re.IGNORECASE)
_TRAILING = ".,;:!?"


@dataclass(frozen=True)
class Address:
    text: str  # as written
    host: str  # casefolded, without "www."
    path: str  # casefolded, without trailing punctuation or slash
    bare: bool  # a domain alone: no scheme, no path


def find_addresses(text: str) -> list[Address]:
    """The web addresses of ``text`` (already normalised), e-mail addresses left out."""
    mails = [match.span() for match in _EMAIL.finditer(text)]
    found = []
    for match in _ADDRESS.finditer(text):
        if any(start <= match.start() < end for start, end in mails):
            continue
        host = (match.group("host1") or match.group("host2")).casefold().removeprefix("www.")
        path = match.group("path").rstrip(_TRAILING).rstrip("/").casefold()
        written = match.group(0).rstrip(_TRAILING)
        found.append(Address(written, host, path, not match.group("scheme") and not path))
    return found


@dataclass(frozen=True)
class _Evidence:
    addresses: tuple[Address, ...]
    mails: frozenset[str]
    words: frozenset[str]


@lru_cache(maxsize=16)
def _evidence(evidence: str) -> _Evidence:
    text = normalise(evidence)
    words = frozenset(word.casefold() for word in re.findall(r"[\w-]+", text))
    mails = frozenset(mail.casefold() for mail in _EMAIL.findall(text))
    return _Evidence(tuple(find_addresses(text)), mails, words)


def _holds(address: Address, evidence: _Evidence) -> bool:
    for other in evidence.addresses:
        # Less of the same address: its domain ("acme.com" of "support.acme.com"), a shorter
        # path ("acme.com/returns" of "acme.com/returns/form").
        same_host = other.host == address.host or other.host.endswith("." + address.host)
        if same_host and (
            not address.path
            or other.path == address.path
            or other.path.startswith(address.path + "/")
        ):
            return True
    if address.bare and not evidence.addresses:
        return address.host.split(".")[0] in evidence.words  # "Amazon.com" for "Amazon"
    return False


class LinkCheck:
    """Fails a claim giving a web or e-mail address the evidence does not give."""

    name: str = "links"

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None:
        text = normalise(claim)
        addresses = find_addresses(text)
        mails = _EMAIL.findall(text)
        if not addresses and not mails:
            return None
        context = _evidence(evidence)
        absent = [a.text for a in addresses if not _holds(a, context)]
        absent += [mail for mail in mails if mail.casefold() not in context.mails]
        if absent:
            return missing(
                self.name,
                Label.IDENTIFIER_MISMATCH,
                "Addresses",
                absent,
                how="compared without scheme, 'www.' and case; the claim may give less",
            )
        return passed(self.name, "Every address of the claim was")
