"""The identifier check: order, ticket, version, CVE and SKU codes and hashes must match exactly.

Comparison ignores case and the separators between a code's parts ("ORD-88213" = "ord 88213"),
never its characters: a swapped digit fails. A short hash in the claim matches the full hash it
abbreviates in the evidence. The identifiers are those the claim's reading owns
(:mod:`judge.reading.values.owners`): a code inside a web address is the link check's.
"""

from __future__ import annotations

import re

from judge.pipeline.checks.outcome import conflicting, missing, passed
from judge.reading import Reading, read
from judge.reading.values.identifiers import HEX_TOKEN, Identifier, evidence_pattern
from judge.schemas import CheckOutcome, Label


def _rival_in(identifier: Identifier, evidence: str) -> bool:
    """Whether the evidence names another model of the same name ("X2" where the claim says
    "X3"). A model name the evidence never mentions in any version ("COVID-19" against a text
    that says "COVID") is the judge's to weigh, not a mismatch of characters."""
    name = re.match(r"[A-Za-z]+", identifier.text)
    if name is None:
        return True
    stem = re.escape(name.group(0))
    rival = rf"(?<![A-Za-z0-9]){stem}[\s_-]*\d{{1,2}}[a-z]{{0,2}}(?![A-Za-z0-9])"
    return re.search(rival, evidence, re.IGNORECASE) is not None


def _hex_found(identifier: Identifier, evidence: str) -> bool:
    wanted = identifier.text.casefold().removeprefix("0x")
    return any(token.casefold().startswith(wanted) for token in HEX_TOKEN.findall(evidence))


def _found(identifier: Identifier, evidence: str) -> bool:
    if identifier.kind == "hex":
        return _hex_found(identifier, evidence)
    if evidence_pattern(identifier).search(evidence):
        return True
    return identifier.kind == "model" and not _rival_in(identifier, evidence)


class IdentifierCheck:
    """Fails a claim naming an identifier that is not in the evidence character for character."""

    name: str = "identifiers"
    lexicon: tuple[str, ...] = ()  # digits, codes and characters: every language

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None:
        identifiers = read(claim).owned.identifiers
        if not identifiers:
            return None
        source = read(evidence)
        unfound = [i for i in identifiers if not _found(i, source.text)]
        if not unfound:
            return passed(self.name, "Every identifier of the claim was")
        how = "compared ignoring case and separators"
        conflicts = [(i.text, other.text) for i in unfound if (other := _rival(i, source))]
        absent = [i.text for i in unfound if all(i.text != mine for mine, _ in conflicts)]
        if conflicts:
            return conflicting(
                self.name,
                Label.IDENTIFIER_MISMATCH,
                "Identifiers",
                conflicts,
                absent=absent,
                how=how,
            )
        return missing(self.name, Label.IDENTIFIER_MISMATCH, "Identifiers", absent, how=how)


def _rival(identifier: Identifier, evidence: Reading) -> Identifier | None:
    """An identifier of the evidence of the same kind and prefix ("ORD-88214" for the claim's
    "ORD-88213", "v3.3" for "v3.2"): the evidence names another in its place."""
    prefix = _PREFIX.match(identifier.text)
    for other in evidence.identifiers:
        if other.kind != identifier.kind:
            continue
        theirs = _PREFIX.match(other.text)
        if (prefix is None) == (theirs is None) and (
            prefix is None
            or theirs is None
            or prefix.group(0).casefold() == theirs.group(0).casefold()
        ):
            return other
    return None


_PREFIX = re.compile(r"[A-Za-z]+")
