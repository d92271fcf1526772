"""The HTML report of an evaluation run: each record's request with its verdicts, highlighted."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from judge.eval.records import EvalRecord
from judge.eval.run import build_request
from judge.reports.html import render_run_report
from judge.schemas import (
    Action,
    ClaimVerdict,
    EvidenceLedger,
    VerifyRequest,
    VerifyResponse,
)


def response_from_prediction(request: VerifyRequest, prediction: dict[str, Any]) -> VerifyResponse:
    """Rebuild the response a prediction was made from (the prediction keeps every verdict)."""
    reasons = [prediction["error"]] if prediction.get("error") else []
    return VerifyResponse(
        request_id=str(prediction["id"]),
        action=Action(prediction.get("action") or Action.BLOCK.value),
        reasons=reasons,
        ledger_hash=EvidenceLedger(passages=tuple(request.evidence)).ledger_hash,
        verdicts=[ClaimVerdict.model_validate(v) for v in prediction.get("verdicts", [])],
        judge_calls=int(prediction.get("judge_calls") or 0),
        seconds=float(prediction.get("seconds") or 0.0),
        calibration_hash=prediction.get("calibration_hash"),
    )


def write_run_report(
    path: Path, records: Sequence[EvalRecord], predictions: Sequence[dict[str, Any]]
) -> None:
    by_id = {r.id: r for r in records}
    items = []
    for prediction in predictions:
        record = by_id.get(prediction["id"])
        if record is None:
            continue
        request = build_request(record)
        items.append((request, response_from_prediction(request, prediction)))
    html = render_run_report(items, f"Evaluation run: {len(items)} records")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(html, encoding="utf-8")
