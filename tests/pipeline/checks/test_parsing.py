"""The exact checks read the same date or number written another way as equal, and still tell
different ones apart: no check may flag a claim over how the evidence spells a value."""

from __future__ import annotations

import pytest

from judge.pipeline.checks import default_checks
from judge.schemas import CheckStatus

CHECKS = default_checks()

SAME = [
    ("The shop opened on May 1, 2019.", "The shop opened on May 1 2019."),
    ("The shop opened on May 1 2019.", "The shop opened on May 1, 2019."),
    ("The shop opened on 1 May 2019.", "The shop opened on May 1st, 2019."),
    ("The shop opened on May 1st, 2019.", "The shop opened on 01 May 2019."),
    ("The shop opened on 1st of May 2019.", "The shop opened 2019-05-01."),
    ("The shop opened on May 1, 2019.", "The shop opened on 1-May-2019."),
    ("The shop opened on May 1, 2019.", "The shop opened on the first of May, 2019."),
    ("The shop opened on May 21, 2019.", "The shop opened on the twenty-first of May 2019."),
    ("The shop opened in Sept 2019.", "The shop opened on 3 September 2019."),
    ("The shop opened on Sept. 3rd 2019.", "The shop opened on 3 September 2019."),
    ("The shop opened on 3 Sep. 2019.", "The shop opened on September 3, 2019."),
    ("It was the 21st of March.", "It was March 21."),
    ("The plan ran from 2019 to 2021.", "The plan ran 2019–2021."),
    ("The plan ran 2019-21.", "The plan ran from 2019 to 2021."),
    ("The plan ran between 2019 and 2021.", "The plan ran 2019–2021."),
    ("The plan cost between 3 and 5 million dollars.", "The plan cost $3–5 million."),
    ("The plan hired three people.", "The plan hired 3 people."),
    ("The plan hired a dozen people.", "The plan hired 12 people."),
    ("The plan hired twenty-one people.", "The plan hired 21 people."),
    ("The plan hired 1500 people.", "The plan hired 1,500 people."),
    ("The plan hired 1,500 people.", "The plan hired 1 500 people."),
    ("The plan hired 12,000 people.", "The plan hired 12 000 people."),
    ("The plan hired 12 000 people.", "The plan hired 12,000 people."),
    ("The plan hired 1,500,000 people.", "The plan hired 1 500 000 people."),
    ("The plan hired 2.5 million people.", "The plan hired 2,5 million people."),
    ("It had 3,5 % fat.", "It had 3.5% fat."),
    ("The war broke out in the fifteenth century.", "The 15th-century war."),
    ("The war broke out in the 15th century.", "The fifteenth-century war."),
    ("She came 1st.", "She came first."),
    ("The second edition came out in 2019.", "The 2nd edition came out in 2019."),
    ("The shop opened in '98.", "The shop opened in 1998."),
    ("The shop opened in 1998.", "The shop opened in '98, downtown."),
    ("The shop opened in May '21.", "The shop opened on 3 May 2021."),
    ("Sales fell 50% last year.", "Sales halved last year."),
    ("Sales rose 100% last year.", "Sales doubled last year."),
    ("Sales rose 200% last year.", "Sales tripled last year."),
    ("A fifth of adults smoke.", "20% of adults smoke."),
    ("20% of adults smoke.", "One-fifth of adults smoke."),
    ("Two-fifths of voters agreed.", "40% of voters agreed."),
    ("A tenth of the budget went to schools.", "10% of the budget went to schools."),
    ("The bridge was built in the 19th century.", "The bridge was built in 1850."),
    ("The bridge was built in the nineteenth century.", "The 19th-century bridge."),
    ("The bridge was built in the 1800s.", "The bridge was built in 1850."),
    ("The bridge was built in the 19th century.", "The bridge was built in the 1800s."),
    ("The study used 1730 samples.", "The study used 1,730 samples."),
    ("Revenue was $50 million to $100 million.", "Revenue was $50 to $100 million."),
    ("The 6-foot-four guard scored.", "The 6-foot-4 guard scored."),
    ("The guard is 6 feet 4 inches tall.", "The 6-foot-4 guard scored."),
]

DIFFERENT = [
    ("The shop opened on May 2, 2019.", "The shop opened on May 1 2019."),
    ("The shop opened on May 1, 2019.", "The shop opened on 1-June-2019."),
    ("The shop opened on May 2, 2019.", "The shop opened on the first of May, 2019."),
    ("The shop opened on May 1, 2020.", "The shop opened on 1-May-2019."),
    ("The plan hired 13,000 people.", "The plan hired 12 000 people."),
    ("The war broke out in the sixteenth century.", "The 15th-century war."),
    ("The plan hired four people.", "The plan hired 3 people."),
    ("The shop opened in '98.", "The shop opened in 2008."),
    ("The shop opened in '08.", "The shop opened in 1908."),
    ("Sales fell 60% last year.", "Sales halved last year."),
    ("Sales rose 300% last year.", "Sales tripled last year."),
    ("A fifth of adults smoke.", "A quarter of adults smoke."),
    ("The bridge was built in the 20th century.", "The bridge was built in 1850."),
    ("The bridge was built in the 1800s.", "The bridge was built in 1950."),
    ("The bridge was built in 1850.", "The bridge was built in the 19th century."),
    ("The study used 1730 samples.", "The study used 1,750 samples."),
    ("Revenue was $50.", "Revenue was $50 to $100 million."),
    ("The 6-foot-5 guard scored.", "The 6-foot-4 guard scored."),
    # A multiple is read as the change it states, not as a count.
    ("The chain has 3 stores.", "The chain tripled its stores."),
]


@pytest.mark.parametrize(("claim", "evidence"), SAME)
def test_the_same_value_written_differently_passes(claim: str, evidence: str) -> None:
    flagged = [
        (check.name, outcome.detail)
        for check in CHECKS
        if (outcome := check(claim, evidence)) and outcome.status is not CheckStatus.PASSED
    ]
    assert flagged == []


@pytest.mark.parametrize(("claim", "evidence"), DIFFERENT)
def test_a_different_value_is_still_flagged(claim: str, evidence: str) -> None:
    flagged = [
        check.name
        for check in CHECKS
        if (outcome := check(claim, evidence)) and outcome.status is not CheckStatus.PASSED
    ]
    assert flagged
