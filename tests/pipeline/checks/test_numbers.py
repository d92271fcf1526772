from decimal import Decimal

import pytest

from judge.pipeline.checks import NumberCheck
from judge.reading.normalise import normalise
from judge.reading.values.quantities import find_quantities
from judge.schemas import CheckStatus, Label

check = NumberCheck()


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ("The deal was worth $1.5M.", "The deal was worth 1,500,000 dollars."),
        ("Refunds take 30d.", "Refunds take 30 days."),
        ("Prices rose 5pc.", "Prices rose 5 per cent."),
        ("The fee is USD15.", "The fee is $15."),
        ("Returns are accepted within 30 days.", "Returns are accepted within thirty days."),
        ("It fell to −5 degrees.", "It fell to -5 degrees."),
        ("The pack holds １２ bottles.", "The pack holds 12 bottles."),
        ("Sales reached 1 500 000 units.", "Sales reached 1,500,000 units."),
        ("Sales reached 1.500.000 units.", "Sales reached 1500000 units."),
        ("Sales reached 1\u202f500 units.", "Sales reached 1,500 units."),
        ("Sales reached 1,\u200b500 units.", "Sales reached 1,500 units."),
        ("About 1.5 million people live there.", "The census counted 1,482,000 residents."),
        ("Turnout was 40%.", "Turnout was 39.6%."),
        ("Turnout was 40 per cent.", "Turnout was 40%."),
        ("Prize money was €76.25 million.", "A total of 76.25 million euros was paid."),
        ("The cap is 12.50 euros.", "Keep it under twelve euros and fifty cents."),
        ("The cap is 12.50 euros.", "No more than twelve dot fifty euros."),
        ("Half of the patients recovered.", "50% of patients recovered."),
        ("It came with a dozen eggs.", "It came with 12 eggs."),
        ("She finished 3rd.", "She finished third."),
        ("Popcorn is 14-20% water.", "Popcorn holds 14% to 20% water."),
        ("The attack rate was 12.4%.", "The attack rate was 12·4%."),
        ("The study had nearly 20,000 people.", "We screened 19,860 individuals."),
        ("The village has 42 homes.", "The village has ٤٢ homes."),
        ("It weighs 2.5 kg.", "It weighs 2.50 kg."),
        ("They spent 50 years in a dream.", "They spent fifty years in a dream."),
        ("Twenty-five euros is the price.", "The price is 25 euros."),
        ("Revenue was 3bn dollars.", "Revenue was $3 billion."),
        ("One in five adults smoke.", "20% of adults smoke."),
        ("Half a million people came.", "500,000 people came."),
        ("One-third of staff left.", "33% of staff left."),
        ("The drug cut deaths by half.", "The drug cut deaths by 50%."),
        ("Take one tablet twice a day.", "Take one tablet 2 times a day."),
        ("Take one tablet 2 times a day.", "Take one tablet twice daily."),
        ("The walk takes a 3-day hike.", "The hike takes three days."),
        ("It is a phase 3 trial.", "It is a phase III trial."),
        ("Patients had type II diabetes.", "Patients had type 2 diabetes."),
        ("A 10-fold increase was seen.", "A tenfold increase was seen."),
        ("The car reached 60 mph.", "The car reached 60 miles per hour."),
        # A lower-case "m" before a plural noun counts millions of it; before anything else it
        # is metres.
        ("The city has 1.4m people.", "The city has 1.4 million people."),
        ("The app drew 2m users.", "The app drew 2,000,000 users."),
        ("The wall is 1.4m high.", "The wall is 1.4 metres high."),
        ("Revenue was £3 million.", "Revenue was 3 million pounds."),
        ("Revenue was 3 million pounds.", "Revenue was £3m."),
        # A bare "5 pounds" is a price or a weight: it stands against either.
        ("The ticket costs £5.", "The ticket costs 5 pounds."),
        ("The parcel weighs 5 lb.", "The parcel weighs 5 pounds."),
        # Power, energy, frequency and data sizes, in symbols or words.
        ("The plant produces 10 MW.", "The plant produces 10 megawatts."),
        ("It has 16GB of RAM.", "It ships with 16 gigabytes of memory."),
        ("The chip runs at 3.2GHz.", "The chip runs at 3.2 gigahertz."),
        ("A 100W bulb.", "A 100 watt bulb."),
        # Things are counted in whole numbers: one dot group before what is counted is thousands.
        ("The survey had 1.000 respondents.", "The survey had 1,000 respondents."),
        ("The dose is 1.125 mg.", "The dose is 1.125 mg."),
        # A limit holds for values on its side of it, and near it.
        ("Less than 10% agreed.", "8% agreed."),
        ("Under 10% agreed.", "Fewer than one in ten agreed."),
        ("The library holds over 260,000 volumes.", "It holds 263,500 volumes."),
        ("No more than 20 people came.", "18 people came."),
        ("Tickets cost under $50.", "Tickets cost $45."),
        # A rate's period, however written; a side that names none is compatible.
        ("It costs $4.99 monthly.", "It costs $4.99 a month."),
        ("It costs $4.99/mo.", "It costs $4.99 per month."),
        ("Take 10 mg daily.", "Take 10 mg per day."),
        ("It costs $5 a month.", "It costs $5."),
        ("Prices were $5 a year ago.", "Prices were $5 in 2023."),
        ("Shipping is free on orders above $50.", "Shipping is free for orders over $50."),
        ("20 or more people came.", "23 people came."),
        ("At least 500 jobs will go.", "More than 600 jobs will go."),
        ("Over 20 years, prices rose.", "In the last 20 years, prices rose."),
        ("More than 20 people were hurt.", "Over 20 people were hurt."),
    ],
)
def test_same_number_in_another_format_passes(claim: str, evidence: str) -> None:
    outcome = check(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.PASSED, outcome.detail


@pytest.mark.parametrize(
    ("claim", "evidence", "missing"),
    [
        ("The dose is 1.5 mg.", "The dose is 15 mg.", "1.5 mg"),
        ("The dose is 15 mg.", "The dose is 1.5 mg.", "15 mg"),
        ("The deal was worth $1.5M.", "The deal was worth $15 million.", "1.5M"),
        ("Support rose 5 percentage points.", "Support was 5% of voters.", "5 percentage points"),
        ("It cost £9 million.", "It cost $9 million.", "9 million"),
        ("It fell to −5 degrees.", "It reached 5 degrees.", "-5"),
        ("Translated into 42 languages.", "Translated into forty-five languages.", "42"),
        ("The hall seats 2,500 people.", "The hall seats 2,400 people.", "2,500"),
        ("About 1.5 million people live there.", "The census counted 1.2 million.", "1.5 million"),
        ("The pack holds 12 bottles.", "The pack holds 21 bottles.", "12"),
        ("It lasted thirty days.", "It lasted 13 days.", "thirty days"),
        ("One in five adults smoke.", "40% of adults smoke.", "One in five"),
        ("Patients had type 1 diabetes.", "Patients had type II diabetes.", "1"),
        ("It is a phase IV trial.", "It is a phase 3 trial.", "IV"),
        ("A threefold increase was seen.", "A 2-fold increase was seen.", "threefold"),
        ("The car reached 70 mph.", "The car reached 60 miles per hour.", "70 mph"),
        ("The city has 1.4m people.", "The wall is 1.4 metres high.", "1.4m"),
        ("The wall is 1.4m high.", "The city has 1.4 million people.", "1.4m"),
        ("Revenue was £3 million.", "It shipped 3 million pounds of beef.", "3 million"),
        ("Revenue was £3 million.", "Revenue was 3 million dollars.", "3 million"),
        ("The survey had 1.000 respondents.", "The survey had one respondent.", "1.000"),
        ("The dose is 1.125 mg.", "The dose is 1,125 mg.", "1.125 mg"),
        # A limit fails on the other side, or far from it (a number about something else).
        ("Fewer than 10 people came.", "More than 10 people came.", "10"),
        ("More than 10% agreed.", "8% agreed.", "10%"),
        ("No more than 20 people came.", "25 people came.", "20"),
        ("At least 500 jobs will go.", "Up to 500 jobs will go.", "500"),
        ("Up to 500 jobs will go.", "At least 500 jobs will go.", "500"),
        ("At least 500 jobs will go.", "More than 400 jobs will go.", "500"),
        ("More than 20 people were hurt.", "5 firefighters and 95 people were there.", "20"),
        # Units and currency codes glued to the number: read, where they were names before.
        ("Refunds take 60d.", "Refunds take 30 days.", "60d"),
        ("Refunds take 6wks.", "Refunds take 4 weeks.", "6wks"),
        ("It lasted 3mo.", "It lasted 2 months.", "3mo"),
        ("Prices rose 7pc.", "Prices rose 5 per cent.", "7pc"),
        ("The fee is USD25.", "The fee is $15.", "25"),
        ("The fee is EUR25.", "The fee is 15 euros.", "25"),
        # How often, in a word, before a period of time.
        ("Take one tablet twice a day.", "Take one tablet three times a day.", "twice"),
        # A fraction that sizes a change is a quantity, as one before its whole is.
        ("The drug cut deaths by a third.", "The drug cut deaths by 50%.", "a third"),
        # "g" written apart from its number is grams too: the evidence's 5 is no bare number.
        ("The dose is 5 mg per day.", "The dose is 5 g per day.", "5 mg"),
        # The same number of another size of the same measure.
        ("The plant produces 10 GW.", "The plant produces 10 megawatts.", "10 GW"),
        ("It has 16 GB of storage.", "It has 16 TB of storage.", "16 GB"),
        ("The chip runs at 3.2 GHz.", "The chip runs at 3.2 MHz.", "3.2 GHz"),
        ("The home used 5 kWh.", "The home used 5 MWh.", "5 kWh"),
        # A limit before an amount's currency is read as one.
        ("Shipping is free under $50.", "Shipping is free for orders over $50.", "50"),
        ("Tickets cost over $50.", "Tickets cost $45.", "50"),
        # The same amount over another period.
        ("The app costs $4.99 a year.", "The app costs $4.99 a month, or $49 a year.", "4.99"),
        ("Take 10 mg a week.", "Take 10 mg per day.", "10 mg"),
    ],
)
def test_number_absent_from_evidence_fails(claim: str, evidence: str, missing: str) -> None:
    outcome = check(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.FAILED
    assert outcome.label is Label.NUMBER_MISMATCH
    assert outcome.missing == (missing,)
    assert missing in outcome.detail
    assert "cited evidence" in outcome.detail


@pytest.mark.parametrize(
    "claim",
    [
        "One of the best films ever made.",
        "No one came to the second meeting.",
        "COVID-19 spreads through droplets.",
        "The band toured in 2019.",
        "It was released on March 3, 2024.",
        "Order ORD-88213 has shipped.",
        "They bought a 3D printer.",
        "The carrier sells 5G phones.",
        "Refunds are issued once the item arrives.",
        "Sales were twice as high.",
        "The meeting started at 10:30.",
        "The first half of the season was slow.",
        "It took half an hour.",
        "Refunds are issued quickly [1][2, 3].",
        "1) The report covers refunds.",
        "Steps:\n1. Open the box.\n2. Take the kettle out.",
        "The options are the following: 1.",
    ],
)
def test_numbers_owned_by_other_checks_or_used_as_words_are_not_checked(claim: str) -> None:
    assert check(claim, "Nothing numeric here.") is None


@pytest.mark.parametrize(
    "claim",
    ["40. The body is made of steel.", "8) The report covers refunds.", "It costs, in euros: 40."],
)
def test_a_number_in_a_list_markers_place_that_counts_nothing_is_a_value(claim: str) -> None:
    # Only 1, or one more than the item before it, counts a list's items: "40." is an amount.
    outcome = check(claim, "The kettle costs 45 euros.")
    assert outcome is not None and outcome.status is CheckStatus.FAILED
    assert outcome.missing[0].startswith(("40", "8"))


def test_every_number_must_be_found() -> None:
    outcome = check("It has 12 rooms and 4 pools.", "It has 12 rooms and 3 pools.")
    assert outcome is not None
    assert outcome.missing == ("4",)


def test_unit_conversion_is_left_to_the_arithmetic_check() -> None:
    outcome = check("The walk takes 3 weeks.", "The walk takes 21 days.")
    assert outcome is not None
    assert outcome.status is CheckStatus.PASSED


@pytest.mark.parametrize(
    ("claim", "evidence", "status"),
    [
        ("Some 2,000 fans came.", "1,950 fans came.", CheckStatus.PASSED),
        ("2,000 fans came.", "1,960 fans came.", CheckStatus.PASSED),
        ("2,000 fans came.", "1,600 fans came.", CheckStatus.FAILED),
        ("It earned 1 million.", "It earned 500,000.", CheckStatus.FAILED),
        ("It earned about 2 million.", "It earned 1.6 million.", CheckStatus.FAILED),
        ("Turnout was 40%.", "Turnout was 38%.", CheckStatus.FAILED),
    ],
)
def test_rounding_is_bounded(claim: str, evidence: str, status: CheckStatus) -> None:
    # A round number may round its source, but never by a large relative error.
    outcome = check(claim, evidence)
    assert outcome is not None
    assert outcome.status is status


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("$1.5M", Decimal("1500000"), "cur:dollar"),
        ("1,500,000 dollars", Decimal("1500000"), "cur:dollar"),
        ("USD 250", Decimal("250"), "cur:dollar"),
        ("39.6 per cent", Decimal("39.6"), "%"),
        ("4.8 m", Decimal("4.8"), "length:m"),
        ("two and a half million", Decimal("2500000"), None),
        ("one hundred and five", Decimal("105"), None),
        ("twenty-first", Decimal("21"), None),
    ],
)
def test_quantities_read_value_and_unit(text: str, value: Decimal, unit: str | None) -> None:
    (quantity,) = find_quantities(normalise(text))
    assert quantity.value == value
    assert quantity.unit == unit


@pytest.mark.parametrize("text", ["I said it was fine.", "Vitamin D and vitamin C.", "Stage IV-B"])
def test_letters_are_roman_numerals_only_where_counts_are_written_so(text: str) -> None:
    assert find_quantities(normalise(text)) == []
