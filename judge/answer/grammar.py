"""The citation grammar: a reply that cites every sentence, or the fixed refusal sentence.

One shape, written three ways from the same parts: GBNF for llama.cpp's ``grammar`` field, a
regular expression for vLLM's ``structured_outputs.regex`` (every vLLM structured-output
backend reads regular expressions; not every one reads GBNF), and a Python pattern that checks
a reply after the fact (a server that ignored the constraint is caught, never trusted)::

    reply     = refusal | sentence (" " sentence){0, max_sentences - 1}
    sentence  = body " " citations "."          "Refunds take a week [S2]."
              | body "." " " citations          "Refunds take a week. [S2]"
    citations = ("[" id "]"){1, max_citations}  id: one of this request's ids, spelt exactly
    body      = no line break, no bracket, no ". ! ? …" (nor the CJK full stops), except a dot
                between two digits ("4.2"); it does not start with a blank

So each sentence the verifier's splitter can find ends with one or more citations of this
request's passages (the splitter gives citations after a full stop to the sentence before
them): a body cannot hold a sentence end (a terminator followed by a blank, a line break), and
its only way to end is through citations. The second form is there for the model that reaches
for a full stop: the stop is allowed, and then nothing but a citation. With the first form
alone, the embedded 1.5B model ran a sentence on (", which is correct according to ...")
where it wanted to stop. A dot
is allowed only inside a number: a looser rule (any dot not followed by a blank) would let a
model write ``end.The`` instead of citing. Abbreviations lose their dots (``US`` for
``U.S.``), which the checks read the same.

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from judge.answer.relevance import REFUSAL_SENTENCE, is_refusal
from judge.reading.sentences import split_sentences

__all__ = [
    "CitationGrammar",
    "Dialect",
    "cites_every_sentence",
    "gbnf_literal",
    "regex_literal",
]

# Characters a sentence body never holds: line breaks, brackets and sentence terminators.
_EXCLUDED = "\n\r[].!?…。！？"
_BLANKS = " \t"
# Regular-expression characters that stand for something else unless escaped.
_REGEX_SPECIAL = frozenset("\\.^$*+?()[]{}|")


class Dialect(StrEnum):
    """How an endpoint takes a constraint on a chat completion."""

    LLAMACPP = "llamacpp"  # llama.cpp's server: "grammar" (GBNF)
    VLLM = "vllm"  # vLLM: "structured_outputs": {"regex": ...}


@dataclass(frozen=True)
class CitationGrammar:
    """The replies allowed for one request: ``ids`` are the passage ids the generator cites
    (the aliases it was shown), ``refusal`` the one sentence that may stand alone."""

    ids: tuple[str, ...]
    max_sentences: int = 5
    max_citations: int = 4
    refusal: str = REFUSAL_SENTENCE

    def __post_init__(self) -> None:
        if not self.ids:
            raise ValueError("a citation grammar needs at least one passage id")
        if self.max_sentences < 1 or self.max_citations < 1:
            raise ValueError("max_sentences and max_citations must be at least 1")

    @classmethod
    def for_ids(
        cls, ids: Sequence[str], *, max_sentences: int = 5, max_citations: int = 4
    ) -> CitationGrammar:
        return cls(tuple(dict.fromkeys(ids)), max_sentences, max_citations)

    def gbnf(self) -> str:
        """The grammar in GBNF, llama.cpp's grammar format."""
        excluded = _gbnf_class(_EXCLUDED)
        first = _gbnf_class(_EXCLUDED + _BLANKS)
        more = self.max_sentences - 1
        more_rule = f'(" " sentence){{0,{more}}}' if more else ""
        ids = " | ".join(gbnf_literal(i) for i in self.ids)
        rules = [
            "root ::= refusal | answer",
            f"refusal ::= {gbnf_literal(self.refusal)}",
            f"answer ::= sentence {more_rule}".rstrip(),
            "sentence ::= first rest* ending",
            'ending ::= " " citations "." | "." " " citations',
            f"citations ::= citation{{1,{self.max_citations}}}",
            f"first ::= [^{first}] | decimal",
            f"rest ::= [^{excluded}] | decimal",
            'decimal ::= [0-9] "." [0-9]',
            'citation ::= "[" id "]"',
            f"id ::= {ids}",
        ]
        return "\n".join(rules) + "\n"

    def regex(self) -> str:
        """The grammar as a regular expression (plain groups only, for the widest support)."""
        decimal = r"[0-9]\.[0-9]"
        first = f"([^{_regex_class(_EXCLUDED + _BLANKS)}]|{decimal})"
        rest = f"([^{_regex_class(_EXCLUDED)}]|{decimal})"
        ids = "|".join(regex_literal(i) for i in self.ids)
        citations = f"(\\[({ids})\\]){{1,{self.max_citations}}}"
        sentence = f"{first}{rest}*( {citations}\\.|\\. {citations})"
        more = self.max_sentences - 1
        answer = f"{sentence}( {sentence}){{0,{more}}}" if more else sentence
        return f"({regex_literal(self.refusal)})|({answer})"

    def matches(self, text: str) -> bool:
        """Whether ``text`` is a reply this grammar allows."""
        return _compiled(self.regex()).fullmatch(text) is not None

    def request_fields(self, dialect: Dialect) -> dict[str, Any]:
        """The fields to add to a chat-completions request (``extra_body`` in the openai SDK)."""
        if dialect is Dialect.LLAMACPP:
            return {"grammar": self.gbnf()}
        return {"structured_outputs": {"regex": self.regex()}}


def cites_every_sentence(text: str, ids: Collection[str]) -> bool:
    """Whether every sentence of ``text`` cites at least one passage, and only ``ids``; the
    refusal sentence alone counts as citing (it is the one reply that needs no citation). The
    measure a grammar is meant to make always true, taken on any reply."""
    if is_refusal(text):
        return True
    known = frozenset(ids)
    sentences = split_sentences(text, known_ids=known, strict=False)
    return bool(sentences) and all(s.citations and known.issuperset(s.citations) for s in sentences)


def gbnf_literal(text: str) -> str:
    """``text`` as a GBNF string literal: quotes, backslashes and control characters escaped,
    everything else as it is (GBNF reads UTF-8)."""
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\r":
            out.append("\\r")
        elif char == "\t":
            out.append("\\t")
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\x{ord(char):02X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def regex_literal(text: str) -> str:
    """``text`` matched literally by a regular expression: the special characters escaped, and
    only those (some backends reject an escaped ordinary character such as ``\\#``)."""
    out = []
    for char in text:
        if char in _REGEX_SPECIAL:
            out.append("\\" + char)
        elif char in "\n\r\t":
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}[char])
        else:
            out.append(char)
    return "".join(out)


def _gbnf_class(chars: str) -> str:
    escapes = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "[": "\\[", "]": "\\]", "\\": "\\\\"}
    return "".join(escapes.get(c, c) for c in chars)


def _regex_class(chars: str) -> str:
    escapes = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "[": "\\[", "]": "\\]", "\\": "\\\\"}
    escapes["^"] = "\\^"
    escapes["-"] = "\\-"
    return "".join(escapes.get(c, c) for c in chars)


_PATTERNS: dict[str, re.Pattern[str]] = {}


def _compiled(pattern: str) -> re.Pattern[str]:
    compiled = _PATTERNS.get(pattern)
    if compiled is None:
        if len(_PATTERNS) > 256:
            _PATTERNS.clear()
        compiled = _PATTERNS[pattern] = re.compile(pattern)
    return compiled
