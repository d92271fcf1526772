"""Summarise a predictions file: accuracy against the human labels, and what it cost.

Claim and answer records are reported apart. Each block holds balanced accuracy of the binary
decision (supported vs not; faithful vs hallucinated), per-label precision / recall / F1, the
confusion matrix, ROC-AUC and PR-AUC of the scores where they exist, the share of claims decided
by exact checks alone, and judge calls, tokens and seconds per claim; then the same by dataset
and by whether the record carries a number.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.table import Table

from judge.eval.metrics import (
    average_precision,
    balanced_accuracy,
    confusion_matrix,
    expected_calibration_error,
    label_scores,
    ratio,
    reliability_bins,
    roc_auc,
)
from judge.eval.records import ANSWER_LABELS, CLAIM_LABELS, contradiction_scored
from judge.reports.console import Cell, data, fitted_tables, make_console

Prediction = dict[str, Any]
LEVELS = {"claims": (CLAIM_LABELS, "supported"), "answers": (ANSWER_LABELS, "faithful")}
SHORT = {
    "supported": "sup",
    "unsupported": "unsup",
    "contradicted": "contra",
    "faithful": "faith",
    "hallucinated": "halluc",
}


def split_levels(predictions: Sequence[Prediction]) -> dict[str, list[Prediction]]:
    return _group(predictions, lambda p: "claims" if p.get("gold") in CLAIM_LABELS else "answers")


def build_report(predictions: Sequence[Prediction]) -> dict[str, Any]:
    report: dict[str, Any] = {
        "n": len(predictions),
        "errors": sum(1 for p in predictions if p.get("error")),
        # Thresholds the predictions were decided with: a calibration file's hash, or defaults.
        "thresholds": sorted({str(p.get("calibration_hash") or "defaults") for p in predictions}),
    }
    for level, group in split_levels(predictions).items():
        labels, positive = LEVELS[level]
        block = summarise(group, labels, positive)
        block["by_dataset"] = {
            name: summarise(members, labels, positive)
            for name, members in sorted(_group(group, lambda p: str(p.get("dataset"))).items())
        }
        block["by_numeric"] = {
            name: summarise(members, labels, positive)
            for name, members in sorted(_group(group, _numeric_key).items())
        }
        report[level] = block
    return report


def summarise(group: Sequence[Prediction], labels: Sequence[str], positive: str) -> dict[str, Any]:
    gold = [str(p["gold"]) for p in group]
    predicted = [str(p["predicted"]) for p in group]
    scored = [p for p in group if p.get("score") is not None]
    scores = [float(p["score"]) for p in scored]
    gold_positive = [p["gold"] == positive for p in scored]
    bins = reliability_bins(scores, gold_positive)
    claims = sum(_claims(p) for p in group)
    block: dict[str, Any] = {
        "n": len(group),
        "errors": sum(1 for p in group if p.get("error")),
        "balanced_accuracy": balanced_accuracy(
            [g == positive for g in gold], [p == positive for p in predicted]
        ),
        "labels": {
            label: vars(label_scores(gold, predicted, label))
            for label in labels
            if label in gold or label in predicted
        },
        "confusion": {"labels": list(labels), "matrix": confusion_matrix(gold, predicted, labels)},
        "scored": len(scored),
        "roc_auc": roc_auc(scores, gold_positive),
        "pr_auc": average_precision(scores, gold_positive),
        # The flagged class (not supported / hallucinated) is what a block acts on.
        "pr_auc_flagged": average_precision(
            [1 - s for s in scores], [not g for g in gold_positive]
        ),
        "ece": expected_calibration_error(bins),
        "claims": claims,
        "decided_by_checks_share": ratio(sum(_by_checks(p) for p in group), claims),
        "judge_calls_per_claim": ratio(_total(group, "judge_calls"), claims),
        "prompt_tokens_per_claim": ratio(_total(group, "prompt_tokens"), claims),
        "completion_tokens_per_claim": ratio(_total(group, "completion_tokens"), claims),
        "seconds_per_claim": ratio(_total(group, "seconds"), claims),
        "seconds_per_record": ratio(_total(group, "seconds"), len(group)),
        "cached_verdicts": int(_total(group, "cached_verdicts")),
    }
    if "contradicted" in labels:
        block["contradiction_roc_auc"] = _contradiction_auc(group)
    return block


def write_json(report: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def render(report: dict[str, Any], out: TextIO) -> None:
    console = make_console(out)
    console.print(
        f"{report['n']} predictions, {report['errors']} errors (counted as not passed); "
        f"thresholds: {', '.join(report['thresholds'])}",
        markup=False,
    )
    for level, (labels, _) in LEVELS.items():
        block = report.get(level)
        if block is None:
            continue
        for table in _summary_tables(console, level, block, labels):
            console.print(table)
        console.print(_confusion_table(level, block))


def _summary_tables(
    console: Console, level: str, block: dict[str, Any], labels: Sequence[str]
) -> list[Table]:
    headers, rows = metric_rows(block, labels)
    cells: list[list[Cell]] = [[data(row[0]), *row[1:]] for row in rows]  # names are data
    sections = {0, len(block["by_dataset"])}
    return fitted_tables(console, f"{level}: accuracy and cost", headers, cells, sections=sections)


def metric_rows(block: dict[str, Any], labels: Sequence[str]) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of the accuracy-and-cost table: all, then by dataset, by numeric."""
    headers = ["slice", "n", "err", "bal.acc", "ROC-AUC", "PR-AUC flag"]
    headers += [f"F1 {SHORT.get(label, label)}" for label in labels]
    headers += ["by checks", "calls/claim", "tokens/claim", "s/claim"]
    named = [("all", block)]
    named += [(name, b) for name, b in block["by_dataset"].items()]
    named += [(name, b) for name, b in block["by_numeric"].items()]
    rows: list[list[str]] = []
    for name, b in named:
        tokens = _sum_optional(b["prompt_tokens_per_claim"], b["completion_tokens_per_claim"])
        rows.append(
            [
                name,
                str(b["n"]),
                str(b["errors"]),
                _fmt(b["balanced_accuracy"]),
                _fmt(b["roc_auc"]),
                _fmt(b["pr_auc_flagged"]),
                *(_fmt(b["labels"].get(label, {}).get("f1")) for label in labels),
                _fmt(b["decided_by_checks_share"]),
                _fmt(b["judge_calls_per_claim"], 2),
                _fmt(tokens, 0),
                _fmt(b["seconds_per_claim"], 2),
            ]
        )
    return headers, rows


def _confusion_table(level: str, block: dict[str, Any]) -> Table:
    labels = block["confusion"]["labels"]
    table = Table(title=f"{level}: confusion (rows gold, columns predicted)", title_justify="left")
    table.add_column("gold")
    for label in labels:
        table.add_column(label, justify="right")
    for label, row in zip(labels, block["confusion"]["matrix"], strict=True):
        table.add_row(label, *(str(v) for v in row))
    return table


def _contradiction_auc(group: Sequence[Prediction]) -> float | None:
    scored = contradiction_scored(group)
    return roc_auc(
        [float(p["contradiction_score"]) for p in scored],
        [p["gold"] == "contradicted" for p in scored],
    )


def _total(group: Sequence[Prediction], key: str) -> float:
    return sum(float(p.get(key) or 0) for p in group)


def _claims(p: Prediction) -> int:
    # A claim record is one claim even when the verifier found it not factual or erred.
    return 1 if p.get("gold") in CLAIM_LABELS else int(p.get("claims") or 0)


def _by_checks(p: Prediction) -> int:
    if p.get("gold") in CLAIM_LABELS:
        return int(bool(p.get("decided_by_checks")))
    return int(p.get("claims_by_checks") or 0)


def _numeric_key(p: Prediction) -> str:
    value = p.get("numeric")
    return "numeric" if value is True else "not numeric" if value is False else "numeric unknown"


def _group(
    predictions: Sequence[Prediction], key: Callable[[Prediction], str]
) -> dict[str, list[Prediction]]:
    groups: dict[str, list[Prediction]] = {}
    for p in predictions:
        groups.setdefault(key(p), []).append(p)
    return groups


def _sum_optional(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b


def _fmt(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"
