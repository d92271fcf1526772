"""A sentence of the evidence, copied as the claim, passes every exact check: whatever the
checks read on one side they must read the same way on the other."""

from __future__ import annotations

import pytest

from judge.pipeline.checks import default_checks
from judge.schemas import CheckStatus

CHECKS = default_checks()

PASSAGES = [
    # A quotation is one sentence to the splitter; its negated first sentence is not Robert's.
    "\"This can and must not be true. Robert was such a great bloke. I don't know how she "
    'copes," said a neighbour.',
    # The claim's negation is in its second clause, which the evidence negates too.
    "Police said on Wednesday that Enke left behind a suicide note, but would not say where the "
    "note was found. The funeral is on Sunday.",
    # A height of six feet four: "4" must end the clause of "6-foot" on both sides.
    "The 6-foot-4 guard was a very integral part of the offense, as he averaged 11 points a "
    "game this season.",
    # Typography written as character references, as scraped pages have it.
    "Older individuals (aged &#8805;60 years) are the most susceptible. The Irish&rsquo;s first "
    "win came in 2019.",
    "It was founded in '98, and sales halved in the 1800s; a fifth of them were lost.",
    # The claim's own exception limits its "all" as the evidence's does.
    "Other than the wallets, the exchange had ledgers that kept track of all funds owed to "
    "customers. It closed in May.",
]


@pytest.mark.parametrize(
    ("sentence", "passage"),
    [
        (sentence.strip(), passage)
        for passage in PASSAGES
        for sentence in passage.replace('," said', '" said').split(". ")
        if len(sentence.split()) >= 4
    ],
)
def test_an_evidence_sentence_copied_as_the_claim_passes_every_check(
    sentence: str, passage: str
) -> None:
    for check in CHECKS:
        outcome = check(sentence, passage)
        assert outcome is None or outcome.status is CheckStatus.PASSED, (check.name, outcome)
