"""Properties of the number check: normalisation never invents a match, and never loses one."""

from collections.abc import Callable
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from judge.pipeline.checks import NumberCheck
from judge.schemas import CheckStatus

check = NumberCheck()

_UNITS = ["", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
_TEENS = ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
          "eighteen", "nineteen"]  # fmt: skip
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def _spelled(n: int) -> str:
    if n < 10:
        return _UNITS[n]
    if n < 20:
        return _TEENS[n - 10]
    return _TENS[n // 10] + ("-" + _UNITS[n % 10] if n % 10 else "")


def _commas(n: int) -> str:
    return f"{n:,}"


def _dots(n: int) -> str:
    return f"{n:,}".replace(",", ".")


def _thin_spaces(n: int) -> str:
    return f"{n:,}".replace(",", "\u202f")


def _full_width(n: int) -> str:
    return "".join(chr(0xFF10 + int(d)) for d in f"{n:,}" if d != ",")


def _dollars(n: int) -> str:
    return f"${n:,}"


def _dollar_words(n: int) -> str:
    return f"{n:,} dollars"


def _millions(n: int) -> str:
    return f"{n / 1_000_000:g} million"


def _percent(n: int) -> str:
    return f"{n}%"


def _per_cent(n: int) -> str:
    return f"{n} per cent"


@dataclass(frozen=True)
class Renderer:
    write: Callable[[int], str]
    numbers: st.SearchStrategy[int]  # what a claim draws for it
    family: str  # renderings of one family may stand for each other
    can_write: Callable[[int], bool] = lambda n: True


# Four-digit numbers that read as years are written with separators in claims, so the number
# check, not the date check, owns them.
RENDERERS = [
    Renderer(_commas, st.integers(10_000, 10**9), "plain"),
    Renderer(_dots, st.integers(1_000_000, 10**9), "plain", lambda n: n < 1000 or n >= 10**6),
    Renderer(_thin_spaces, st.integers(1_000, 10**9), "plain"),
    Renderer(_full_width, st.integers(2, 999), "plain"),
    Renderer(_dollars, st.integers(2, 10**9), "money"),
    Renderer(_dollar_words, st.integers(2, 10**9), "money"),
    Renderer(
        _millions,
        st.integers(10, 9_999).map(lambda k: k * 100_000),
        "plain",
        lambda n: n >= 10**6 and n % 100_000 == 0,
    ),
    Renderer(_percent, st.integers(2, 100), "percent"),
    Renderer(_per_cent, st.integers(2, 100), "percent"),
    Renderer(_spelled, st.integers(2, 99), "plain", lambda n: 2 <= n <= 99),
]
# A bare number in the evidence may carry the unit its sentence gives elsewhere.
_STANDS_FOR = {"plain": {"plain"}, "money": {"money", "plain"}, "percent": {"percent"}}


def _far_from(value: int) -> st.SearchStrategy[int]:
    # Farther than any rounding or hedge allows, and not the same digits at another scale.
    return st.integers(2, 10**10).filter(
        lambda other: (
            abs(other - value) > value // 4 + 1
            and all(other != value * 10**k and other * 10**k != value for k in range(1, 10))
        )
    )


@settings(max_examples=250, deadline=None, database=None)
@given(data=st.data())
def test_a_number_absent_from_the_evidence_always_fails(data: st.DataObject) -> None:
    renderer = data.draw(st.sampled_from(RENDERERS))
    value = data.draw(renderer.numbers)
    written = renderer.write(value)
    others = data.draw(st.lists(_far_from(value), min_size=1, max_size=4))
    usable = [r for r in RENDERERS if all(r.can_write(o) for o in others)]
    other_renderer = data.draw(st.sampled_from(usable))
    # Joined by "; ": after ", " a group of three digits reads as the thousands of the number
    # before it ("162 950, 101" holds 950,101), which a claim of "1,000,000" rounds to.
    evidence = "The report lists " + "; ".join(other_renderer.write(o) for o in others) + "."
    outcome = check(f"The report says {written} were counted.", evidence)
    assert outcome is not None, written
    assert outcome.status is CheckStatus.FAILED, (written, evidence)
    assert outcome.missing


@settings(max_examples=150, deadline=None, database=None)
@given(data=st.data())
def test_the_same_number_in_another_format_passes(data: st.DataObject) -> None:
    renderer = data.draw(st.sampled_from(RENDERERS))
    value = data.draw(renderer.numbers)
    written = renderer.write(value)
    usable = [
        r for r in RENDERERS if r.family in _STANDS_FOR[renderer.family] and r.can_write(value)
    ]
    evidence = f"Officials counted {data.draw(st.sampled_from(usable)).write(value)} this year."
    outcome = check(f"The report says {written} were counted.", evidence)
    assert outcome is not None, written
    assert outcome.status is CheckStatus.PASSED, (written, evidence)
