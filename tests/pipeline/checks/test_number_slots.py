import pytest

from judge.pipeline.checks.number_slots import kind, slot
from judge.pipeline.checks.quantities import find_quantities


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
    old, new = find_quantities(text)
    assert slot(text, new, [old, new], kind(new, text)) == {"tessera", "now", "requir"}
    assert "tessera" not in slot(text, old, [old, new], kind(old, text))


def test_a_slot_ends_at_the_next_number() -> None:
    text = "The hall seats 300 people and 12 staff"
    seats, staff = find_quantities(text)
    assert slot(text, staff, [seats, staff], kind(staff, text)) == set()
