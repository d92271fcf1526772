import pytest

from judge.pipeline.checks import QuoteCheck
from judge.pipeline.checks.quotes import quoted_spans
from judge.schemas import CheckStatus, Label

check = QuoteCheck()


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ('She said "we will not back down".', "We will not back down, she said."),
        ("She said “we will  not back down.”", 'She said: "We will not back down."'),
        ("She said «we will not back down».", "we will not back down"),
        (
            "He called it a “yearning, ’80s college rock dream,”",
            "a yearning, '80s college rock dream",
        ),
        ('She said "we will not ... back down".', "We will not, under any pressure, back down."),
        ('She said "we [the union] will not back down".', "She said we will not back down."),
        ('" hound dog is great " he said', "Hound dog is great, he said."),
        (
            'He said "[a]nd when it attacks, you wake up".',
            'He said, "[a]nd when it attacks, you wake up."',
        ),
        ('He said "[a]nd when it attacks, you wake up".', "And when it attacks, you wake up."),
    ],
)
def test_quote_in_evidence_passes(claim: str, evidence: str) -> None:
    outcome = check(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.PASSED, outcome.detail


@pytest.mark.parametrize(
    ("claim", "evidence"),
    [
        ('She said "we will never back down".', "We will not back down, she said."),
        ('She said "we will not back down".', "We will not step back down."),
        ('She said "we will not ... back down".', "Back down? We will not."),
        (
            'It was "culturally, historically, or aesthetically significant".',
            "culturally significant",
        ),
        (
            'He said "[a]nd when it flees, you wake up".',
            'He said, "[a]nd when it attacks, you wake up."',
        ),
    ],
)
def test_altered_quote_fails(claim: str, evidence: str) -> None:
    outcome = check(claim, evidence)
    assert outcome is not None
    assert outcome.status is CheckStatus.FAILED
    assert outcome.label is Label.QUOTE_MISMATCH
    assert len(outcome.missing) == 1
    assert outcome.missing[0] in claim
    assert "cited evidence" in outcome.detail


@pytest.mark.parametrize(
    "claim",
    [
        'The so-called "experts" disagreed.',  # scare quotes
        'It was a "quick win" for them.',  # two words
        'Her album "Invasion of Privacy" came out.',  # a title in Title Case
        'A 12" pipe and a short "quoted thing here" part.',  # unpaired straight quote
        "No quotes at all.",
    ],
)
def test_short_quotes_titles_and_stray_marks_are_not_checked(claim: str) -> None:
    assert check(claim, "unrelated evidence") is None


def test_quotes_are_read_from_every_quote_style() -> None:
    claim = 'A said "one two three", B said “four five six”, C said «seven eight nine».'
    assert quoted_spans(claim) == ["one two three", "four five six", "seven eight nine"]
