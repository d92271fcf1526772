import pytest

from judge.reading import read
from judge.reading.values.quantities import find_quantities
from judge.reading.values.slots import kind, mentions


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Tessera requires Python 3.9 or later", "number of python"),
        ("The trial enrolled 150 patients", "count of patient"),
        ("Refunds take 7 days", "time:day"),
        # A function word opening the sentence names nothing; nor does an ordinal.
        ("About 30 of them came", None),
        ("She came 3rd overall", None),
    ],
)
def test_kind(text: str, expected: str | None) -> None:
    (number,) = find_quantities(text)
    assert kind(number, text) == expected


def test_a_slot_stays_within_its_clause_and_drops_the_kind_word() -> None:
    text = "Python 3.9 is no longer supported; Tessera now requires Python 3.10 or later"
    old, new = mentions(text, find_quantities(text))
    assert new.kind == "number of python"
    assert new.words == {"tessera", "now", "requir"}
    assert old.words == {"no", "longer", "support"}


def test_a_slot_ends_at_the_next_number() -> None:
    text = "The hall seats 300 people and 12 staff"
    seats, staff = mentions(text, find_quantities(text))
    assert seats.words == {"hall", "seat"}
    assert staff.words == set()


def test_a_readings_mentions_are_those_of_every_number() -> None:
    text = "Refunds take 5 to 7 days. The hall seats 300 people."
    found = read(text).mentions
    assert [m.quantity.text for m in found] == [q.text for q in find_quantities(text)]
    assert read(text).mentions is found  # kept with the reading
