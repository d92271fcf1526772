import pytest

from judge.pipeline.checks import IdentifierCheck
from judge.reading.normalise import normalise
from judge.reading.values.identifiers import find_identifiers
from judge.schemas import CheckStatus, Label

check = IdentifierCheck()


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("Order ORD-88213 has shipped.", "Your order ORD-88213 shipped today."),
        ("Order ORD-88213 has shipped.", "Your order ord 88213 shipped today."),
        ("Order ORD88213 has shipped.", "Your order ORD-88213 shipped today."),
        ("Order ОRD-88213 has shipped.", "Your order ORD-88213 shipped today."),  # Cyrillic О
        ("See INC-2041.", "Incident INC-2041 was resolved."),
        ("It fixes CVE-2024-3094.", "The patch fixes CVE-2024-3094 in xz."),
        ("Upgrade to v4.2.1.", "Version 4.2.1 is out."),
        ("Version 3.2 fixed the bug.", "The bug was fixed in v3.2."),
        ("Fixed in commit 3f2a9c1.", "Merged as 3f2a9c1e5b7d0a4c."),
        ("Ticket #4512 is closed.", "Closed ticket #4512."),
        ("Part AB12-34X is in stock.", "In stock: ab12-34x."),
    ],
)
def test_identifier_in_evidence_passes(claim: str, evidence: str) -> None:
    outcome = check(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.PASSED, outcome.detail


@pytest.mark.parametrize(
    ("claim", "evidence", "missing"),
    [
        ("Order ORD-88213 has shipped.", "Your order ORD-88231 shipped.", "ORD-88213"),
        ("Order ORD-88213 has shipped.", "Your order ORD-882130 shipped.", "ORD-88213"),
        ("It fixes CVE-2024-3094.", "It fixes CVE-2024-3049.", "CVE-2024-3094"),
        ("Upgrade to v4.2.1.", "Version 4.2.10 is out.", "v4.2.1"),
        ("Upgrade to v4.2.1.", "Version 4.2 is out.", "v4.2.1"),
        ("Version 3.2 fixed the bug.", "The bug was fixed in v3.3.", "Version 3.2"),
        ("Fixed in commit 3f2a9c1e.", "Merged as 3f2a9c1.", "3f2a9c1e"),
        ("Ticket #4512 is closed.", "Closed ticket #4521.", "#4512"),
        ("Batch FY20931 was recalled.", "Batch FY20932 was recalled.", "FY20931"),
    ],
)
def test_identifier_absent_or_altered_fails(claim: str, evidence: str, missing: str) -> None:
    outcome = check(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.FAILED
    assert outcome.label is Label.IDENTIFIER_MISMATCH
    assert outcome.missing == (missing,)
    assert "cited evidence" in outcome.detail


@pytest.mark.parametrize(
    "claim",
    [
        "SARS-CoV-2 is a virus.",
        "Revenue rose in Q3 and H1 and FY24.",
        "Revenue rose in FY2021 and FY 2022.",  # fiscal years: the date check reads them
        "Sales reached 1.500.000 units.",
        "It opened on 03.03.2024.",
        "The 2018-19 season.",
    ],
)
def test_names_numbers_and_dates_are_not_identifiers(claim: str) -> None:
    assert find_identifiers(normalise(claim)) == []
    assert check(claim, "anything") is None


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("The Falcon X3 model was released.", "The Falcon X2 model was released in May."),
        ("GPT-5 was released.", "GPT-4 was released in March."),
        ("The A8 chip is used.", "The A7 chip is used."),
    ],
)
def test_model_names_differing_in_one_character_do_not_match(claim: str, evidence: str) -> None:
    outcome = check(claim, evidence)
    assert outcome is not None and outcome.label is Label.IDENTIFIER_MISMATCH
    same = check(evidence, evidence)
    assert same is not None and same.status is CheckStatus.PASSED


def test_a_model_name_is_a_mismatch_only_beside_another_version_of_it() -> None:
    check = IdentifierCheck()
    rival = check("The Falcon X3 flies.", "The Falcon X2 flies.")
    assert rival is not None and rival.status is CheckStatus.FAILED
    # Never named in any version: the judge weighs "COVID-19" against "COVID", not this check.
    unnamed = check("COVID-19 is dangerous in pregnancy.", "COVID is dangerous in pregnancy.")
    assert unnamed is not None and unnamed.status is CheckStatus.PASSED


@pytest.mark.parametrize(
    "claim",
    [
        "Order ORD-88214- was shipped.",  # a trailing hyphen
        "Order ORD-88214-shipped.",  # joined to a word, as a normalised em dash does
        "Order ORD-88214\u2014shipped.",
        "Shipped: order-ORD-88214.",
        "Order #ORD-88214 was shipped.",
        "Order ORD-88214x was shipped.",  # a short lower-case ending
        "Codes Z9-Z9-Z9-.",
    ],
)
def test_a_code_glued_to_the_text_around_it_is_still_read(claim: str) -> None:
    outcome = check(claim, "Your order ORD-88213 and code Z9-Z9-Z8 shipped.")
    assert outcome is not None
    assert outcome.status is CheckStatus.FAILED, claim
    assert outcome.label is Label.IDENTIFIER_MISMATCH


@pytest.mark.parametrize(
    "claim",
    ["Order ORD-88213- was shipped.", "Order ORD-88213-shipped.", "Order #ORD-88213 shipped."],
)
def test_the_glue_does_not_make_a_code_differ(claim: str) -> None:
    outcome = check(claim, "Your order ORD-88213 shipped.")
    assert outcome is not None and outcome.status is CheckStatus.PASSED


def test_an_amount_with_its_currency_code_glued_on_is_money_not_a_code() -> None:
    assert find_identifiers(normalise("The fee is USD250.")) == []
