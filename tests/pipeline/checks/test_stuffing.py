import pytest

from judge.pipeline.checks import detect_citation_stuffing, over_cap

LEDGER = ["p1", "p2", "p3", "p4"]


@pytest.mark.parametrize(
    "citations",
    [
        [LEDGER, LEDGER, LEDGER],  # every claim cites every passage
        [LEDGER],  # the only claim cites every passage
        [["p1", "p2", "p3"], ["p2", "p3", "p4"], ["p1", "p3", "p4"]],  # each cites most
        [LEDGER, [], LEDGER],  # uncited claims do not break the pattern
    ],
)
def test_citations_spread_over_the_ledger_are_stuffing(citations: list[list[str]]) -> None:
    assert detect_citation_stuffing(citations, LEDGER) is True


@pytest.mark.parametrize(
    "citations",
    [
        [["p1"], ["p2"], ["p3"]],  # each claim its own passage
        [["p1", "p2"], ["p3", "p4"]],  # half the ledger is not most of it
        [LEDGER, ["p1"]],  # one specific claim breaks uniformity
        [["p1", "p2", "p3"]],  # a lone claim citing most, but not all, passages
        [[], []],
        [],
    ],
)
def test_targeted_citations_are_not_stuffing(citations: list[list[str]]) -> None:
    assert detect_citation_stuffing(citations, LEDGER) is False


def test_small_ledgers_are_never_stuffed() -> None:
    assert detect_citation_stuffing([["p1", "p2"], ["p1", "p2"]], ["p1", "p2"]) is False
    assert detect_citation_stuffing([["p1", "p2"], ["p1", "p2"]], ["p1", "p2"], min_passages=2)


def test_ids_outside_the_ledger_do_not_count() -> None:
    assert detect_citation_stuffing([["x", "y", "z", "p1"], ["x", "y", "z"]], LEDGER) is False


def test_over_cap_counts_distinct_passages() -> None:
    assert over_cap(["p1", "p2", "p3"], 2) is True
    assert over_cap(["p1", "p2"], 2) is False
    assert over_cap(["p1", "p1", "p1"], 2) is False


def test_over_cap_refuses_a_cap_below_one() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        over_cap(["p1"], 0)
