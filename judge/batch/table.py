"""Output rows as an Arrow table (Parquet output, Ray batches) and back."""

from __future__ import annotations

import json
from typing import Any

from judge.batch.outcome import Row

COLUMNS = (
    "id", "source", "status", "action", "verdicts", "errors", "judge_calls", "prompt_tokens",
    "completion_tokens", "seconds", "request_id",
)  # fmt: skip


def rows_table(rows: list[Row]) -> Any:
    """Rows as an Arrow table: verdicts as JSON text, errors as a list of strings."""
    import pyarrow as pa

    data: dict[str, Any] = {name: [row[name] for row in rows] for name in COLUMNS}
    data["verdicts"] = [json.dumps(row["verdicts"], ensure_ascii=False) for row in rows]
    schema = pa.schema(
        [
            ("id", pa.string()), ("source", pa.string()), ("status", pa.string()),
            ("action", pa.string()), ("verdicts", pa.string()), ("errors", pa.list_(pa.string())),
            ("judge_calls", pa.int64()), ("prompt_tokens", pa.int64()),
            ("completion_tokens", pa.int64()), ("seconds", pa.float64()),
            ("request_id", pa.string()),
        ]
    )  # fmt: skip
    return pa.table(data, schema=schema)


def row_from(record: dict[str, Any]) -> Row:
    """A row read back from a table: verdicts parsed, errors a plain list."""
    row = {name: record[name] for name in COLUMNS}
    row["verdicts"] = json.loads(row["verdicts"]) if row["verdicts"] else []
    row["errors"] = list(row["errors"] or [])
    return row
