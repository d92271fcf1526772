"""Support scores read against the length of the evidence they were given on.

A small judge says "yes" more readily on a short premise than on a long one: on the
development claims its P(yes) for supported claims falls as the evidence grows, while that of
unsupported claims does not, so one threshold is too lenient on a two-line passage and too
strict on a whole article (benchmarks/history/accuracy-rounds-2026-11-29-to-12-03.md,
eleventh round). The score is corrected in log-odds by ``slope`` times the log of the
premise's evidence length against :data:`REFERENCE_CHARS`; ``slope`` 0 leaves scores as read.
The verdict cache keeps the judge's own scores: the correction is applied after it.

Off by default (``Settings.length_slope`` 0): it helps claims judged against whole documents of
very different lengths and costs claims judged against short passages, as an answer's claims
found by search are.
"""

from __future__ import annotations

import math
from dataclasses import replace

from judge.schemas.judging import EntailmentResult, Premise

# The evidence length at which a score is left as read.
REFERENCE_CHARS = 1000
RAW_SCORE_EXTRA = "p_supported_raw"
_EDGE = 1e-6  # keeps log-odds finite for a score of exactly 0 or 1


def evidence_chars(premise: Premise) -> int:
    """The characters of passage text in ``premise`` (its headers and separators left out)."""
    spans = sum(piece.premise_end - piece.premise_start for piece in premise.pieces)
    return spans or len(premise.text)


def length_calibrated(result: EntailmentResult, premise: Premise, slope: float) -> EntailmentResult:
    """``result`` with P(supported) corrected for the premise's length; the score as read is
    kept in ``extra`` under :data:`RAW_SCORE_EXTRA`."""
    raw = result.p_supported
    if slope == 0.0 or raw is None:
        return result
    p = min(max(raw, _EDGE), 1.0 - _EDGE)
    shift = slope * math.log(max(evidence_chars(premise), 1) / REFERENCE_CHARS)
    calibrated = 1.0 / (1.0 + math.exp(-(math.log(p / (1.0 - p)) + shift)))
    return replace(result, p_supported=calibrated, extra={**result.extra, RAW_SCORE_EXTRA: raw})
