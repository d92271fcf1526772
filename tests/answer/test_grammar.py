"""The citation grammar: built from a request's ids, the same shape as GBNF, as a regular
expression and as the check of a reply; odd ids escaped in each."""

from __future__ import annotations

import re

import pytest

from judge.answer.grammar import (
    CitationGrammar,
    Dialect,
    cites_every_sentence,
    gbnf_literal,
    regex_literal,
)
from judge.answer.relevance import REFUSAL_SENTENCE

GRAMMAR = CitationGrammar.for_ids(["S1", "S2"], max_sentences=3, max_citations=2)


def gbnf_unescape(literal: str) -> str:
    """Read a GBNF string literal back, by llama.cpp's escapes (\\\\ \\" \\n \\r \\t \\xHH)."""
    assert literal.startswith('"') and literal.endswith('"')
    body, out, i = literal[1:-1], [], 0
    while i < len(body):
        char = body[i]
        assert char != '"', "an unescaped quote ends the literal early"
        if char != "\\":
            out.append(char)
            i += 1
            continue
        code = body[i + 1]
        if code == "x":
            out.append(chr(int(body[i + 2 : i + 4], 16)))
            i += 4
            continue
        out.append({"\\": "\\", '"': '"', "n": "\n", "r": "\r", "t": "\t"}[code])
        i += 2
    return "".join(out)


@pytest.mark.parametrize(
    "reply",
    [
        "Refunds take 5 to 7 business days [S2].",
        "Unopened items can be returned within 30 days [S1]. Refunds go back to the card [S2].",
        "The fee is 4.50 euros, paid once [S1][S2].",
        "Returns are free [S1]. Refunds take a week [S2]. Fees are not refunded [S1].",
        "Returns are free. [S1] Refunds take a week [S2].",
        "Returns are free. [S1][S2] Refunds take a week. [S2]",
        REFUSAL_SENTENCE,
    ],
)
def test_replies_that_cite_every_sentence_are_allowed(reply: str) -> None:
    assert GRAMMAR.matches(reply)
    assert cites_every_sentence(reply, ["S1", "S2"])


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("Refunds take 5 to 7 business days.", "no citation"),
        ("Returns are free. Refunds take a week [S2].", "the first sentence cites nothing"),
        ("Returns are free [S1]. Refunds take a week.", "the last sentence cites nothing"),
        ("Refunds take a week [S3].", "an id that is not in the request"),
        ("Refunds take a week [s1].", "ids are spelt exactly"),
        ("Refunds take a week [S1, S2].", "one id per bracket"),
        ("Refunds take a week [S1][S2][S1].", "more citations than a claim may carry"),
        ("A [S1]. B [S1]. C [S1]. D [S1].", "more sentences than allowed"),
        ("Refunds take a week [S1].\nReturns are free [S2].", "a line break"),
        ("Refunds take a week. [S1].", "a second full stop"),
        ("Refunds take a week.[S1]", "no blank between the stop and the citation"),
        ("Refunds, e.g. by card, take a week [S1].", "a dot before a blank inside a sentence"),
        (f"{REFUSAL_SENTENCE} Refunds take a week [S1].", "the refusal sentence is alone"),
        (" Refunds take a week [S1].", "a leading blank"),
        ("", "nothing"),
    ],
)
def test_replies_outside_the_grammar_are_not(reply: str, why: str) -> None:
    assert not GRAMMAR.matches(reply), why


def test_the_gbnf_names_each_id_and_the_bounds() -> None:
    gbnf = GRAMMAR.gbnf()
    rules = dict(line.split(" ::= ", 1) for line in gbnf.strip().splitlines())
    assert rules["root"] == "refusal | answer"
    assert rules["refusal"] == gbnf_literal(REFUSAL_SENTENCE)
    assert rules["id"] == '"S1" | "S2"'
    assert rules["answer"] == 'sentence (" " sentence){0,2}'
    assert rules["sentence"] == "first rest* ending"
    assert rules["ending"] == '" " citations "." | "." " " citations'
    assert rules["citations"] == "citation{1,2}"
    # Every rule used is defined.
    bare = re.sub(r'"(?:[^"\\]|\\.)*"|\[(?:[^\]\\]|\\.)*\]', " ", " ".join(rules.values()))
    assert set(re.findall(r"[a-z]+", bare)) <= set(rules)


def test_one_sentence_leaves_no_repetition_rule() -> None:
    grammar = CitationGrammar.for_ids(["S1"], max_sentences=1)
    assert "answer ::= sentence\n" in grammar.gbnf()
    assert grammar.matches("Refunds take a week [S1].")
    assert not grammar.matches("Refunds take a week [S1]. Returns are free [S1].")


def test_the_request_fields_of_each_dialect() -> None:
    assert GRAMMAR.request_fields(Dialect.LLAMACPP) == {"grammar": GRAMMAR.gbnf()}
    vllm = {"structured_outputs": {"regex": GRAMMAR.regex()}}
    assert GRAMMAR.request_fields(Dialect.VLLM) == vllm


ODD_IDS = ['doc"7', "a\\b", "x|y", "p(1)", "doc7#3", "ü-1", "*", "s36-38", "v1.2", "^$", "{2}"]


def test_odd_ids_are_escaped_in_gbnf() -> None:
    grammar = CitationGrammar.for_ids(ODD_IDS)
    line = next(x for x in grammar.gbnf().splitlines() if x.startswith("id ::= "))
    literals = re.findall(r'"(?:[^"\\]|\\.)*"', line.removeprefix("id ::= "))
    assert [gbnf_unescape(lit) for lit in literals] == ODD_IDS
    assert gbnf_literal('a"b\\c\nd\x01') == '"a\\"b\\\\c\\nd\\x01"'


@pytest.mark.parametrize("odd", ODD_IDS)
def test_odd_ids_are_matched_literally(odd: str) -> None:
    grammar = CitationGrammar.for_ids([odd, "S2"])
    assert grammar.matches(f"Refunds take a week [{odd}].")
    assert re.fullmatch(regex_literal(odd), odd)
    # A character of the id is no wildcard and no alternation.
    assert not grammar.matches("Refunds take a week [x].")
    assert not grammar.matches("Refunds take a week [S3].")


def test_regex_escapes_only_what_is_special() -> None:
    # Some structured-output backends reject an escaped ordinary character such as \#.
    assert regex_literal("doc7#3") == "doc7#3"
    assert regex_literal("a.b|c") == "a\\.b\\|c"


def test_a_grammar_needs_an_id() -> None:
    with pytest.raises(ValueError, match="at least one passage id"):
        CitationGrammar.for_ids([])


def test_citing_every_sentence_is_measured_on_any_reply() -> None:
    ids = ["S1", "S2"]
    assert cites_every_sentence("Returns are free. [S1] Refunds take a week [S2].", ids)
    assert not cites_every_sentence("Returns are free and refunds take a week.", ids)
    assert not cites_every_sentence("Returns are free [S1]. Refunds take a week.", ids)
    assert not cites_every_sentence("Returns are free [S7].", ids)
    assert not cites_every_sentence("", ids)
    assert cites_every_sentence(f"{REFUSAL_SENTENCE} [S1]", ids)
