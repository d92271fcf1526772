"""Readable terminal output of a verification response."""

from __future__ import annotations

from typing import TextIO

from rich.console import Console
from rich.table import Table

from judge.schemas import Action, ClaimVerdict, Label, VerifyResponse

_STYLE = {
    Label.SUPPORTED: "green",
    Label.NOT_FACTUAL: "dim",
    Label.UNVERIFIED: "yellow",
    Label.NEEDS_REVIEW: "yellow",
}
_ACTION_STYLE = {
    Action.PASS: "bold green",
    Action.REPAIR: "bold yellow",
    Action.REGENERATE: "bold yellow",
    Action.BLOCK: "bold red",
}


def render_table(response: VerifyResponse, out: TextIO) -> None:
    console = Console(file=out, width=140 if not out.isatty() else None, highlight=False)
    table = Table(show_lines=True)
    table.add_column("claim", no_wrap=True)
    table.add_column("text", ratio=3)
    table.add_column("verdict", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("evidence", ratio=1)
    table.add_column("reason", ratio=3)
    for verdict in response.verdicts:
        table.add_row(
            verdict.claim.id,
            verdict.claim.text,
            f"[{_STYLE.get(verdict.label, 'red')}]{verdict.label.value}[/]",
            "" if verdict.score is None else f"{verdict.score:.2f}",
            _evidence(verdict),
            verdict.reason,
        )
    console.print(table)
    style = _ACTION_STYLE[response.action]
    console.print(f"action: [{style}]{response.action.value.upper()}[/]")
    for reason in response.reasons:
        console.print(f"  - {reason}", markup=False)
    if response.repaired_answer is not None:
        console.print("repaired answer:", style="bold")
        console.print(response.repaired_answer, markup=False)
    console.print(
        f"ledger {response.ledger_hash[:19]}…  judge calls {response.judge_calls}  "
        f"{response.seconds:.2f} s",
        style="dim",
    )


def _evidence(verdict: ClaimVerdict) -> str:
    if verdict.evidence:
        return "\n".join(f"{e.passage_id} [{e.start}:{e.end}]" for e in verdict.evidence)
    return ", ".join(verdict.claim.citations)
