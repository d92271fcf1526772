"""Decision thresholds: the configured defaults, or a calibration file written by `judge calibrate`.

A calibration file is JSON: ``{"t_entail": float, "t_contra": float, ...}``, with an optional
``t_answer`` (the answer rule: see :mod:`judge.pipeline.policy`) and ``length_slope`` (how the
support score is read against the evidence length: :mod:`judge.pipeline.entail.length`;
absent: the settings' own); any other keys
(objective, expected precision and recall, sample size) are kept for the record. The file's
content hash is reported in every verdict so a decision can be traced to its thresholds.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judge.config import MAX_LENGTH_SLOPE, Settings
from judge.errors import ConfigError
from judge.inputs import strict_json


@dataclass(frozen=True)
class Thresholds:
    t_entail: float
    t_contra: float
    hash: str | None = None  # content hash of the calibration file, None for defaults
    source: str = "defaults"
    # An answer passes only if its weakest judged claim reaches it; None: t_entail alone.
    t_answer: float | None = None
    # The support score's correction for the evidence length (0: scores as read).
    length_slope: float = 0.0


def calibration_path(settings: Settings) -> Path:
    """The calibration file a run reads: the one named, else the state directory's own (read
    only when it exists)."""
    return Path(settings.calibration_file or settings.state_dir / "calibration.json")


def active_thresholds(settings: Settings) -> Thresholds:
    path = calibration_path(settings)
    if settings.calibration_file is None and not path.is_file():
        return Thresholds(
            settings.t_entail,
            settings.t_contra,
            t_answer=settings.t_answer,
            length_slope=settings.length_slope,
        )
    return load_calibration(path, default_slope=settings.length_slope)


def load_calibration(path: Path, *, default_slope: float = 0.0) -> Thresholds:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read calibration file {path}: {exc.strerror}") from None
    try:
        data: Any = strict_json.loads(raw)
        t_entail = float(data["t_entail"])
        t_contra = float(data["t_contra"])
        answer = data.get("t_answer")
        t_answer = None if answer is None else float(answer)
        slope = data.get("length_slope")
        length_slope = default_slope if slope is None else float(slope)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ConfigError(f"calibration file {path} is not valid: {exc}") from None
    except strict_json.DuplicateKeyError as exc:
        raise ConfigError(f"calibration file {path} holds a {exc.describe()}") from None
    for name, value in (("t_entail", t_entail), ("t_contra", t_contra), ("t_answer", t_answer)):
        if value is not None and not 0.0 <= value <= 1.0:
            raise ConfigError(f"calibration file {path}: {name} must lie in [0, 1]")
    if not 0.0 <= length_slope <= MAX_LENGTH_SLOPE:
        raise ConfigError(
            f"calibration file {path}: length_slope must lie in [0, {MAX_LENGTH_SLOPE:g}]"
        )
    digest = "sha256:" + hashlib.sha256(raw).hexdigest()
    return Thresholds(t_entail, t_contra, digest, str(path), t_answer, length_slope)


def write_calibration(path: Path, t_entail: float, t_contra: float, **record: Any) -> str:
    """Write a calibration file; returns its content hash."""
    payload = {"t_entail": t_entail, "t_contra": t_contra, **record}
    raw = json.dumps(payload, indent=2, sort_keys=True).encode("utf-8") + b"\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
    return "sha256:" + hashlib.sha256(raw).hexdigest()
