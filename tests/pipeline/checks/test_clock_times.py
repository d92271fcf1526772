import pytest

from judge.pipeline.checks import NumberCheck, TimeCheck
from judge.reading.normalise import normalise
from judge.reading.values.times import find_times
from judge.schemas import CheckStatus, Label

check = TimeCheck()
EVIDENCE = (
    "The office opens at 9 am and closes at 5:30 pm. It has 10 staff. "
    "Alex: see you at 7 then! Kick-off is at 15:00. Midnight is the deadline."
)


@pytest.mark.parametrize(
    "claim",
    [
        "The office opens at 9am.",
        "The office opens at 09:00.",
        "The office opens at nine in the morning.",
        "The office opens at 9 o'clock.",
        "It closes at 5:30pm.",
        "It closes at 17:30.",
        "It closes at 5.30 p.m.",
        "They meet at 7 pm.",  # the evidence gives the hour alone
        "Kick-off is at 3pm.",
        "The deadline is 12 am.",
    ],
)
def test_the_same_time_written_differently_passes(claim: str) -> None:
    outcome = check(claim, EVIDENCE)
    assert outcome is not None and outcome.status is CheckStatus.PASSED, outcome


@pytest.mark.parametrize(
    ("claim", "absent"),
    [
        ("The office opens at 10am.", "10am"),  # glued: no check read it before
        ("The office opens at 10:00.", "10:00"),  # a colon: nor this
        ("It closes at 5 pm.", "5 pm"),
        ("It closes at 6:30 pm.", "6:30 pm"),
        ("They meet at 7:30 pm.", "7:30 pm"),  # the bare hour bears out 7 pm, not 7:30
        ("Kick-off is at 4 pm.", "4 pm"),
        ("The deadline is noon.", "noon"),
        ("The office opens at ten in the morning.", "ten in the morning"),
        ("They meet at 10 pm.", "10 pm"),  # "10 staff" counts people: no hour
        # The hour of "opens at 9 am" is that time's: no bare 9 that either half may take.
        ("The office opens at 9 pm.", "9 pm"),
        ("It closes at 5:30 am.", "5:30 am"),
    ],
)
def test_another_time_fails(claim: str, absent: str) -> None:
    outcome = check(claim, EVIDENCE)
    assert outcome is not None
    assert outcome.status is CheckStatus.FAILED
    assert outcome.label is Label.DATE_MISMATCH
    assert outcome.missing == (absent,)


@pytest.mark.parametrize(
    "text",
    [
        "The podcast reaches 00:12:34 before the break.",  # a timestamp
        "Her marathon time was 2:01:39.",
        "The ratio was 3:2.",
        "I am 5 and am happy.",
        "No times at all.",
    ],
)
def test_timestamps_ratios_and_words_are_not_times(text: str) -> None:
    assert find_times(normalise(text)) == []


def test_the_number_check_leaves_times_to_the_time_check() -> None:
    # Read once, as a time: the number check does not also ask for a bare "7".
    assert NumberCheck()("They meet at 7 pm.", "Kick-off is at 19:00.") is None
    assert check("They meet at 7 pm.", "Kick-off is at 19:00.") is not None
