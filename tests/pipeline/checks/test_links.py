"""The link check: a web or e-mail address of the claim must be the evidence's, or less of it;
a bare domain that is a company's name passes on the name where the evidence gives no address."""

from __future__ import annotations

import pytest

from judge.pipeline.checks.links import LinkCheck
from judge.reading import lexicon
from judge.reading.normalise import normalise
from judge.reading.values.links import find_addresses
from judge.schemas import CheckStatus, Label

CHECK = LinkCheck()
EVIDENCE = (
    "Returns are handled at https://www.acme.com/returns/policy and by support.acme.com. "
    "Write to Help@Acme.com with your order."
)


@pytest.mark.parametrize(
    "claim",
    [
        "See acme.com/returns/policy for the details.",
        "See http://acme.com/returns/policy/ for the details.",
        "See acme.com/returns.",  # less of the address
        "Returns are handled at acme.com.",  # the domain of a subdomain
        "See [the policy](https://www.acme.com/returns/policy).",
        "Write to help@acme.com.",
    ],
)
def test_the_same_address_or_less_of_it_passes(claim: str) -> None:
    outcome = CHECK(claim, EVIDENCE)
    assert outcome is not None
    assert outcome.status is CheckStatus.PASSED, outcome.detail


@pytest.mark.parametrize(
    ("claim", "absent"),
    [
        ("See acme.org/returns/policy.", "acme.org/returns/policy"),
        ("See acme.com/refunds for the details.", "acme.com/refunds"),
        ("See acme.com/returns/policy/form.", "acme.com/returns/policy/form"),
        ("Write to support@acme.com.", "support@acme.com"),
        ("Apply at https://acme-returns.com.", "https://acme-returns.com"),
    ],
)
def test_another_or_a_longer_address_fails(claim: str, absent: str) -> None:
    outcome = CHECK(claim, EVIDENCE)
    assert outcome is not None
    assert outcome.status is CheckStatus.FAILED and outcome.label is Label.IDENTIFIER_MISMATCH
    assert outcome.missing == (absent,)


def test_a_bare_domain_is_a_name_where_the_evidence_gives_no_address() -> None:
    passed = CHECK("Amazon.com reported higher sales.", "Amazon reported higher sales.")
    assert passed is not None and passed.status is CheckStatus.PASSED
    failed = CHECK("Amazon.com reported higher sales.", "Sales rose at ebay.com.")
    assert failed is not None and failed.status is CheckStatus.FAILED


@pytest.mark.parametrize(
    "text",
    ["It costs 3.5 per cent, e.g. in the U.S.", "Python 3.10 is required.", "See report.pdf."],
)
def test_abbreviations_numbers_and_file_names_are_no_addresses(text: str) -> None:
    assert find_addresses(normalise(text)) == []
    assert CHECK(text, "nothing") is None


@pytest.mark.parametrize("domain", sorted(lexicon.words("top_level_domains", "common")))
def test_a_bare_domain_is_read_by_every_listed_ending(domain: str) -> None:
    found = find_addresses(f"See acme-news.{domain} for details.")
    assert [(a.host, a.bare) for a in found] == [(f"acme-news.{domain}", True)]
    assert find_addresses(f"See acme-news.{domain}x for details.") == []
