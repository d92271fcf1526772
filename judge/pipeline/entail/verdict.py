"""One verdict of the entailment stage: the judge's verdict schema and prompt, its validation
against the premise, the support score from logprobs, and the thresholded label. Pooling
verdicts over windows, views and sentences is :mod:`judge.pipeline.entail.aggregate`'s job.

No I/O here: :class:`judge.pipeline.entail.llm_judge.HttpJudge` sends the prompts built by
:func:`entail_prompt`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Annotated, ClassVar, Literal, Protocol, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from judge.prompts.rendering import RenderedPrompt, neutralise, render, render_block
from judge.schemas import EvidenceSpan
from judge.schemas.judging import JudgeLabel, Premise

ENTAIL_TEMPLATE = "entail.j2"
YES_NO_TEMPLATE = "entail_yes_no.j2"
ENTAIL_FENCES_WITH_QUESTION = ("EVIDENCE", "QUESTION", "CLAIM")
ENTAIL_FENCES = ("EVIDENCE", "CLAIM")

VerdictVariant = Literal["label_first", "quote_first", "label_only", "yes_no"]
DEFAULT_VARIANT: VerdictVariant = "label_first"
VARIANTS: tuple[VerdictVariant, ...] = get_args(VerdictVariant)
# What the judge is asked: one of the verdict variants a user chooses, or the contradiction
# probe that follows a yes/no verdict (never chosen as the verdict variant).
PromptVariant = VerdictVariant | Literal["contradiction"]
CONTRADICTION_TEMPLATE = "entail_contradiction.j2"
LABELS: tuple[JudgeLabel, ...] = get_args(JudgeLabel)

REASON_MAX_CHARS = 300
QUOTE_MAX_CHARS = 1000
MAX_EVIDENCE_IDS = 8
TOP_LOGPROBS = 10

EvidenceId = Annotated[str, Field(min_length=1, max_length=200)]


# --- verdict schema ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PremiseScope:
    """What a verdict is checked against: the premise text exactly as the judge saw it."""

    text: str
    ids: frozenset[str]


_SCOPE: ContextVar[PremiseScope | None] = ContextVar("judge_premise_scope", default=None)


@contextmanager
def premise_scope(premise: Premise) -> Iterator[PremiseScope]:
    """Bind the premise that verdicts validated in this context must quote from.

    A context variable, not instructor's ``context=`` (which would render the messages as Jinja
    templates); it is task-local, so concurrent judge calls do not see each other's premise.
    """
    scope = PremiseScope(text=neutralise(premise.text), ids=frozenset(premise.passage_ids))
    token = _SCOPE.set(scope)
    try:
        yield scope
    finally:
        _SCOPE.reset(token)


class _VerdictFields(Protocol):
    label: JudgeLabel
    evidence_quote: str
    evidence_ids: list[str]


def _strip_id(value: str) -> str:
    # Small models often copy the id with its brackets, as shown in the evidence.
    return value.strip().removeprefix("[").removesuffix("]").strip()


def _check_grounded(verdict: _VerdictFields) -> None:
    scope = _SCOPE.get()
    if scope is None:
        raise ValueError("a verdict can only be validated against its premise")
    quote = verdict.evidence_quote.strip()
    if verdict.label != "unsupported" and not quote:
        raise ValueError(f"evidence_quote must quote the evidence for a {verdict.label} claim")
    if quote and locate_quote(scope.text, quote) is None:
        raise ValueError("evidence_quote must be copied exactly from the evidence")
    unknown = [i for i in verdict.evidence_ids if i not in scope.ids]
    if unknown:
        raise ValueError("evidence_ids must be ids shown in square brackets in the evidence")


# The judge's output. Class docstrings would reach the server inside the JSON schema, so the
# notes are comments. Label first: the label's token sits at a fixed, early position.
class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: JudgeLabel
    reason: str = Field(max_length=REASON_MAX_CHARS)
    evidence_quote: str = Field(max_length=QUOTE_MAX_CHARS)
    evidence_ids: list[EvidenceId] = Field(max_length=MAX_EVIDENCE_IDS)

    @field_validator("evidence_ids")
    @classmethod
    def _ids(cls, value: list[str]) -> list[str]:
        return [_strip_id(v) for v in value]

    @model_validator(mode="after")
    def _grounded(self) -> Verdict:
        _check_grounded(self)
        return self


# Quote first: the label is chosen after the evidence sentence has been copied.
class VerdictQuoteFirst(BaseModel):
    model_config = ConfigDict(extra="forbid")

    evidence_quote: str = Field(max_length=QUOTE_MAX_CHARS)
    evidence_ids: list[EvidenceId] = Field(max_length=MAX_EVIDENCE_IDS)
    label: JudgeLabel
    reason: str = Field(max_length=REASON_MAX_CHARS)

    @field_validator("evidence_ids")
    @classmethod
    def _ids(cls, value: list[str]) -> list[str]:
        return [_strip_id(v) for v in value]

    @model_validator(mode="after")
    def _grounded(self) -> VerdictQuoteFirst:
        _check_grounded(self)
        return self


# Label only: the fast scoring mode. Its prompt is byte-identical to label_first's, so the label
# token's probabilities (the score) are the same; the schema just stops after the label. No
# reason and no quote: the verdict's evidence spans are the selected evidence sentences.
class VerdictLabelOnly(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: JudgeLabel

    # Uniform read access for the client, which builds results from any variant.
    reason: ClassVar[str] = ""
    evidence_quote: ClassVar[str] = ""
    evidence_ids: ClassVar[list[str]] = []


# Yes/no: "is the claim consistent with the evidence?" The fastest and, for small judges, the
# most accurate scoring mode (benchmarks/history/accuracy-rounds-2026-11-29-to-12-03.md).
# It cannot say "contradicted": with it, contradictions come from the exact checks and the
# contradiction probe (judge.pipeline.entail.aggregate).
# The answer token's probability is the score.
YES_NO_LABELS: dict[str, JudgeLabel] = {"yes": "supported", "no": "unsupported"}
# The contradiction probe after a yes/no "no": does the document make the claim false?
CONTRADICTION_LABELS: dict[str, JudgeLabel] = {"yes": "contradicted", "no": "unsupported"}
# The assistant turn the probe's conversation carries: the verdict it follows.
UNSUPPORTED_ANSWER = '{"answer": "no"}'


# A yes/no reply; ``labels`` says which label each answer stands for. (A comment, not a
# docstring: docstrings reach the server inside the JSON schema.)
class _YesNoAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    answer: Literal["yes", "no"]

    labels: ClassVar[Mapping[str, JudgeLabel]]
    reason: ClassVar[str] = ""
    evidence_quote: ClassVar[str] = ""
    evidence_ids: ClassVar[list[str]] = []

    @property
    def label(self) -> JudgeLabel:
        return self.labels[self.answer]


class VerdictYesNo(_YesNoAnswer):
    labels: ClassVar[Mapping[str, JudgeLabel]] = YES_NO_LABELS


class VerdictContradiction(_YesNoAnswer):
    labels: ClassVar[Mapping[str, JudgeLabel]] = CONTRADICTION_LABELS


VerdictModel = (
    type[Verdict]
    | type[VerdictQuoteFirst]
    | type[VerdictLabelOnly]
    | type[VerdictYesNo]
    | type[VerdictContradiction]
)


def verdict_model(variant: PromptVariant) -> VerdictModel:
    if variant == "yes_no":
        return VerdictYesNo
    if variant == "contradiction":
        return VerdictContradiction
    if variant == "label_only":
        return VerdictLabelOnly
    if variant == "quote_first":
        return VerdictQuoteFirst
    if variant == "label_first":
        return Verdict
    raise ValueError(f"unknown verdict variant {variant!r}")


def entail_prompt(
    premise: Premise, claim: str, question: str | None, *, nonce: str, variant: PromptVariant
) -> RenderedPrompt:
    """The judge's messages. The contradiction probe is the yes/no prompt, byte for byte, with
    its "no" and the probe's question as two more turns, so a server that has just given the
    verdict computes only those."""
    question = question.strip() if question else None
    prompt = render(
        YES_NO_TEMPLATE if variant in ("yes_no", "contradiction") else ENTAIL_TEMPLATE,
        nonce=nonce,
        fences=ENTAIL_FENCES_WITH_QUESTION if question else ENTAIL_FENCES,
        evidence=neutralise(premise.text),
        claim=neutralise(claim),
        question=neutralise(question) if question else None,
        variant=variant,
    )
    if variant != "contradiction":
        return prompt
    followup = render_block(CONTRADICTION_TEMPLATE, "followup")
    return prompt.followed_by(
        CONTRADICTION_TEMPLATE, (("assistant", UNSUPPORTED_ANSWER), ("user", followup))
    )


# --- quotes and evidence spans ------------------------------------------------------------------

_QUOTE_FOLD = str.maketrans(
    {"“": '"', "”": '"', "„": '"', "«": '"', "»": '"', "‘": "'", "’": "'", "‚": "'", "`": "'"}
)


def _fold(text: str) -> tuple[str, list[int]]:
    """Whitespace runs collapsed to one space and curly quotes straightened, with the index in
    ``text`` of every kept character."""
    chars: list[str] = []
    index: list[int] = []
    for position, char in enumerate(text.translate(_QUOTE_FOLD)):
        if char.isspace():
            if chars and chars[-1] == " ":
                continue
            char = " "
        chars.append(char)
        index.append(position)
    return "".join(chars), index


def locate_quote(text: str, quote: str) -> tuple[int, int] | None:
    """Offsets in ``text`` of ``quote``, compared after whitespace and quote-mark folding."""
    needle, _ = _fold(quote)
    needle = needle.strip()
    if not needle:
        return None
    haystack, index = _fold(text)
    found = haystack.find(needle)
    if found < 0:
        return None
    return index[found], index[found + len(needle) - 1] + 1


def evidence_spans(premise: Premise, quote: str | None) -> list[EvidenceSpan]:
    """Passage spans of a quote from the premise (one per passage stretch it covers)."""
    if not quote:
        return []
    located = locate_quote(neutralise(premise.text), quote)
    if located is None:
        return []
    start, end = located
    spans: list[EvidenceSpan] = []
    for piece in premise.pieces:
        a, b = max(start, piece.premise_start), min(end, piece.premise_end)
        if a >= b:
            continue
        offset = piece.passage_start - piece.premise_start
        spans.append(
            EvidenceSpan(
                passage_id=piece.passage_id,
                start=a + offset,
                end=b + offset,
                text=premise.text[a:b],
            )
        )
    return spans


# --- support score from logprobs ----------------------------------------------------------------


class TopLogprobLike(Protocol):
    token: str
    logprob: float


class TokenLogprobLike(Protocol):
    token: str
    logprob: float

    @property
    def top_logprobs(self) -> Sequence[TopLogprobLike]: ...


def label_value_offset(text: str, key: str = "label") -> int | None:
    """Offset of the first character of the top-level ``key`` string value in JSON text.

    A small scanner rather than a regex, so a ``"label"`` inside another string value (a quote
    that copies a fake verdict, say) is never taken for the key.
    """
    depth = 0
    position = 0
    length = len(text)
    while position < length:
        char = text[position]
        if char == '"':
            end = position + 1
            while end < length and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            if end >= length:
                return None
            name = text[position + 1 : end]
            after = end + 1
            while after < length and text[after].isspace():
                after += 1
            if depth == 1 and after < length and text[after] == ":" and name == key:
                after += 1
                while after < length and text[after].isspace():
                    after += 1
                if after < length and text[after] == '"':
                    return after + 1
                return None
            position = end + 1
            continue
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
        position += 1
    return None


LABEL_VALUES: dict[str, JudgeLabel] = {label: label for label in LABELS}


def _label_of(
    alternative: str, lead: str, values: Mapping[str, JudgeLabel] = LABEL_VALUES
) -> JudgeLabel | None:
    """The label a token alternative starts, given the text ``lead`` that precedes the label
    value inside the chosen token (``"`` or `` "`` when the token also opens the string).
    ``values`` maps each answer value the schema allows to the label it stands for."""
    if not alternative.startswith(lead):
        return None
    rest = alternative[len(lead) :]
    value, closed, _ = rest.partition('"')
    if not value:
        return None
    matches = [
        label
        for answer, label in values.items()
        if (answer == value if closed else answer.startswith(value))
    ]
    return matches[0] if len(matches) == 1 else None


def answer_vocabulary(variant: PromptVariant) -> tuple[str, Mapping[str, JudgeLabel]]:
    """The verdict field whose value token carries the score, and the label each value means."""
    if variant == "yes_no":
        return "answer", YES_NO_LABELS
    if variant == "contradiction":
        return "answer", CONTRADICTION_LABELS
    return "label", LABEL_VALUES


def label_distribution(
    tokens: Sequence[TokenLogprobLike],
    label: JudgeLabel,
    *,
    key: str = "label",
    values: Mapping[str, JudgeLabel] = LABEL_VALUES,
) -> dict[JudgeLabel, float] | None:
    """P(label) over the labels at the token where the ``key`` value starts.

    Each top alternative at that position is mapped to the label its value is a prefix of
    ("sup", "supported" -> supported; "un" -> unsupported; "contr" -> contradicted; for the
    yes/no schema "y" -> supported, "n" -> unsupported); alternatives that start no value are
    dropped and the mapped mass is renormalised. ``None`` when the position cannot be found or
    the sampled token disagrees with the parsed ``label``.
    """
    text = "".join(t.token for t in tokens)
    value_start = label_value_offset(text, key)
    if value_start is None:
        return None
    offset = 0
    for entry in tokens:
        end = offset + len(entry.token)
        if offset <= value_start < end:
            lead = entry.token[: value_start - offset]
            chosen = _label_of(entry.token, lead, values)
            if chosen != label:
                return None
            candidates = {alt.token: alt.logprob for alt in entry.top_logprobs}
            candidates.setdefault(entry.token, entry.logprob)
            mass: dict[JudgeLabel, float] = dict.fromkeys(LABELS, 0.0)
            for token, logprob in candidates.items():
                mapped = _label_of(token, lead, values)
                if mapped is not None and math.isfinite(logprob):
                    mass[mapped] += math.exp(logprob)
            total = sum(mass.values())
            if total <= 0.0:
                return None
            return {name: value / total for name, value in mass.items()}
        offset = end
    return None
