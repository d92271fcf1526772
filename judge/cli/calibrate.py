"""`judge calibrate PRED.jsonl --target precision=0.9`: choose thresholds from labelled
predictions and write the calibration file that `judge verify` loads."""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path
from typing import Any

from judge.cli.app import EXIT_PASS
from judge.config import load_settings
from judge.eval.calibrate import Calibration, Objective, calibrate_predictions
from judge.eval.records import read_predictions
from judge.pipeline.entail.thresholds import write_calibration

TARGET_HELP = (
    "precision=P: at least P of the flagged (not-supported) claims are truly not supported "
    "(blocking); recall=R: at least R of the not-supported claims get flagged (audit); "
    "balanced_accuracy: best mean recall of both classes"
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "calibrate", help="choose decision thresholds from labelled predictions"
    )
    parser.add_argument("predictions", type=Path, help="predictions of `judge eval` (JSON Lines)")
    parser.add_argument("--target", required=True, help=TARGET_HELP)
    parser.add_argument(
        "--out", type=Path, help="calibration file (default: STATE_DIR/calibration.json)"
    )
    parser.add_argument("--folds", type=int, default=5, help="cross-validation folds (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the fold split")
    parser.add_argument("--config", type=Path, help="settings file (.toml or .json)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    settings = load_settings(args.config)
    objective = Objective.parse(args.target)
    predictions = read_predictions(args.predictions)
    calibration = calibrate_predictions(
        predictions,
        objective,
        t_entail_default=settings.t_entail,
        t_contra_default=settings.t_contra,
        folds=args.folds,
        seed=args.seed,
    )
    source = {
        "path": str(args.predictions),
        "sha256": hashlib.sha256(args.predictions.read_bytes()).hexdigest(),
    }
    default = settings.state_dir / "calibration.json"
    out = args.out or default
    answer = {} if calibration.t_answer is None else {"t_answer": calibration.t_answer}
    digest = write_calibration(
        out,
        calibration.t_entail,
        calibration.t_contra,
        source=source,
        # The scores were read with the settings' slope: the thresholds hold for it alone.
        length_slope=settings.length_slope,
        **answer,
        **calibration.record,
    )
    if out.resolve() == default.resolve():
        use = "`judge verify` loads it from the state directory"
    else:
        use = f"use it with `judge verify --calibration {out}`"
    _print_summary(calibration, f"wrote {out} ({digest}); {use}")
    return EXIT_PASS


def _print_summary(calibration: Calibration, written: str) -> None:
    record = calibration.record
    if "expected_in_sample" not in record:  # answer records only
        lines = [
            f"t_entail = {calibration.t_entail:.4f} kept: no claim records",
            *_answer_lines(calibration),
            written,
        ]
        print("\n".join(lines), file=sys.stdout)
        return
    point: Any = record["expected_in_sample"]
    cv: Any = record["cross_validation"]
    contra: Any = record["t_contra_calibration"]
    lines = [
        f"objective {record['objective']} on flagged (not-supported) claims, "
        f"n = {record['n']} ({record['n_scored']} scored, {record['errors']} errors)",
        f"t_entail = {calibration.t_entail:.4f}: flags {point['flagged']} of {point['n']} claims",
        f"  precision on flagged {_pct(point['precision'], point['precision_ci95'])}",
        f"  recall on flagged    {_pct(point['recall'], point['recall_ci95'])}",
        f"  balanced accuracy    {_num(point['balanced_accuracy'])} (in sample)",
    ]
    if "mean" in cv:
        lines.append(
            f"  {cv['k']}-fold held-out balanced accuracy {_num(cv['mean'])} "
            f"± {_num(cv['std'])} (thresholds {', '.join(_num(t) for t in cv['thresholds'])})"
        )
    else:
        lines.append(f"  cross-validation skipped: {cv['skipped']}")
    if "kept" in contra:
        lines.append(f"t_contra = {calibration.t_contra:.4f} kept: {contra['reason']}")
    else:
        lines.append(
            f"t_contra = {calibration.t_contra:.4f}: precision on contradicted "
            f"{_pct(contra['precision'], contra['precision_ci95'])}, recall "
            f"{_pct(contra['recall'], contra['recall_ci95'])}"
        )
    lines.extend(_answer_lines(calibration))
    lines.append(written)
    print("\n".join(lines), file=sys.stdout)


def _answer_lines(calibration: Calibration) -> list[str]:
    rule: Any = calibration.record.get("answer_rule", {})
    if "skipped" in rule:
        return [f"t_answer: none ({rule['skipped']})"]
    held = []
    for key, name in (("cross_validation", "k-fold"), ("leave_one_dataset_out", "LODO")):
        if key in rule:
            part = rule[key]
            held.append(
                f"{name} {_num(part['fitted'])} vs {_num(part['claim_rule_alone'])} "
                "with the claim rule alone"
            )
    figures = f" (held-out balanced accuracy on answers: {'; '.join(held)})" if held else ""
    if calibration.t_answer is None:
        return [f"t_answer: none, {rule.get('reason', 'not fitted')}{figures}"]
    return [f"t_answer = {calibration.t_answer:.4f} on {rule['n']} answers{figures}"]


def _pct(value: float | None, interval: list[float] | None) -> str:
    if value is None:
        return "-"
    ci = "" if interval is None else f" (95% CI {interval[0]:.3f}-{interval[1]:.3f})"
    return f"{value:.3f}{ci}"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
