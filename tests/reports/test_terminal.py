"""Terminal output shows data as it is: no Rich markup, emoji codes or control characters act,
and tables fit 60, 80 and 120 columns without cutting a number."""

from __future__ import annotations

import io
import random
import re

import pytest

from judge.audit.stats import Stats
from judge.cli.replay import Change, Replay
from judge.cli.replay import report as replay_report
from judge.cli.stats import render as stats_render
from judge.eval.report import build_report
from judge.eval.report import render as eval_render
from judge.reports.console import fitted_tables, make_console, printable
from judge.reports.terminal import render_table
from judge.schemas import (
    Action,
    CheckOutcome,
    CheckStatus,
    Claim,
    ClaimVerdict,
    Label,
    VerifyResponse,
)

HOSTILE = "Run the tool in [local] mode [S1] [red]flag[/red] :smile: \x1b[31mred\x1b[0m \u202eevil"


def _response(text: str = HOSTILE, reason: str = "why [bold]x[/bold] \x07bell") -> VerifyResponse:
    verdict = ClaimVerdict(
        claim=Claim(id="c[1]", text=text, citations=("S[1]",)),
        label=Label.UNSUPPORTED,
        score=0.12,
        reason=reason,
    )
    return VerifyResponse(
        request_id="r1",
        action=Action.BLOCK,
        reasons=["c1 unsupported [dim]x[/dim]\r\x1b[2Kfake"],
        ledger_hash="sha256:" + "0" * 64,
        verdicts=[verdict],
        judge_calls=1,
        seconds=0.5,
    )


def _has_no_raw_controls(out: str) -> None:
    assert "\x1b" not in out and "\x07" not in out and "\r" not in out and "\u202e" not in out


def test_printable_writes_controls_and_bidi_as_visible_escapes() -> None:
    assert printable("a\x1b[31mb\r\x00\u202ec\u2066d\u200b") == (
        "a\\x1b[31mb\\x0d\\x00\\u202ec\\u2066d\\u200b"
    )
    assert printable("kept:\nnew line\tand tab, [brackets], ünïcode") == (
        "kept:\nnew line\tand tab, [brackets], ünïcode"
    )


def test_verdict_table_shows_the_claim_exactly_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    out = io.StringIO()
    render_table(_response(), out)
    text = out.getvalue()
    _has_no_raw_controls(text)
    assert "Run the tool in [local] mode [S1] [red]flag[/red] :smile: \\x1b[31mred" in text
    assert "\\u202eevil" in text
    assert "why [bold]x[/bold] \\x07bell" in text
    assert "c[1]" in text and "S[1]" in text
    assert "[dim]x[/dim]\\x0d\\x1b[2Kfake" in text
    assert "request r1" in text  # the id `judge replay` takes


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_verdict_table_honours_columns(monkeypatch: pytest.MonkeyPatch, columns: int) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    out = io.StringIO()
    render_table(_response(), out)
    lines = out.getvalue().splitlines()
    assert max(len(line) for line in lines) <= columns
    assert "0.12" in out.getvalue()


def _predictions() -> list[dict[str, object]]:
    rng = random.Random(3)
    labels = ["supported", "unsupported", "contradicted"]
    return [
        {
            "id": str(i),
            "dataset": rng.choice(["ds[red]x[/red]", "ragtruth-long-dataset-name"]),
            "kind": "claim",
            "gold": rng.choice(labels),
            "predicted": rng.choice(labels),
            "score": rng.random(),
            "numeric": rng.choice([True, False]),
            "judge_calls": 2,
            "prompt_tokens": 1234,
            "completion_tokens": 3,
            "seconds": 12.5,
        }
        for i in range(60)
    ]


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_eval_report_never_cuts_a_metric(monkeypatch: pytest.MonkeyPatch, columns: int) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    report = build_report(_predictions())
    out = io.StringIO()
    eval_render(report, out)
    text = out.getvalue()
    assert max(len(line) for line in text.splitlines()) <= columns
    assert "…" not in text
    block = report["claims"]
    for key in ("balanced_accuracy", "roc_auc", "pr_auc_flagged"):
        assert f"{block[key]:.3f}" in text
    assert f"{block['labels']['contradicted']['f1']:.3f}" in text
    assert re.search(r"\b1237\b", text)  # tokens per claim
    assert "12.50" in text  # seconds per claim
    assert "ds[red]x[/red]" in text  # a dataset name is data, not markup


def test_fitted_tables_split_only_when_needed() -> None:
    headers = ["name", *(f"metric {i}" for i in range(10))]
    rows: list[list[str | object]] = [["all", *(f"{i}.123" for i in range(10))]]
    wide = make_console(io.StringIO())
    wide.width = 200
    assert len(fitted_tables(wide, "t", headers, rows)) == 1  # type: ignore[arg-type]
    narrow = make_console(io.StringIO())
    narrow.width = 40
    tables = fitted_tables(narrow, "t", headers, rows)  # type: ignore[arg-type]
    assert len(tables) > 1
    assert all(t.columns[0].header == "name" for t in tables)


def test_default_width_without_a_terminal_or_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    assert make_console(io.StringIO()).width == 120


def test_replay_and_stats_escape_logged_text() -> None:
    response = _response()
    out = io.StringIO()
    replay_report(
        Replay("r1", response, response, [Change("c\x1b1", "supported", "unsupported", HOSTILE)]),
        out,
    )
    _has_no_raw_controls(out.getvalue())
    assert "c\\x1b1" in out.getvalue()
    stats = Stats()
    stats.add(None, response, 0.1)
    out = io.StringIO()
    stats_render(stats, "7d", 10, out)
    _has_no_raw_controls(out.getvalue())


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_redteam_report_escapes_cases_and_fits(
    monkeypatch: pytest.MonkeyPatch, columns: int
) -> None:
    from judge.redteam.report import FamilyRow, Report, render
    from judge.redteam.scoring import CaseResult, Status

    monkeypatch.setenv("COLUMNS", str(columns))
    missed = CaseResult(
        case_id="injection/[red]x[/red]",
        family="injection",
        transform="t",
        seed_id="s",
        expected="block",
        got="pass \x1b[2J",
        status=Status.MISSED,
        why=":smile: [bold]why[/bold]",
        judge_dependent=False,
        counted=True,
        flip=True,
        to_pass=True,
        new_support=(),
        must_block_passed=True,
        fault=False,
        seconds=0.25,
        judge_calls=0,
    )
    row = FamilyRow("injection", 1, 0, 1, 0, 0, 0, 1, 1, 0.25)
    report = Report("1", "fake", True, ["seed"], [row], [missed], 1.0)
    out = io.StringIO()
    render(report, make_console(out))
    text = out.getvalue()
    _has_no_raw_controls(text)
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= columns
    assert "must-block case PASSED: injection/[red]x[/red]" in text
    if columns == 120:  # narrower tables fold the cells over lines
        assert ":smile: [bold]why[/bold]" in text and "pass \\x1b[2J" in text


def test_verdict_table_shows_each_computed_value_with_its_computation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    response = _response("The margin widened by 2.4 percentage points.", "passed the checks")
    response.verdicts[0].checks = [
        CheckOutcome(
            check="arithmetic",
            status=CheckStatus.PASSED,
            derivations=("2.4 percentage points = 18.5% − 16.1%",),
        )
    ]
    out = io.StringIO()
    render_table(response, out)
    assert "computed: 2.4 percentage points = 18.5% − 16.1%" in out.getvalue()
