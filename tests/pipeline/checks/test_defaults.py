from judge.pipeline.checks import (
    ArithmeticCheck,
    CertaintyCheck,
    DateCheck,
    HedgeCheck,
    IdentifierCheck,
    LinkCheck,
    LookalikeCheck,
    MarkupCheck,
    NameCheck,
    NumberCheck,
    NumberPlacementCheck,
    PolarityCheck,
    QuoteCheck,
    TimeCheck,
    ValueFrameCheck,
    default_checks,
)
from judge.protocols import Check
from judge.schemas import CheckStatus, Label


def test_default_checks_satisfy_the_protocol_in_pipeline_order() -> None:
    checks = default_checks()
    assert all(isinstance(c, Check) for c in checks)
    assert [type(c) for c in checks] == [
        QuoteCheck,
        IdentifierCheck,
        LinkCheck,
        DateCheck,
        TimeCheck,
        NumberCheck,
        LookalikeCheck,
        MarkupCheck,
        ArithmeticCheck,
        ValueFrameCheck,
        NumberPlacementCheck,
        NameCheck,
        HedgeCheck,
        PolarityCheck,
        CertaintyCheck,
    ]
    assert len({c.name for c in checks}) == len(checks)


def test_each_check_labels_its_own_failure() -> None:
    evidence = 'Order ORD-1234 of 3 May 2024: 12 units, "we ship fast and well".'
    failing = {
        "quotes": ('They said "we ship slowly and badly".', Label.QUOTE_MISMATCH),
        "identifiers": ("Order ORD-4321 shipped.", Label.IDENTIFIER_MISMATCH),
        "lookalikes": ("It had 1З units.", Label.NEEDS_REVIEW),
        "markup": ("We ship <del>not</del> fast.", Label.NEEDS_REVIEW),
        "dates": ("It was ordered on 4 May 2024.", Label.DATE_MISMATCH),
        "times": ("It was ordered at 10am.", Label.DATE_MISMATCH),
        "numbers": ("It had 21 units.", Label.NUMBER_MISMATCH),
        "arithmetic": ("In total 24 units came.", Label.NEEDS_REVIEW),
        "hedges": ("It always ships 12 units.", Label.HEDGE_ADDED),
        "polarity": ("We do not ship fast.", Label.CONTRADICTED),
    }
    # A number moved between two facts needs two facts with numbers.
    own_evidence = {"number_placement": "Unopened items ship in 30 days. Opened ones in 14 days."}
    failing["number_placement"] = ("Unopened items ship in 14 days.", Label.NUMBER_MISMATCH)
    # A value given to another fact: the evidence's figure for another quarter.
    own_evidence["value_frames"] = (
        "Revenue was $5 million in the first quarter and $7 million in the second quarter."
    )
    failing["value_frames"] = ("Revenue was $7 million in the first quarter.", Label.CONTRADICTED)
    own_evidence["names"] = "Refunds take 14 days, said Ann Smith of Halvard Shipping."
    failing["names"] = (
        "Refunds take 14 days, said Ann Smith of Nordvik Shipping.",
        Label.NAME_MISMATCH,
    )
    own_evidence["links"] = "Returns: https://acme.com/returns or help@acme.com."
    failing["links"] = ("Returns: https://acme.com/refunds.", Label.IDENTIFIER_MISMATCH)
    own_evidence["certainty"] = "Early data suggest the drug reduces deaths in older patients."
    failing["certainty"] = ("The drug reduces deaths in older patients.", Label.HEDGE_ADDED)
    for check in default_checks():
        claim, label = failing[check.name]
        outcome = check(claim, own_evidence.get(check.name, evidence))
        assert outcome is not None, check.name
        assert outcome.check == check.name
        assert outcome.status is not CheckStatus.PASSED, check.name
        assert outcome.label is label
        assert outcome.missing


def test_checks_are_pure() -> None:
    claim, evidence = "It had 21 units on 4 May 2024.", "12 units on 3 May 2024."
    for check in default_checks():
        assert check(claim, evidence) == check(claim, evidence)
