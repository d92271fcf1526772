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

from judge.pipeline.checks.outcome import conflicting, missing, passed
from judge.reading import Reading, read
from judge.reading.values.links import Address
from judge.schemas import CheckOutcome, Label


def _holds(address: Address, evidence: Reading) -> bool:
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
        return address.host.split(".")[0] in evidence.written  # "Amazon.com" for "Amazon"
    return False


class LinkCheck:
    """Fails a claim giving a web or e-mail address the evidence does not give."""

    name: str = "links"
    lexicon: tuple[str, ...] = ()  # digits, codes and characters: every language

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None:
        owned = read(claim).owned
        if not owned.addresses and not owned.emails:
            return None
        source = read(evidence)
        mails = {mail.text.casefold() for mail in source.emails}
        unheld = [a for a in owned.addresses if not _holds(a, source)]
        absent = [m.text for m in owned.emails if m.text.casefold() not in mails]
        how = "compared without scheme, 'www.' and case; the claim may give less"
        conflicts = [(a.text, other.text) for a in unheld if (other := _rival(a, source))]
        absent += [a.text for a in unheld if all(a.text != mine for mine, _ in conflicts)]
        if conflicts:
            return conflicting(
                self.name, Label.IDENTIFIER_MISMATCH, "Addresses", conflicts, absent=absent, how=how
            )
        if absent:
            return missing(self.name, Label.IDENTIFIER_MISMATCH, "Addresses", absent, how=how)
        return passed(self.name, "Every address of the claim was")


def _rival(address: Address, evidence: Reading) -> Address | None:
    """An evidence address on the same site with another path ("acme.com/returns" for the
    claim's "acme.com/refunds"): the evidence gives another address in its place."""
    site = address.host.split(".")[-2:]
    return next((a for a in evidence.addresses if a.host.split(".")[-2:] == site), None)
