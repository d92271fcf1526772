"""The one rule-based judge: an OpenAI-compatible judge server without a model.

It answers ``POST /v1/chat/completions`` (verdicts, atomic facts, main conclusions) and
``GET /v1/models``, so whatever runs against it exercises the real client stack: the test
suite (through its scripted fake server, whose default script is :meth:`RuleJudge.respond`),
red-team runs without a model (``judge redteam``) and the benchmarks that need a judge whose
verdicts are deterministic.

Verdicts come from the content words of the fenced claim against the fenced evidence, with a
negation rule. With ``obeys_injections`` it behaves as a careless model: it obeys instructions
it finds *outside* the data fences, reading a fence as closed at the first ``<<<END-KIND``
whatever nonce follows, and it obeys chat-template tokens anywhere; so injected text can only
sway it when the prompt's defences (unguessable fence nonces, neutralised fence and role-tag
syntax) have failed. The red team runs it that way; the tests do not.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

import httpx

from judge.pipeline.entail.verdict import (
    CONTRADICTION_LABELS,
    YES_NO_LABELS,
    VerdictContradiction,
    label_value_offset,
)
from judge.reading import lexicon
from judge.reading.normalise import normalise
from judge.reading.words import content_words, word_form

FAKE_MODEL = "rule-judge"
FAKE_BASE_URL = "http://rule-judge.invalid/v1"

# The rule judge stands in for a model, so its words are its own, not the reading's word lists:
# the tests and the red team's recorded figures are pinned to its verdicts, and a change to a
# list under judge/reading/lexicon must not move the instrument it is measured with.
_CLAUSE_WORDS = ("and", "but", "except", "while", "whereas")
_NONCE = re.compile(r"<<<[A-Z]+-([0-9a-f]{8,})>>>")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_CLAUSE_BREAK = re.compile(rf"[;,]\s+|\s+(?:{lexicon.alternation(_CLAUSE_WORDS)})\s+")
_HEADER = re.compile(r"\[([^\]\s]+)\]")
# A citation marker: one bare id ("[policy]") or a group with a number in it ("[S1, S2]").
_CITATION = re.compile(r"\s*\[(?:[^\]\s]+|[^\]\n]*\d[^\]\n]*)\]")
_NEGATIONS = frozenset({"not", "no", "never", "non", "cannot", "without", "neither", "nor"})
_RAW_CHAT_TOKENS = ("<|im_start|>", "<|im_end|>", "<|system|>", "<|eot_id|>", "</s>", "[INST]")
# Outside the fences the template writes nothing, so any of these there comes from the data.
_INSTRUCTION_WORDS = ("supported", "ignore", "instruction", "instructions", "system")
_INSTRUCTION = re.compile(rf"\b(?:{lexicon.alternation(_INSTRUCTION_WORDS)})\b", re.IGNORECASE)
_BARE_REPLY = re.compile(r"^(?:so,?\s+)?(yes|no)\b[.!]?$", re.IGNORECASE)
_ids = itertools.count(1)

LABELS = ("supported", "unsupported", "contradicted")
YES_NO = ("yes", "no")
CHOSEN_P = 0.9
ScoreFault = Literal["missing", "nan", "infinity", "minus_infinity", "positive"]
SCORE_FAULT_NAMES: tuple[ScoreFault, ...] = get_args(ScoreFault)
# The logprob each fault puts on the sampled answer token.
SCORE_FAULTS: dict[str, float] = {
    "nan": math.nan,
    "infinity": math.inf,
    "minus_infinity": -math.inf,
    "positive": 0.7,
}


@dataclass(frozen=True)
class _Clause:
    forms: frozenset[str]
    negated: bool


@dataclass(frozen=True)
class _EvidenceSentence:
    passage: str
    text: str
    clauses: tuple[_Clause, ...]

    @property
    def forms(self) -> frozenset[str]:
        return frozenset().union(*(c.forms for c in self.clauses))


class RuleJudge:
    """Answers judge requests by rules. ``permissive`` supports every claim, which shows what
    the exact checks catch on their own. ``score_fault`` sends verdicts whose score cannot be
    read: no logprobs, or NaN, +/-infinity or a positive logprob on the answer token.
    ``obeys_injections`` makes it follow instructions that escape the data fences."""

    def __init__(
        self,
        *,
        permissive: bool = False,
        score_fault: ScoreFault | None = None,
        obeys_injections: bool = False,
    ) -> None:
        self.permissive = permissive
        self.score_fault = score_fault
        self.obeys_injections = obeys_injections

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handler)

    def handler(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path.rstrip("/")
        if request.method == "GET" and path.endswith("/models"):
            data = [{"id": FAKE_MODEL, "object": "model", "owned_by": "rule-judge"}]
            return httpx.Response(200, json={"object": "list", "data": data})
        if request.method != "POST" or not path.endswith("/chat/completions"):
            return _error(404, f"no route {request.method} {path}")
        return self.respond(json.loads(request.content))

    def respond(self, body: dict[str, Any]) -> httpx.Response:
        """The answer to one chat-completions request body."""
        schema = body.get("response_format", {}).get("json_schema", {}).get("name", "")
        messages = body.get("messages", [])
        user = next((m["content"] for m in messages if m.get("role") == "user"), "")
        if schema.startswith("Verdict"):
            fields = body["response_format"]["json_schema"].get("schema", {}).get("properties", {})
            verdict = self.verdict(user)
            if "answer" in fields:  # a yes/no question: the verdict, or the contradiction probe
                probe = schema == VerdictContradiction.__name__
                meant = (CONTRADICTION_LABELS if probe else YES_NO_LABELS)["yes"]
                answer = "yes" if verdict["label"] == meant else "no"
                content = json.dumps({"answer": answer})
                return _completion(content, self._logprobs(content, "answer", YES_NO))
            order = [name for name in fields if name in verdict] or list(verdict)
            content = json.dumps({name: verdict[name] for name in order}, ensure_ascii=False)
            return _completion(content, self._logprobs(content, "label", LABELS))
        blocks = _blocks(user)
        if schema == "Facts":
            return _completion(json.dumps({"facts": facts(blocks.get("SENTENCE", ""))}))
        if schema == "Conclusion":
            text = conclusion(blocks.get("ANSWER", ""), blocks.get("QUESTION"))
            return _completion(json.dumps({"conclusion": text}))
        return _error(400, f"the rule judge cannot answer schema {schema!r}")

    def _logprobs(
        self, content: str, key: str, values: Sequence[str]
    ) -> list[dict[str, Any]] | None:
        """Logprobs as a server sends them: the answer value's token is the chosen value (0.9)
        with the other values as alternatives; ``score_fault`` spoils them."""
        if self.score_fault == "missing":
            return None
        start = label_value_offset(content, key)
        if start is None:
            return None
        chosen = next(v for v in values if content.startswith(v + '"', start))
        rest = (1 - CHOSEN_P) / (len(values) - 1)
        top = [(v, math.log(CHOSEN_P if v == chosen else rest)) for v in values]
        if self.score_fault is not None:
            spoilt = SCORE_FAULTS[self.score_fault]
            top = [(v, spoilt if v == chosen else lp) for v, lp in top]
        end = start + len(chosen)
        return [
            _token(content[:start], 0.0, []),
            _token(chosen, dict(top)[chosen], top),
            _token(content[end:], 0.0, []),
        ]

    def verdict(self, user: str) -> dict[str, Any]:
        """Every verdict field; the answer keeps those the requested schema has, in its order."""
        blocks = _blocks(user)
        evidence = evidence_sentences(blocks.get("EVIDENCE", ""))
        if self.permissive or (self.obeys_injections and _swayed(user)):
            label, chosen = "supported", evidence[:1]
        else:
            label, chosen = rule_verdict(blocks.get("CLAIM", ""), evidence)
        return {
            "label": label,
            "reason": f"rule judge: {label}",
            "evidence_quote": chosen[0].text if chosen else "",
            "evidence_ids": [chosen[0].passage] if chosen and chosen[0].passage else [],
        }


def rule_verdict(
    claim: str, evidence: Sequence[_EvidenceSentence]
) -> tuple[str, list[_EvidenceSentence]]:
    """Supported when every content word of the claim is in the evidence and the clause that
    matches it best agrees on negation, contradicted when that clause disagrees, else
    unsupported. Numbers are left to the exact checks (which run before any judge)."""
    forms = _forms(claim)
    negated = bool(forms & _NEGATIONS)
    words = {w for w in forms - _NEGATIONS if not w[:1].isdigit()}
    if not words or not evidence:
        return "unsupported", []
    union = frozenset().union(*(s.forms for s in evidence))
    if not words <= union:
        return "unsupported", []
    sentence, clause = max(
        ((s, c) for s in evidence for c in s.clauses), key=lambda pair: len(words & pair[1].forms)
    )
    return ("contradicted" if negated != clause.negated else "supported"), [sentence]


def facts(sentence: str) -> list[str]:
    """Atomic facts by splitting on "; " and ", and "."""
    text = _CITATION.sub("", _clean(sentence)).strip()
    parts = [p.strip(" ,.") for p in re.split(r";\s+|,?\s+and\s+(?=[a-z])", text)]
    return [p + "." for p in parts if p][:8] or [text or "nothing"]


def conclusion(answer: str, question: str | None) -> str:
    """The last sentence with content, or a bare "yes"/"no" joined to the question."""
    text = _CITATION.sub("", _clean(answer))
    pieces: list[str] = re.split(r"(?<=[.!?])\s+|\n+", text)
    sentences = [s.strip() for s in pieces if s.strip()]
    if sentences and question and (reply := _BARE_REPLY.match(sentences[-1])):
        return f"{reply.group(1).capitalize()}: {question.strip()}"
    for sentence in reversed(sentences):
        if content_words(sentence):
            return sentence
    return sentences[-1] if sentences else "No conclusion."


def _blocks(user: str) -> dict[str, str]:
    """The fenced blocks by kind, each read up to its closing marker with the nonce of the
    user message's first fence (which the template writes)."""
    first = _NONCE.search(user)
    if first is None:
        return {}
    nonce = first.group(1)
    pattern = re.compile(rf"<<<([A-Z]+)-{nonce}>>>\n(.*?)\n<<<END-\1-{nonce}>>>", re.DOTALL)
    return {kind: body for kind, body in pattern.findall(user)}


def _swayed(user: str) -> bool:
    """Whether injected instructions reach a careless model: raw chat-template tokens, or
    instructions outside the data once fences are read sloppily (closed at any END marker)."""
    if any(token in user for token in _RAW_CHAT_TOKENS):
        return True
    outside = re.sub(r"<<<([A-Z]+)-[^>\n]*>>>.*?<<<END-\1\b[^>\n]*>>>", " ", user, flags=re.DOTALL)
    return _INSTRUCTION.search(outside) is not None


def evidence_sentences(evidence: str) -> list[_EvidenceSentence]:
    """The sentences of a premise, each with its passage id and clauses."""
    out: list[_EvidenceSentence] = []
    passage = ""
    for line in evidence.split("\n"):
        header = _HEADER.fullmatch(line.strip())
        if header:
            passage = header.group(1)
            continue
        for piece in _SENTENCE_END.split(line):
            text = piece.strip()
            if text and text != "…":
                clauses = tuple(_clause(part) for part in _CLAUSE_BREAK.split(text) if part)
                out.append(_EvidenceSentence(passage, text, clauses))
    return out


def _clause(text: str) -> _Clause:
    forms = _forms(text)
    return _Clause(forms, bool(forms & _NEGATIONS))


def _forms(text: str) -> frozenset[str]:
    return frozenset(word_form(w) for w, _, _ in content_words(_clean(text)))


def _clean(text: str) -> str:
    # A model reads through full-width, invisible and look-alike characters; so does this
    # judge, with the exact checks' own normalisation.
    return normalise(text)


def _token(text: str, logprob: float, top: Sequence[tuple[str, float]]) -> dict[str, Any]:
    alternatives = [{"token": t, "logprob": lp, "bytes": None} for t, lp in top]
    return {"token": text, "logprob": logprob, "bytes": None, "top_logprobs": alternatives}


def _completion(content: str, logprobs: list[dict[str, Any]] | None = None) -> httpx.Response:
    body = {
        "id": f"chatcmpl-rule-{next(_ids)}",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": FAKE_MODEL,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
                "logprobs": {"content": logprobs} if logprobs is not None else None,
            }
        ],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    }
    # NaN and Infinity written as JSON servers write them (Python's json reads them back).
    payload = json.dumps(body, allow_nan=True).encode("utf-8")
    return httpx.Response(200, content=payload, headers={"content-type": "application/json"})


def _error(status: int, message: str) -> httpx.Response:
    return httpx.Response(status, json={"error": {"message": message, "code": status}})
