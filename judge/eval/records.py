"""Files of an evaluation: labelled records in, one prediction per record out.

Records follow the development-set format (``id``, ``dataset``, ``evidence``, ``claim`` or
``answer``, ``label``, ``meta``). Only ``meta.numeric`` is kept, for breakdowns: the rest of
``meta`` may hold text the verifier must never see.

The predictions file is JSON Lines, appended one line per finished record, so an interrupted
run loses at most the line being written; that torn line is dropped when the run resumes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from judge.errors import InputError
from judge.schemas import Passage

RecordKind = Literal["claim", "answer"]
CLAIM_LABELS = ("supported", "unsupported", "contradicted")
ANSWER_LABELS = ("faithful", "hallucinated")


@dataclass(frozen=True)
class EvalRecord:
    id: str
    dataset: str
    kind: RecordKind
    text: str  # the claim or the answer
    evidence: tuple[Passage, ...]
    gold: str
    numeric: bool | None


def load_records(path: Path) -> list[EvalRecord]:
    records: list[EvalRecord] = []
    seen: set[str] = set()
    for line_no, line in enumerate(_read_lines(path), start=1):
        if not line.strip():
            continue
        where = f"{path}:{line_no}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{where}: malformed JSON: {exc.msg}") from None
        record = parse_record(data, where)
        if record.id in seen:
            raise InputError(f"{where}: duplicate record id {record.id!r}")
        seen.add(record.id)
        records.append(record)
    return records


def parse_record(data: Any, where: str) -> EvalRecord:
    if not isinstance(data, dict):
        raise InputError(f"{where}: a record must be a JSON object")
    record_id = _text(data, "id", where)
    dataset = str(data.get("dataset", ""))
    has_claim, has_answer = "claim" in data, "answer" in data
    if has_claim == has_answer:
        raise InputError(f"{where}: a record needs exactly one of 'claim' or 'answer'")
    kind: RecordKind = "claim" if has_claim else "answer"
    text = _text(data, kind, where)
    gold = _text(data, "label", where)
    allowed = CLAIM_LABELS if kind == "claim" else ANSWER_LABELS
    if gold not in allowed:
        raise InputError(f"{where}: label {gold!r} is not one of {', '.join(allowed)}")
    evidence_raw = data.get("evidence")
    if not isinstance(evidence_raw, list) or not evidence_raw:
        raise InputError(f"{where}: 'evidence' must be a non-empty list of passages")
    evidence = tuple(_passage(p, where) for p in evidence_raw)
    meta = data.get("meta")
    numeric = meta.get("numeric") if isinstance(meta, dict) else None
    return EvalRecord(
        record_id,
        dataset,
        kind,
        text,
        evidence,
        gold,
        numeric if isinstance(numeric, bool) else None,
    )


def contradiction_scored(predictions: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Claim predictions with a contradiction score, from datasets that label contradiction at
    all: elsewhere 'unsupported' also holds contradictions, so those cannot score it."""
    marking = {p.get("dataset") for p in predictions if p.get("gold") == "contradicted"}
    return [
        p
        for p in predictions
        if p.get("dataset") in marking and p.get("contradiction_score") is not None
    ]


def read_predictions(path: Path) -> list[dict[str, Any]]:
    """Every complete prediction in the file; a torn last line (a run still writing, or killed
    mid-line) is left out."""
    complete, _ = _split_torn(path)
    return _parse_predictions(complete, path)


def resume_predictions(path: Path, *, drop_errors: bool = False) -> list[dict[str, Any]]:
    """Prepare ``path`` for appending: cut a torn last line off the file and return the
    predictions already there. With ``drop_errors`` the predictions that ended in an error are
    removed from the file too, so they are run again."""
    if not path.exists():
        return []
    complete, torn = _split_torn(path)
    predictions = _parse_predictions(complete, path)
    kept = [p for p in predictions if not (drop_errors and p.get("error"))]
    if len(kept) != len(predictions):
        _replace(path, "".join(_line(p) for p in kept).encode("utf-8"))
    elif torn:
        with path.open("r+b") as handle:
            handle.truncate(len(complete))
    return kept


class PredictionWriter:
    """Appends predictions one complete line at a time, each flushed to disk before the next."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._handle = path.open("a", encoding="utf-8")

    def write(self, prediction: dict[str, Any]) -> None:
        self._handle.write(_line(prediction))
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> PredictionWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _line(prediction: dict[str, Any]) -> str:
    return json.dumps(prediction, ensure_ascii=False, separators=(",", ":")) + "\n"


def _split_torn(path: Path) -> tuple[bytes, bool]:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    cut = raw.rfind(b"\n") + 1
    return raw[:cut], cut < len(raw)


def _parse_predictions(raw: bytes, path: Path) -> list[dict[str, Any]]:
    predictions: list[dict[str, Any]] = []
    for line_no, line in enumerate(raw.decode("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{line_no}: malformed prediction: {exc.msg}") from None
        if not isinstance(data, dict) or not isinstance(data.get("id"), str):
            raise InputError(f"{path}:{line_no}: a prediction must be an object with an 'id'")
        predictions.append(data)
    return predictions


def _replace(path: Path, raw: bytes) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(raw)
    os.replace(temporary, path)


def _read_lines(path: Path) -> Iterable[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise InputError(f"{path} is not UTF-8 text") from None


def _text(data: dict[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}: '{key}' must be a non-empty string")
    return value


def _passage(data: Any, where: str) -> Passage:
    if not isinstance(data, dict):
        raise InputError(f"{where}: each evidence passage must be an object with 'id' and 'text'")
    try:
        return Passage(id=_text(data, "id", where), text=_text(data, "text", where))
    except ValidationError as exc:
        problems = "; ".join(str(e["msg"]) for e in exc.errors(include_url=False))
        raise InputError(f"{where}: evidence passage is not valid: {problems}") from None
