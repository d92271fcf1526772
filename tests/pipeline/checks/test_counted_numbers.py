"""A number that counts a thing ("2 tablets") is not a measured number ("2 days", "500 mg"),
either way round, while list and range joiners and words before a unit leave a number open to
the unit named later; a count named after a list ("1 or 2 tablets") is what the whole list
counts."""

from __future__ import annotations

import pytest

from judge.pipeline.checks.numbers import NumberCheck
from judge.schemas import CheckStatus

EVIDENCE = "Take 1 or 2 tablets every 4 to 6 hours. Do not take more than 8 tablets in 24 hours."


@pytest.mark.parametrize(
    ("claim", "evidence", "status"),
    [
        ("Do not take more than 8 tablets in two days.", EVIDENCE, CheckStatus.FAILED),
        ("Do not take more than 8 tablets in 2 days.", EVIDENCE, CheckStatus.FAILED),
        ("Take 2 tablets at a time.", EVIDENCE, CheckStatus.PASSED),
        ("Take a dose every 6 hours.", EVIDENCE, CheckStatus.PASSED),
        ("Refunds take 7 days.", "Refunds take 5 to 7 business days.", CheckStatus.PASSED),
        ("The trial ran for 150 days.", "The trial enrolled 150 patients.", CheckStatus.FAILED),
        ("The trial enrolled 150 people.", "The trial enrolled 150 patients.", CheckStatus.PASSED),
        ("Take 500 tablets a day.", "Feverin 500 mg tablets.", CheckStatus.FAILED),
        ("Take 500 or 2 tablets.", "Feverin 500 mg tablets. " + EVIDENCE, CheckStatus.FAILED),
        ("Take 1 or 2 tablets.", "Take one or two 500 mg tablets.", CheckStatus.PASSED),
        ("Each tablet holds 500 mg.", "Feverin 500 mg tablets.", CheckStatus.PASSED),
        ("It costs 5 dollars for 2 tablets.", "2 tablets cost $5.", CheckStatus.PASSED),
    ],
)
def test_counted_numbers(claim: str, evidence: str, status: CheckStatus) -> None:
    outcome = NumberCheck()(claim, evidence)
    assert outcome is not None and outcome.status is status
