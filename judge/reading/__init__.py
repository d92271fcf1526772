"""Reading a text once, for every exact check: its normalised form, sentences, clauses, word
forms and typed values (numbers, dates, times, money, identifiers, addresses, names), each
span with one owner, and the word lists behind them as data (:mod:`judge.reading.lexicon`).

    from judge.reading import read

    evidence = read("Unopened items may be returned within 30 days.")
    evidence.numbers, evidence.dates, evidence.sentences.rank("returns within 30 days")
"""

from __future__ import annotations

from judge.reading.reading import Reading, read

__all__ = ["Reading", "read", "warm_up"]


def warm_up() -> None:
    """Load what the first reading would: the language identifier's model, the CLDR data, the
    compiled patterns and the English parser (its files checked against their recorded
    digests), so that a service's first request is not the one that waits."""
    from judge.reading.syntax import load_parser

    load_parser()
    for text in (
        "The refund takes 30 days from 3 May 2024 at 9 a.m.",
        "Die Frist beträgt 30 Tage.",
    ):
        reading = read(text)
        _ = reading.numbers, reading.owned, reading.sentences
