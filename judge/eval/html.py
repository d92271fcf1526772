"""The HTML report of an evaluation run: the accuracy metrics of the terminal report, then each
record's request with its verdicts highlighted, its gold label and the verifier's reasons."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from judge.eval.records import EvalRecord
from judge.eval.report import LEVELS, SHORT, build_report, metric_rows
from judge.eval.run import build_request
from judge.pipeline.policy import PolicyInput, decide
from judge.reports.html import Grade, MetricsTable, render_run_report
from judge.schemas import (
    Action,
    ClaimVerdict,
    EvidenceLedger,
    VerifyRequest,
    VerifyResponse,
)


def response_from_prediction(request: VerifyRequest, prediction: dict[str, Any]) -> VerifyResponse:
    """Rebuild the response a prediction was made from (the prediction keeps every verdict;
    the reasons are the policy's, decided again from them)."""
    verdicts = [ClaimVerdict.model_validate(v) for v in prediction.get("verdicts", [])]
    reasons = [prediction["error"]] if prediction.get("error") else []
    reasons += decide(PolicyInput(verdicts=verdicts, answer=request.answer)).reasons
    return VerifyResponse(
        request_id=str(prediction["id"]),
        action=Action(prediction.get("action") or Action.BLOCK.value),
        reasons=reasons,
        ledger_hash=EvidenceLedger(passages=tuple(request.evidence)).ledger_hash,
        verdicts=verdicts,
        judge_calls=int(prediction.get("judge_calls") or 0),
        seconds=float(prediction.get("seconds") or 0.0),
        calibration_hash=prediction.get("calibration_hash"),
    )


def metrics_tables(predictions: Sequence[dict[str, Any]]) -> list[MetricsTable]:
    """The terminal report's accuracy tables, as rows of text."""
    report = build_report(predictions)
    tables = []
    for level, (labels, _) in LEVELS.items():
        block = report.get(level)
        if block is None:
            continue
        headers, rows = metric_rows(block, labels)
        tables.append(MetricsTable(f"{level}: accuracy and cost", headers, rows))
        confusion = block["confusion"]
        tables.append(
            MetricsTable(
                f"{level}: confusion (rows gold, columns predicted)",
                ["gold", *(SHORT.get(label, label) for label in confusion["labels"])],
                [
                    [label, *(str(v) for v in row)]
                    for label, row in zip(confusion["labels"], confusion["matrix"], strict=True)
                ],
            )
        )
    return tables


def write_run_report(
    path: Path, records: Sequence[EvalRecord], predictions: Sequence[dict[str, Any]]
) -> None:
    by_id = {r.id: r for r in records}
    items = []
    grades: list[Grade | None] = []
    kept = []
    for prediction in predictions:
        record = by_id.get(prediction["id"])
        if record is None:
            continue
        request = build_request(record)
        items.append((request, response_from_prediction(request, prediction)))
        grades.append(Grade(str(prediction["gold"]), str(prediction["predicted"])))
        kept.append(prediction)
    html = render_run_report(
        items,
        f"Evaluation run: {len(items)} records",
        grades=grades,
        metrics=metrics_tables(kept),
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(html, encoding="utf-8")
