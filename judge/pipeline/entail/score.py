"""Where a judge reply becomes a score: the one place the support scores are read.

A verdict is decided on P(supported) and P(contradicted), read from the logprobs of the token
that starts the answer value. A reply whose score cannot be read (no logprobs, NaN or infinite
values, a logprob above zero, no alternative that names a label) is a ``JudgeOutputInvalid``:
the claim becomes ``verifier_error``, never a verdict on the bare label.

Servers that give no logprobs can still be used with ``allow_label_only``, an explicit opt-in:
the judge's label then decides, and every verdict it produced says so (:data:`LABEL_ONLY_NOTE`
in its reason, ``label_only`` in its result's extras).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from judge.errors import JudgeOutputInvalid
from judge.pipeline.entail.verdict import (
    PromptVariant,
    TokenLogprobLike,
    answer_vocabulary,
    label_distribution,
)
from judge.schemas import Label
from judge.schemas.judging import EntailmentResult, JudgeLabel

LABEL_ONLY_NOTE = "unscored: the judge's label alone decided (allow_label_only)"
LABEL_ONLY_EXTRA = "label_only"
# A logprob is at most 0; servers round, so a hair above it is still a probability of 1.
LOGPROB_CEILING = 1e-6


@dataclass(frozen=True)
class Score:
    """The label probabilities of one verdict; all ``None`` only for a label-only verdict."""

    p_supported: float | None
    p_contradicted: float | None
    p_unsupported: float | None
    label_only: bool = False

    @property
    def extra(self) -> dict[str, float]:
        if self.label_only:
            return {LABEL_ONLY_EXTRA: 1.0}
        return {"p_unsupported": self.p_unsupported} if self.p_unsupported is not None else {}


def logprob_tokens(completion: Any) -> Sequence[TokenLogprobLike] | None:
    """The per-token logprobs of a chat completion's first choice, if the server sent any."""
    choices = getattr(completion, "choices", None) or []
    if not choices:
        return None
    logprobs = getattr(choices[0], "logprobs", None)
    content = getattr(logprobs, "content", None)
    return cast("Sequence[TokenLogprobLike] | None", content) or None


def unreadable_logprob(tokens: Sequence[TokenLogprobLike]) -> str | None:
    """Why the logprobs cannot be probabilities (NaN, +infinity, above zero), or ``None``.

    -infinity is a probability of zero and is kept, except on a sampled token: a token the
    server chose cannot have had no chance."""
    for entry in tokens:
        values = [(entry.logprob, True)] + [(alt.logprob, False) for alt in entry.top_logprobs]
        for value, sampled in values:
            if not isinstance(value, int | float) or math.isnan(value):
                return f"logprob {value!r} is not a number"
            if value > LOGPROB_CEILING:
                return f"logprob {value!r} is above zero"
            if sampled and math.isinf(value):
                return f"the sampled token {entry.token!r} has logprob {value!r}"
    return None


def read_score(
    completion: Any,
    label: JudgeLabel,
    variant: PromptVariant,
    *,
    allow_label_only: bool,
    requested: bool = True,
) -> Score:
    """The score of a validated verdict, read from its completion's logprobs.

    Raises ``JudgeOutputInvalid`` when no finite, in-range score can be read, unless
    ``allow_label_only`` accepts a label-only verdict. Logprobs that were not ``requested``
    (the ``logprobs`` setting is off) are not read.
    """
    problem = "the reply carries no logprobs" if requested else "logprobs are off"
    tokens = logprob_tokens(completion) if requested else None
    scores: Mapping[JudgeLabel, float] | None = None
    key, values = answer_vocabulary(variant)
    if tokens:
        bad = unreadable_logprob(tokens)
        problem = bad or "no label can be read at the answer token"
        if bad is None:
            scores = label_distribution(tokens, label, key=key, values=values)
    if scores is not None and all(math.isfinite(p) and 0.0 <= p <= 1.0 for p in scores.values()):
        three_way = "contradicted" in values.values()
        return Score(
            p_supported=scores["supported"],
            # A question with no contradiction answer (yes/no) gives no P(contradicted), not 0.
            p_contradicted=scores["contradicted"] if three_way else None,
            p_unsupported=scores["unsupported"],
        )
    if allow_label_only:
        return Score(None, None, None, label_only=True)
    if scores is not None:
        problem = "the label probabilities are not finite values in [0, 1]"
    raise JudgeOutputInvalid(
        f"judge verdict has no readable score: {problem} "
        "(a server without logprobs needs allow_label_only)"
    )


def require_score(result: EntailmentResult) -> None:
    """Refuse a result without P(supported) that is not an opted-in label-only verdict: a
    result from any judge, cached or fresh, is decided on a score or not at all."""
    if result.p_supported is not None:
        if not (math.isfinite(result.p_supported) and 0.0 <= result.p_supported <= 1.0):
            raise JudgeOutputInvalid(f"judge score {result.p_supported!r} is not in [0, 1]")
        contradicted = result.p_contradicted
        if contradicted is not None and not (
            math.isfinite(contradicted) and 0.0 <= contradicted <= 1.0
        ):
            raise JudgeOutputInvalid(f"judge score {contradicted!r} is not in [0, 1]")
        return
    if result.extra.get(LABEL_ONLY_EXTRA) != 1.0:
        raise JudgeOutputInvalid("judge verdict has no score and label-only mode is off")


def decide_label(result: EntailmentResult, t_entail: float, t_contra: float) -> Label:
    """Thresholded decision for one window.

    Contradicted iff P(contradicted) >= t_contra; otherwise supported iff P(supported) >=
    t_entail; otherwise unsupported. A result without a score is refused
    (``JudgeOutputInvalid``) unless it is an opted-in label-only verdict, whose label then
    decides each test. Contradiction is tested first, so it wins.
    """
    require_score(result)
    if result.p_contradicted is not None:
        contradicted = result.p_contradicted >= t_contra
    else:
        contradicted = result.label == "contradicted"
    if contradicted:
        return Label.CONTRADICTED
    if result.p_supported is not None:
        supported = result.p_supported >= t_entail
    else:
        supported = result.label == "supported"
    return Label.SUPPORTED if supported else Label.UNSUPPORTED
