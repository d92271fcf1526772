"""Readable terminal output of a verification response."""

from __future__ import annotations

from typing import TextIO

from rich.table import Table
from rich.text import Text

from judge.reports.console import data, make_console
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
    # Claim, reason and passage ids are data: Text cells, never parsed as markup.
    console = make_console(out)
    table = Table(show_lines=True)
    table.add_column("claim", overflow="fold")
    table.add_column("text", ratio=3, overflow="fold")
    table.add_column("verdict", overflow="fold")
    table.add_column("score", justify="right", no_wrap=True, min_width=5)
    table.add_column("evidence", ratio=1, overflow="fold")
    table.add_column("reason", ratio=3, overflow="fold")
    for verdict in response.verdicts:
        table.add_row(
            data(verdict.claim.id),
            data(verdict.claim.text),
            Text(verdict.label.value, style=_STYLE.get(verdict.label, "red")),
            "" if verdict.score is None else f"{verdict.score:.2f}",
            data(_evidence(verdict)),
            data(_reason(verdict)),
        )
    console.print(table)
    console.print(
        Text.assemble("action: ", (response.action.value.upper(), _ACTION_STYLE[response.action]))
    )
    for reason in response.reasons:
        console.print(Text("  - ") + data(reason))
    if response.repaired_answer is not None:
        console.print("repaired answer:", style="bold")
        console.print(data(response.repaired_answer))
    console.print(
        f"request {response.request_id}  ledger {response.ledger_hash[:19]}…  "
        f"judge calls {response.judge_calls}  {response.seconds:.2f} s",
        style="dim",
        markup=False,
    )


def _reason(verdict: ClaimVerdict) -> str:
    """The verdict's reason, then each value an exact check computed from the evidence, with
    its computation ("computed: 2.4 percentage points = 18.5% − 16.1%")."""
    computed = [d for check in verdict.checks for d in check.derivations]
    return "\n".join([verdict.reason, *(f"computed: {d}" for d in dict.fromkeys(computed))]).strip()


def _evidence(verdict: ClaimVerdict) -> str:
    if verdict.evidence:
        return "\n".join(f"{e.passage_id} [{e.start}:{e.end}]" for e in verdict.evidence)
    return ", ".join(verdict.claim.citations)
