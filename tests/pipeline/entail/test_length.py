"""The support score read against the length of the evidence it was given on."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from judge.config import Settings
from judge.errors import ConfigError
from judge.pipeline.entail.aggregate import judge_over_windows
from judge.pipeline.entail.length import (
    RAW_SCORE_EXTRA,
    REFERENCE_CHARS,
    evidence_chars,
    length_calibrated,
)
from judge.pipeline.entail.thresholds import active_thresholds, load_calibration
from judge.pipeline.entail.windows import build_premises
from judge.schemas import Claim, JudgeTrace, Label, Passage
from judge.schemas.judging import EntailmentResult, Premise
from tests.support.fake_judge import FakeJudgeServer, confident, verdict_response

CLAIM = Claim(id="c1", text="Express orders ship within 2 business days.", citations=("P1",))


def _premise(chars: int) -> Premise:
    text = ("Express orders ship within 2 business days. " * (chars // 44 + 1))[:chars]
    (premise,) = build_premises([Passage(id="P1", text=text)], window_tokens=4000, overlap_tokens=0)
    return premise


def _result(p: float | None) -> EntailmentResult:
    trace = JudgeTrace(model="m", template="t", template_hash="sha256:" + "0" * 64)
    return EntailmentResult("supported", "r", p, None, None, [], trace)


def test_evidence_chars_counts_passage_text_not_headers() -> None:
    premise = _premise(500)
    assert evidence_chars(premise) == 500
    assert len(premise.text) > 500  # the passage id header is not evidence


@pytest.mark.parametrize("chars", [40, REFERENCE_CHARS, 8000])
def test_slope_zero_reads_the_score_as_is(chars: int) -> None:
    result = _result(0.6)
    assert length_calibrated(result, _premise(chars), 0.0) is result


def test_reference_length_keeps_the_score() -> None:
    calibrated = length_calibrated(_result(0.6), _premise(REFERENCE_CHARS), 0.6)
    assert calibrated.p_supported == pytest.approx(0.6)


def test_short_evidence_lowers_and_long_evidence_raises_the_score_in_log_odds() -> None:
    short = length_calibrated(_result(0.6), _premise(250), 0.6)
    long = length_calibrated(_result(0.6), _premise(4000), 0.6)
    assert short.p_supported is not None and long.p_supported is not None
    logit = math.log(0.6 / 0.4)
    assert math.log(short.p_supported / (1 - short.p_supported)) == pytest.approx(
        logit + 0.6 * math.log(0.25)
    )
    assert math.log(long.p_supported / (1 - long.p_supported)) == pytest.approx(
        logit + 0.6 * math.log(4.0)
    )
    assert short.extra[RAW_SCORE_EXTRA] == long.extra[RAW_SCORE_EXTRA] == 0.6


def test_scores_of_zero_and_one_stay_finite() -> None:
    for p in (0.0, 1.0):
        calibrated = length_calibrated(_result(p), _premise(100), 0.6)
        assert calibrated.p_supported is not None and 0.0 < calibrated.p_supported < 1.0


def test_a_label_only_verdict_has_no_score_to_correct() -> None:
    result = _result(None)
    assert length_calibrated(result, _premise(100), 0.6) is result


async def test_the_same_judge_score_passes_on_long_evidence_and_fails_on_short() -> None:
    fake = FakeJudgeServer(
        lambda _request: verdict_response(
            "supported", quote=CLAIM.text, ids=["P1"], scores=confident("supported", 0.45)
        )
    )
    judge = fake.judge()
    short = await judge_over_windows(judge, CLAIM, [_premise(200)], None, 0.35, 0.9, 0.6)
    long = await judge_over_windows(judge, CLAIM, [_premise(3000)], None, 0.35, 0.9, 0.6)
    plain = await judge_over_windows(judge, CLAIM, [_premise(200)], None, 0.35, 0.9)
    assert short.label is Label.UNSUPPORTED
    assert long.label is Label.SUPPORTED
    assert plain.label is Label.SUPPORTED  # the slope, not the judge, decided the first
    assert plain.p_supported == pytest.approx(0.45)


def test_settings_slope_applies_unless_a_calibration_file_sets_its_own(tmp_path: Path) -> None:
    state = tmp_path
    settings = Settings(state_dir=state, length_slope=0.4)
    assert active_thresholds(settings).length_slope == 0.4
    path = state / "calibration.json"
    path.write_text('{"t_entail": 0.3, "t_contra": 0.5}')
    assert active_thresholds(settings).length_slope == 0.4
    path.write_text('{"t_entail": 0.3, "t_contra": 0.5, "length_slope": 0.0}')
    assert active_thresholds(settings).length_slope == 0.0


def test_a_calibration_file_with_a_slope_out_of_range_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "calibration.json"
    path.write_text('{"t_entail": 0.3, "t_contra": 0.5, "length_slope": -1}')
    with pytest.raises(ConfigError, match="length_slope"):
        load_calibration(path)
