"""Reading a text once, for every exact check: its normalised form, sentences, clauses, word
forms and typed values (numbers, dates, times, money, identifiers, addresses, names), each
span with one owner, and the word lists behind them as data (:mod:`judge.reading.lexicon`).

    from judge.reading import read

    evidence = read("Unopened items may be returned within 30 days.")
    evidence.numbers, evidence.dates, evidence.sentences.rank("returns within 30 days")
"""

from __future__ import annotations

from judge.reading.reading import Reading, read

__all__ = ["Reading", "read"]
