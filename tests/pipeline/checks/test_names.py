"""The name check: a name of the claim that the evidence replaces with another where it restates
the claim fails; every other way of writing the same name passes; a name the evidence leaves
out, with nothing in its place, is left to the judge."""

from __future__ import annotations

import pytest

from judge.pipeline.checks.names import NameCheck
from judge.reading.values.names import name_forms, name_runs
from judge.schemas import CheckStatus, Label

CHECK = NameCheck()


@pytest.mark.parametrize(
    ("claim", "evidence", "said", "instead"),
    [
        (
            "We show a direct link between attention and neural gain in EOG-SSVEP power.",
            "Our results show a direct link between attention and neural gain in EEG-SSVEP power.",
            "EOG-SSVEP",
            "EEG-SSVEP",
        ),
        (
            "It worked with the Illinois Coalition Against Sexual Assault on the new law.",
            "It worked with the Illinois Coalition Against Domestic Violence on the new law.",
            "Illinois Coalition Against Sexual Assault",
            "Illinois Coalition Against Domestic Violence",
        ),
        (
            "Justin Sun said the exchange moved the funds overnight.",
            "Justin Bieber said the exchange moved the funds overnight.",
            "Justin Sun",
            "Justin Bieber",
        ),
        (
            "Halvard Shipping accounted for 14% of revenue.",
            "Its largest customer, Nordvik Energy, accounted for 14% of revenue.",
            "Halvard Shipping",
            "Nordvik Energy",
        ),
        (
            "In Wales, 9 per cent of young women are affected by illiteracy.",
            "In England, 9 per cent of young women are affected by illiteracy.",
            "Wales",
            "England",
        ),
        (
            "The Bank of Japan raised the cap, said Ann Okafor of Nomura.",
            "The Bank of Japan raised the cap, said Ann Okafor of Mizuho.",
            "Ann Okafor of Nomura",
            "Ann Okafor of Mizuho",
        ),
    ],
)
def test_a_name_the_evidence_replaces_fails(
    claim: str, evidence: str, said: str, instead: str
) -> None:
    outcome = CHECK(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.FAILED, outcome.detail
    assert outcome.label is Label.NAME_MISMATCH
    assert f"{said!r}" in outcome.detail and f"{instead!r}" in outcome.detail
    assert outcome.missing


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # acronyms and their expansions, either way round
        (
            "The Bank of Japan raised the yield cap to 0.5%.",
            "The BOJ raised the yield cap to 0.5%.",
        ),
        (
            "The BOJ raised the yield cap to 0.5%.",
            "The Bank of Japan raised the yield cap to 0.5%.",
        ),
        (
            "The summit was held in NYC on Monday.",
            "The summit was held in New York City on Monday.",
        ),
        (
            "The World Health Organization declared a pandemic in March.",
            "The WHO declared a pandemic in March.",
        ),
        # countries and their demonyms
        ("The U.S. economy grew a lot last year.", "The American economy grew a lot last year."),
        ("The American economy grew a lot last year.", "The U.S. economy grew a lot last year."),
        (
            "Chinese officials confirmed the deal on Monday.",
            "Officials in China confirmed the deal.",
        ),
        ("The French president visited the plant.", "The president of France visited the plant."),
        ("Britain's prime minister resigned after the vote.", "The UK prime minister resigned."),
        # titles, possessives, hyphens, word forms, spellings, case
        (
            "President Biden said the plan would cut costs.",
            "Mr. Biden said the plan would cut costs.",
        ),
        ("Abong Mbang is the seat of the division.", "Abong-Mbang is the seat of the division."),
        (
            "The Democrats won the vote in the Senate.",
            "The Democratic party won the vote in the Senate.",
        ),
        (
            "Colonel Qaddafi ruled the country for decades.",
            "Colonel Gaddafi ruled the country for decades.",
        ),
        (
            "Patients with Long COVID were not working.",
            "Patients with long covid were not working.",
        ),
        (
            "Apple's shares rose after Apple Inc. reported.",
            "Shares of Apple rose after it reported.",
        ),
    ],
)
def test_the_same_name_written_another_way_passes(claim: str, evidence: str) -> None:
    outcome = CHECK(claim, evidence)
    assert outcome is None or outcome.status is CheckStatus.PASSED, outcome.detail


def test_a_name_left_out_with_nothing_in_its_place_is_left_to_the_judge() -> None:
    # News claims name the journal an abstract leaves out: for the judge to weigh.
    outcome = CHECK(
        "A study in The Lancet found that masks cut transmission by half.",
        "This study found that masks cut transmission by half.",
    )
    assert outcome is not None
    assert outcome.status is CheckStatus.PASSED
    assert "'Lancet'" in outcome.detail and "left to the judge" in outcome.detail


def test_a_replacement_outside_the_restating_sentence_is_no_swap() -> None:
    evidence = "Masks cut transmission by half. The study was run by Oxford University."
    outcome = CHECK("A study at Harvard University found masks cut transmission by half.", evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.PASSED, outcome.detail


def test_a_weaker_restatement_needs_review() -> None:
    outcome = CHECK(
        "The funds were meant to back B-peg PAX belonging to the exchange's customers.",
        "Binance reportedly transferred the funds that backed $1 billion worth of B-peg USDC "
        "belonging to its customers, to multiple hedge funds.",
    )
    assert outcome is not None
    assert outcome.status is CheckStatus.NEEDS_REVIEW
    assert outcome.label is Label.NEEDS_REVIEW


def test_claims_without_names_are_not_looked_at() -> None:
    assert CHECK("Refunds take 14 days.", "Refunds take 14 days, said Ann Smith.") is None
    # A sentence's capitalised first word is no name on its own, an acronym is.
    assert CHECK("Researchers found it works.", "Scientists found it works.") is None
    assert CHECK("NASA found it works.", "NASA found it works.") is not None


def test_name_runs_read_connectors_titles_and_sentence_starts() -> None:
    runs = name_runs("Shares of Nordvik Energy rose, Mr. Biden told the U.S. Senate.")
    assert [run.words for run in runs] == [("Nordvik", "Energy"), ("Biden",), ("U.S.", "Senate")]
    assert [run.words for run in name_runs("Sam Bankman-Fried's Alameda Research.")] == [
        ("Sam", "Bankman-Fried"),
        ("Alameda", "Research"),
    ]
    assert name_runs("The Bank of Japan said")[0].words == ("Bank", "of", "Japan")
    assert name_runs("In England, 9 per cent")[0].after == ("9", "per")


def test_name_forms_hold_the_forms_a_name_takes() -> None:
    forms = name_forms("The BOJ met in Peru with the U.S. delegation; Zelenskyy spoke.")
    assert forms.holds("Peruvian")
    assert forms.holds("US") and forms.holds("American")
    assert forms.holds("Zelensky")
    assert not forms.holds("Japan")
    assert not forms.holds("EOG") and name_forms("EEG power").holds("EEG")


@pytest.mark.parametrize(
    ("claim", "evidence", "said", "instead"),
    [
        (
            "Store credit can be used in any Plus store.",
            "Return labels are free for members of the Plus programme. Store credit from "
            "returns does not expire and can be used in any Brightline store.",
            "Plus",
            "Brightline",
        ),
        (
            "Halvard Shipping accounted for 14% of revenue.",
            "Halvard Shipping reported revenue of 2.3 billion. Its largest customer, Nordvik "
            "Energy, accounted for 14% of revenue.",
            "Halvard Shipping",
            "Nordvik Energy",
        ),
        (
            "Tessera now requires Orbis 3.10 or later.",
            "Tessera now requires Python 3.10 or later. Tessera Cloud customers are upgraded "
            "by the Orbis team.",
            "Orbis",
            "Python",
        ),
    ],
)
def test_a_name_moved_from_another_sentence_fails(
    claim: str, evidence: str, said: str, instead: str
) -> None:
    outcome = CHECK(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.FAILED
    assert outcome.label is Label.NAME_MISMATCH
    assert repr(said) in outcome.detail and repr(instead) in outcome.detail
    assert instead in outcome.evidence_sentence and said not in outcome.evidence_sentence


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        # Another sentence says the same of the claim's name.
        (
            "Store credit can be used in any Plus store.",
            "Store credit can be used in any Brightline store. Store credit can be used in "
            "any Plus store too.",
        ),
        # The restating sentence has another name, but not in the claim name's place.
        (
            "Dr. Osei's group works from the Tromsø campus.",
            "Dr. Amara Osei has led the Battery Materials Group since 2021. The Battery "
            "Materials Group works from the Tromsø campus.",
        ),
        # Too little context to read a place from.
        ("Halvard won.", "Halvard Shipping reported revenue. Nordvik won."),
    ],
)
def test_a_name_in_its_own_place_or_said_of_it_elsewhere_passes(claim: str, evidence: str) -> None:
    outcome = CHECK(claim, evidence)
    assert outcome is None or outcome.status is CheckStatus.PASSED
