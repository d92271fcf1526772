"""Terminal output that shows untrusted text as it is and fits the terminal.

Claims, reasons, passage ids and sources come from the caller or the judge: they are data. Rich
would read ``[local]`` as markup (and drop it), ``:smile:`` as an emoji code, and pass escape
sequences or bidi overrides straight to the terminal, so a reviewer would read text that is not
the claim. Data goes into ``Text`` objects (never parsed as markup) after :func:`printable` has
replaced every control character with a visible escape.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Collection, Sequence
from typing import TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

# Characters that reorder or hide text on display (Trojan Source, CVE-2021-42574), plus the
# invisible ones that make two different strings look the same.
_INVISIBLE = frozenset(
    "\u061c\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2066\u2067\u2068\u2069\u2060\ufeff"
)
_KEPT = frozenset("\n\t")
DEFAULT_WIDTH = 120  # output to a file or pipe with no COLUMNS


def printable(text: str) -> str:
    """``text`` with control, format and bidi characters written as visible escapes (``\\x1b``,
    ``\\u202e``); newlines and tabs are kept."""
    if text.isprintable() and not _INVISIBLE.intersection(text):
        return text
    return "".join(_visible(ch) for ch in text)


def _visible(ch: str) -> str:
    if ch in _KEPT:
        return ch
    if ch in _INVISIBLE or unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Zl", "Zp"):
        code = ord(ch)
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    return ch


def data(text: str | None, style: str = "") -> Text:
    """Untrusted text as a Rich ``Text``: no markup, no emoji codes, no control characters."""
    return Text(printable(text or ""), style=style)


def terminal_width(out: TextIO) -> int | None:
    """``COLUMNS`` when set, the terminal's own width (``None``) on a terminal, else a default
    wide enough for the tables."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        if out.isatty():
            return None
    except (AttributeError, ValueError):
        pass
    return DEFAULT_WIDTH


def make_console(out: TextIO) -> Console:
    """A console on ``out`` that honours ``COLUMNS`` and never highlights or expands emoji."""
    return Console(file=out, width=terminal_width(out), highlight=False, emoji=False)


Cell = str | Text


def fitted_tables(
    console: Console,
    title: str,
    headers: Sequence[str],
    rows: Sequence[Sequence[Cell]],
    *,
    sections: Collection[int] = (),
) -> list[Table]:
    """One table, or as many as it takes to fit the console's width without cutting a cell:
    the first column (the row's name) is repeated in each, the others are spread greedily.
    ``sections`` are row indices followed by a rule.

    Widths are set here, not left to Rich, whose collapsing cuts numbers to ``0.…`` when a
    table is too wide. A value column is as wide as its widest value or header word (headers
    wrap at spaces); the name column folds past ``_NAME`` cells."""
    widths = [_column_width(headers, rows, i) for i in range(len(headers))]
    widths[0] = min(widths[0], _NAME)
    chunks: list[list[int]] = []
    for index in range(1, len(headers)):
        if chunks and _table_width(widths, [*chunks[-1], index]) <= console.width:
            chunks[-1].append(index)
        else:
            chunks.append([index])
    tables = []
    for number, chunk in enumerate(chunks):
        suffix = f" ({number + 1}/{len(chunks)})" if len(chunks) > 1 else ""
        table = Table(title=f"{title}{suffix}", title_justify="left")
        table.add_column(headers[0], width=widths[0], overflow="fold")
        for index in chunk:
            table.add_column(headers[index], justify="right", width=widths[index])
        for position, row in enumerate(rows):
            table.add_row(row[0], *(row[i] for i in chunk), end_section=position in sections)
        tables.append(table)
    return tables


def _column_width(headers: Sequence[str], rows: Sequence[Sequence[Cell]], index: int) -> int:
    words = [Text(word).cell_len for word in headers[index].split()]
    values = [Text(str(row[index])).cell_len for row in rows]
    return max([1, *words, *values])


def _table_width(widths: Sequence[int], chunk: Sequence[int]) -> int:
    # Each column has one cell of padding either side and a border after it, plus the first.
    return sum(widths[i] + 3 for i in [0, *chunk]) + 1


_NAME = 20  # the row-name column folds past this width
