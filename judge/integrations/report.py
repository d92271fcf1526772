"""A per-claim table in plain text, for test failures and logs. Claim text is data: control,
format and bidi characters are shown escaped, so an answer cannot rewrite the terminal."""

from __future__ import annotations

import unicodedata

from judge.schemas import VerifyResponse

MAX_TEXT = 100


def escape(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` on one line: every control or format character (newline, ESC, U+202E) escaped,
    cut at ``limit`` characters."""
    out = "".join(_visible(ch) for ch in text)
    return out if len(out) <= limit else out[: limit - 1] + "…"


def claim_table(response: VerifyResponse) -> str:
    """One row per claim (id, label, score, cited passages, text), failing claims marked."""
    failing = {v.claim.id for v in response.failing}
    rows = [("", "claim", "label", "score", "cites", "text")]
    for verdict in response.verdicts:
        score = "-" if verdict.score is None else f"{verdict.score:.2f}"
        rows.append(
            (
                "x" if verdict.claim.id in failing else "",
                escape(verdict.claim.id, 20),
                verdict.label.value,
                score,
                escape(",".join(verdict.claim.citations) or "-", 30),
                escape(verdict.claim.text),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = []
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row[:-1], widths, strict=True)]
        lines.append("  ".join([*cells, row[-1]]).rstrip())
    return "\n".join(lines)


def failure_report(response: VerifyResponse) -> str:
    """Why an answer did not pass: the action, the reasons and the claim table."""
    head = f"answer not grounded: action {response.action.value}"
    reasons = [f"  - {escape(reason, 200)}" for reason in response.reasons]
    return "\n".join([head, *reasons, "", claim_table(response)])


def _visible(ch: str) -> str:
    if ch == " " or not unicodedata.category(ch).startswith(("C", "Z")):
        return ch
    if ch in "\n\t\r":
        return {"\n": "\\n", "\t": "\\t", "\r": "\\r"}[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
