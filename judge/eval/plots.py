"""PNG plots of an evaluation: reliability diagram, precision-recall curve, score histograms.

Rendered with matplotlib's Agg backend, so no display is needed. One set per level (claims,
answers) that has scores; levels without any score get no plots.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from judge.eval.metrics import precision_recall_curve, reliability_bins
from judge.eval.report import LEVELS, split_levels


def write_plots(predictions: Sequence[dict[str, Any]], folder: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for level, group in split_levels(predictions).items():
        labels, positive = LEVELS[level]
        scored = [p for p in group if p.get("score") is not None]
        if not scored:
            continue
        scores = [float(p["score"]) for p in scored]
        gold = [str(p["gold"]) for p in scored]
        is_positive = [g == positive for g in gold]
        written.append(_reliability(scores, is_positive, level, positive, folder))
        written.append(_pr_curves(scores, is_positive, level, positive, folder))
        written.append(_histograms(scores, gold, labels, level, folder))
    return written


def _reliability(
    scores: Sequence[float], positive: Sequence[bool], level: str, name: str, folder: Path
) -> Path:
    import matplotlib.pyplot as plt

    bins = reliability_bins(scores, positive)
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfect calibration")
    ax.plot(
        [b.mean_score for b in bins], [b.positive_rate for b in bins], marker="o", label="verifier"
    )
    for b in bins:
        ax.annotate(
            str(b.count),
            (b.mean_score, b.positive_rate),
            fontsize=7,
            xytext=(3, 3),
            textcoords="offset points",
        )
    ax.set(
        xlim=(0, 1),
        ylim=(0, 1),
        xlabel=f"mean P({name}) in bin",
        ylabel=f"share gold {name}",
        title=f"{level}: reliability (n per point)",
    )
    ax.legend(loc="upper left")
    return _save(fig, folder / f"{level}_reliability.png")


def _pr_curves(
    scores: Sequence[float], positive: Sequence[bool], level: str, name: str, folder: Path
) -> Path:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 5))
    curves = (
        (f"{name} (score)", scores, positive),
        (f"flagged, not {name} (1 - score)", [1 - s for s in scores], [not p for p in positive]),
    )
    for label, values, hits in curves:
        _, precision, recall = precision_recall_curve(values, hits)
        if precision:
            ax.step([0.0, *recall], [precision[0], *precision], where="post", label=label)
    ax.set(
        xlim=(0, 1),
        ylim=(0, 1.02),
        xlabel="recall",
        ylabel="precision",
        title=f"{level}: precision-recall",
    )
    ax.legend(loc="lower left")
    return _save(fig, folder / f"{level}_pr.png")


def _histograms(
    scores: Sequence[float], gold: Sequence[str], labels: Sequence[str], level: str, folder: Path
) -> Path:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    edges = [i / 20 for i in range(21)]
    for label in labels:
        values = [s for s, g in zip(scores, gold, strict=True) if g == label]
        if values:
            ax.hist(values, bins=edges, alpha=0.5, label=f"gold {label} (n={len(values)})")
    ax.set(
        xlim=(0, 1),
        xlabel="score = P(supported)",
        ylabel="records",
        title=f"{level}: scores by gold label",
    )
    ax.legend(loc="upper center")
    return _save(fig, folder / f"{level}_scores.png")


def _save(fig: Any, path: Path) -> Path:
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
