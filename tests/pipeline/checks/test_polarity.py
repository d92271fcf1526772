"""The polarity check: negation, antonym prefixes and opposite quantifiers against the evidence
sentence the claim restates; confident flips are contradicted, weaker ones need review."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.pipeline.checks.polarity import PolarityCheck
from judge.schemas import CheckStatus, Label

CHECK = PolarityCheck()
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _refund_evidence() -> str:
    request = json.loads((EXAMPLES / "refund_policy.json").read_text("utf-8"))
    return "\n\n".join(p["text"] for p in request["evidence"])


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("Shipping fees are refunded as well.", "Shipping fees are non-refundable."),
        ("The drug is effective against the virus.", "The drug is ineffective against the virus."),
        ("The service is available in Canada.", "The service is unavailable in Canada."),
        ("The two committees agree on the budget.", "The two committees disagree on the budget."),
        ("The bridge is not open to traffic.", "The bridge is open to traffic."),
        ("The museum still charges an entry fee.", "The museum no longer charges an entry fee."),
        ("The trial found an effect on mortality.", "The trial found no effect on mortality."),
        ("The patients never received the vaccine.", "All patients received the vaccine."),
        ("Some residents were evacuated.", "None of the residents were evacuated."),
        # A negation of two words is no content word of the claim, and "met" is "meet".
        ("The company failed to meet its target.", "The company met its target."),
        ("The company met its target.", "The company failed to meet its target."),
        ("The drug reduces symptoms in adults.", "The drug hardly reduces symptoms in adults."),
        # a verb that says the act it governs does not happen
        (
            "The minister resigned over the report.",
            "The minister refused to resign over the report.",
        ),
        ("She acted in the film Broken Bridges.", "She avoided acting in the film Broken Bridges."),
        ("The agency has approved the vaccine.", "The agency has yet to approve the vaccine."),
    ],
)
def test_a_confident_flip_is_contradicted(claim: str, evidence: str) -> None:
    outcome = CHECK(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.FAILED and outcome.label is Label.CONTRADICTED
    # Both spans are named: the claim and the evidence clause it flips.
    assert claim in outcome.detail
    assert evidence.rstrip(".") in outcome.detail


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("Shipping fees are non-refundable.", "Shipping fees are non-refundable."),
        ("The bridge is closed.", "The bridge is not open."),
        (
            "She did not act in the film Broken Bridges.",
            "She avoided acting in the film Broken Bridges.",
        ),
        # two negations that cancel
        ("The company did not fail to meet its target.", "The company met its target."),
        ("The minister did not refuse to resign.", "The minister resigned."),
        ("The bridge is not open to traffic.", "The bridge is not open to traffic at night."),
        ("The drug is effective.", "The drug is effective, but not for children."),
        ("Sales increased in March.", "Sales increased in March, not in April."),
        ("The report includes the figures.", "The report includes the figures."),
        ("I'm not sure, but the shop opens at nine.", "The shop opens at nine."),
        ("The museum charges an entry fee.", "Not only does the museum charge an entry fee."),
        ("The train left Paris.", "No later than noon, the train left Paris."),
        ("Shipping fees are not refundable.", "Shipping fees are non-refundable."),
        ("Shipping fees are never refunded.", "Shipping fees are non-refundable."),
        ("The device is not unsafe.", "The device is safe."),
        (
            "Shipping fees are refunded when the item arrived damaged.",
            "Shipping fees are non-refundable, except when the item arrived damaged.",
        ),
        # Opposites that do not flip the claim.
        # A negation on one side turns the opposite back: no flip.
        ("Prices did not fall in 2020.", "Prices rose in 2020."),
        # Comparatives beside "than" compare two things, in either order.
        ("Risk was higher in men than in women.", "Risk was lower in women than in men."),
        # Either side also states the other sense: two things, not a flip.
        ("Prices increased in 2020.", "Prices rose in 2020 after a fall in demand."),
        ("Unemployment fell in March.", "Unemployment rose in March, and fell in April."),
        ("Sales rose as costs fell.", "Sales rose while costs fell."),
        ("Sales doubled.", "Sales doubled while costs halved."),
        ("The mayor approved the plan.", "The council rejected the plan; the mayor approved it."),
        # Converses are not listed: the same event with the parties swapped.
        ("The club sold the player to Leeds.", "Leeds bought the player from the club."),
        ("Spain lost to Italy in the final.", "Italy won against Spain in the final."),
        # The negation is said of "expire", which the claim does not state.
        (
            "Store credit can be used in any store.",
            "Store credit does not expire and can be used in any store.",
        ),
        # A quotation is one sentence to the splitter; its negated sentence is not the claim's.
        (
            "Robert was such a great bloke, she said.",
            'She said: "This can and must not be true. Robert was such a great bloke."',
        ),
        # The claim's negation is in another clause, which the evidence negates too.
        (
            "Police said Enke left a suicide note, but would not say where the note was found.",
            "Police said Enke left a suicide note, but would not say where the note was found.",
        ),
    ],
)
def test_same_polarity_passes(claim: str, evidence: str) -> None:
    outcome = CHECK(claim, evidence)
    assert outcome is None or outcome.status is CheckStatus.PASSED, outcome


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # The negation is said of a word both sides state, however much else they share.
        (
            "The group is not 100% composed of volunteers and interested parties, and has "
            "expanded into many related projects for saving digital history.",
            "The group is 100% composed of volunteers and interested parties, and has "
            "expanded into many related projects for saving digital history.",
        ),
        # A URL's colon ends no clause.
        (
            "The source code can not be found at https://example.org/archive/bot.",
            "The source code can be found at https://example.org/archive/bot.",
        ),
        # The same quantifier on both sides leaves the negation to decide.
        (
            "Byrne, Colman, Jones and Taylor were not all killed in the crash.",
            "Byrne, Colman, Jones and Taylor were all killed in the crash.",
        ),
    ],
)
def test_a_negation_in_a_long_or_quantified_sentence_is_found(claim: str, evidence: str) -> None:
    outcome = CHECK(claim, evidence)
    assert outcome is not None and outcome.status is not CheckStatus.PASSED, outcome


def test_a_negated_clause_the_evidence_states_plainly_is_still_flagged() -> None:
    outcome = CHECK(
        "Police said Enke left a suicide note, but would not say where the note was found.",
        "Police said Enke left a suicide note and said where the note was found.",
    )
    assert outcome is not None and outcome.status is not CheckStatus.PASSED


def test_a_prefixed_word_naming_another_group_is_no_negation() -> None:
    # The evidence speaks of unopened and of opened items: "opened items" restates the second.
    evidence = (
        "Customers may return any unopened item within 30 days for a full refund. "
        "Opened items can be returned within 14 days for store credit."
    )
    outcome = CHECK("Opened items are refunded in cash.", evidence)
    assert outcome is None or outcome.status is CheckStatus.PASSED, outcome


def test_a_flip_with_fewer_shared_words_needs_review() -> None:
    outcome = CHECK(
        "We show no link between sleep and memory in adults.",
        "Our results indicate a direct link between sleep quality and memory.",
    )
    assert outcome is not None
    assert outcome.status is CheckStatus.NEEDS_REVIEW and outcome.label is Label.NEEDS_REVIEW


@pytest.mark.parametrize(
    "claim", ["Shipping fees are never refunded.", "Shipping fees are always non-refundable."]
)
def test_an_absolute_claim_against_an_exception_needs_review(claim: str) -> None:
    evidence = "Shipping fees are non-refundable, except when the item arrived damaged."
    outcome = CHECK(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.NEEDS_REVIEW and "except when" in outcome.detail


def test_a_claim_no_evidence_sentence_restates_is_left_to_the_judge() -> None:
    assert CHECK("Zebras are not striped.", "The museum opened in 1998.") is None


def test_the_refund_examples_shipping_claim_is_contradicted() -> None:
    outcome = CHECK("Shipping fees are refunded as well.", _refund_evidence())
    assert outcome is not None and outcome.label is Label.CONTRADICTED
    assert "non-refundable" in outcome.detail
    for supported in (
        "Opened items can be returned within 14 days for store credit.",
        "Refunds go back to your original payment method within 5 to 7 business days.",
    ):
        passed = CHECK(supported, _refund_evidence())
        assert passed is None or passed.status is CheckStatus.PASSED


@pytest.mark.parametrize(
    ("claim", "evidence", "said", "instead"),
    [
        ("The store is open on Sundays.", "The store is closed on Sundays.", "open", "closed"),
        ("Prices increased in 2020.", "Prices decreased in 2020.", "increased", "decreased"),
        ("The patient tested positive.", "The patient tested negative.", "positive", "negative"),
        ("Turnout was higher this year.", "Turnout was lower this year.", "higher", "lower"),
        ("The package includes a charger.", "The package excludes a charger.", "includes",
         "excludes"),
        ("Most infected children were asymptomatic.", "Most infected children were symptomatic.",
         "asymptomatic", "symptomatic"),
        ("Sales doubled last year.", "Sales tripled last year.", "doubled", "tripled"),
        ("The firm reported a loss.", "The firm reported a profit.", "loss", "profit"),
        ("Unemployment is at its highest level.", "Unemployment is at its lowest level.",
         "highest", "lowest"),
        ("A receipt is unnecessary.", "A receipt is required.", "unnecessary", "required"),
        ("The feature is disabled by default.", "The feature is enabled by default.", "disabled",
         "enabled"),
        ("The store is offline only.", "The store is online only.", "offline", "online"),
        ("He was acquitted of fraud.", "He was convicted of fraud.", "acquitted", "convicted"),
        ("The new policy raised costs.", "The new policy lowered costs.", "raised", "lowered"),
        ("The trial began in spring 2021.", "The trial began in autumn 2021.", "spring",
         "autumn"),
        ("The dose is taken in the morning.", "The dose is taken in the evening.", "morning",
         "evening"),
        ("The firm fired 250 engineers.", "The firm hired 250 engineers.", "fired", "hired"),
        ("Most customers cancelled their contracts.", "Most customers renewed their contracts.",
         "cancelled", "renewed"),
        ("The senator opposed the bill.", "The senator supported the bill.", "opposed",
         "supported"),
        ("The study confirmed the link.", "The study refuted the link.", "confirmed", "refuted"),
        ("Side effects were severe.", "Side effects were mild and resolved.", "severe", "mild"),
        ("The tumour was malignant.", "The tumour was benign.", "malignant", "benign"),
    ],
)  # fmt: skip
def test_an_opposite_word_in_the_restated_sentence_is_contradicted(
    claim: str, evidence: str, said: str, instead: str
) -> None:
    outcome = CHECK(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.FAILED and outcome.label is Label.CONTRADICTED
    assert f"the claim says {said!r} where the evidence says {instead!r}" in outcome.detail


def test_a_word_read_with_and_without_a_prefix_counts_once_towards_the_overlap() -> None:
    # "ineffective" is one word: before, its two readings made the claim look half-matched
    # and the flip went to review instead of contradicted.
    claim = "The drug was ineffective in mice."
    evidence = "The drug was effective in mice."
    outcome = CHECK(claim, evidence)
    assert outcome is not None and outcome.label is Label.CONTRADICTED
