"""Named schema migrations of the audit log, applied in order and recorded in ``migrations``.

A migration is never edited once released: a change to the schema is a new migration at the
end of ``MIGRATIONS``. Each one runs in its own transaction together with the row that records
it, so a crash leaves the database either before or after the migration, never half-way.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from judge.audit.chain import GENESIS, iter_chain, record_digest, stored_rows


@dataclass(frozen=True)
class Migration:
    name: str
    statements: tuple[str, ...]
    # Python run after the statements, in the same transaction (what SQL cannot compute).
    then: Callable[[sqlite3.Connection], None] | None = None


APPEND_ONLY_TABLES = ("records", "passages", "verdicts", "migrations")


def _append_only_trigger(table: str, event: str) -> str:
    return (
        f"CREATE TRIGGER {table}_no_{event.lower()} BEFORE {event} ON {table} "
        f"BEGIN SELECT RAISE(ABORT, 'audit log is append-only: {event} on {table}'); END"
    )


def _append_only_triggers() -> tuple[str, ...]:
    return tuple(
        _append_only_trigger(table, event)
        for table in APPEND_ONLY_TABLES
        for event in ("UPDATE", "DELETE")
    )


# REPLACE deletes the old row without firing DELETE triggers (recursive_triggers is off by
# default), so an insert whose key already exists is refused before it can replace anything.
_KEYS = {
    "records": "id = NEW.id",
    "passages": "record_id = NEW.record_id AND position = NEW.position",
    "verdicts": "record_id = NEW.record_id AND position = NEW.position",
    "migrations": "name = NEW.name",
}


def _no_replace_triggers() -> tuple[str, ...]:
    return tuple(
        f"CREATE TRIGGER {table}_no_replace BEFORE INSERT ON {table} "
        f"WHEN EXISTS (SELECT 1 FROM {table} WHERE {key}) "
        f"BEGIN SELECT RAISE(ABORT, 'audit log is append-only: REPLACE on {table}'); END"
        for table, key in _KEYS.items()
    )


_UNHASHED_INSERT = (
    "CREATE TRIGGER records_need_hash BEFORE INSERT ON records WHEN NEW.record_hash IS NULL "
    "OR NEW.prev_hash IS NULL "
    "BEGIN SELECT RAISE(ABORT, 'audit log records must carry their chain hashes'); END"
)


def _seal_existing_records(conn: sqlite3.Connection) -> None:
    """Chain the records logged before the chain existed, oldest first. UPDATE is refused by
    a trigger, which is lifted for this transaction only."""
    conn.execute("DROP TRIGGER records_no_update")
    prev = GENESIS
    for _, record, _, _ in list(iter_chain(conn)):
        passages, verdicts = stored_rows(conn, str(record[0]))
        digest = record_digest(prev, record, passages, verdicts)
        conn.execute(
            "UPDATE records SET prev_hash = ?, record_hash = ? WHERE id = ?",
            (prev, digest, record[0]),
        )
        prev = digest
    conn.execute(_append_only_trigger("records", "UPDATE"))


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        "m001_records",
        (
            """
            CREATE TABLE records (
                id TEXT PRIMARY KEY,
                created_at TEXT NOT NULL,
                created_ts REAL NOT NULL,
                action TEXT,
                ledger_hash TEXT,
                request_json TEXT,
                response_json TEXT
            )
            """,
        ),
    ),
    Migration(
        "m002_ledger_and_verdicts",
        (
            """
            CREATE TABLE passages (
                record_id TEXT NOT NULL REFERENCES records(id),
                position INTEGER NOT NULL,
                passage_id TEXT NOT NULL,
                hash TEXT NOT NULL,
                source TEXT NOT NULL,
                text TEXT NOT NULL,
                timestamp TEXT,
                trust_tier TEXT,
                PRIMARY KEY (record_id, position)
            )
            """,
            """
            CREATE TABLE verdicts (
                record_id TEXT NOT NULL REFERENCES records(id),
                position INTEGER NOT NULL,
                claim_id TEXT NOT NULL,
                claim_text TEXT NOT NULL,
                origin TEXT NOT NULL,
                citations_json TEXT NOT NULL,
                label TEXT NOT NULL,
                score REAL,
                contradiction_score REAL,
                reason TEXT NOT NULL,
                error TEXT,
                model TEXT,
                template TEXT,
                template_hash TEXT,
                calibration_hash TEXT,
                cached INTEGER,
                judge_calls INTEGER,
                judge_latency_s REAL,
                first_tier_score REAL,
                agrees_with_first_tier INTEGER,
                PRIMARY KEY (record_id, position)
            )
            """,
        ),
    ),
    Migration(
        "m003_record_kind_latency_extra",
        (
            "ALTER TABLE records ADD COLUMN kind TEXT NOT NULL DEFAULT 'verify'",
            "ALTER TABLE records ADD COLUMN calibration_hash TEXT",
            "ALTER TABLE records ADD COLUMN seconds REAL",
            "ALTER TABLE records ADD COLUMN latency_s REAL",
            "ALTER TABLE records ADD COLUMN extra_json TEXT",
        ),
    ),
    Migration("m004_append_only", _append_only_triggers()),
    Migration(
        "m005_time_and_kind_indexes",
        (
            "CREATE INDEX records_created_ts ON records(created_ts)",
            "CREATE INDEX records_kind_created_ts ON records(kind, created_ts)",
            "CREATE INDEX passages_source ON passages(source)",
            "CREATE INDEX verdicts_label ON verdicts(label)",
        ),
    ),
    Migration(
        "m006_hash_chain",
        (
            "ALTER TABLE records ADD COLUMN prev_hash TEXT",
            "ALTER TABLE records ADD COLUMN record_hash TEXT",
            *_no_replace_triggers(),
            _UNHASHED_INSERT,
        ),
        then=_seal_existing_records,
    ),
)

# Every trigger the migrations create: ``judge audit verify`` reports any that went missing.
TRIGGERS: tuple[str, ...] = (
    *(f"{t}_no_{e}" for t in APPEND_ONLY_TABLES for e in ("update", "delete")),
    *(f"{t}_no_replace" for t in _KEYS),
    "records_need_hash",
)


def applied(conn: sqlite3.Connection) -> list[str]:
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'"
    ).fetchone()
    if exists is None:
        return []
    return [row[0] for row in conn.execute("SELECT name FROM migrations ORDER BY rowid")]


def migrate(conn: sqlite3.Connection, migrations: Sequence[Migration] = MIGRATIONS) -> list[str]:
    """Apply every migration not yet recorded; returns the names applied now.

    ``conn`` must be in autocommit mode (``isolation_level=None``): transactions are explicit.
    """
    conn.execute(
        "CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    done = set(applied(conn))
    unknown = done - {m.name for m in MIGRATIONS}
    if unknown:
        names = ", ".join(sorted(unknown))
        raise sqlite3.DatabaseError(f"audit log is newer than this version (migrations {names})")
    now_applied: list[str] = []
    for migration in migrations:
        if migration.name in done:
            continue
        # IMMEDIATE takes the write lock up front, so two processes opening a fresh log at once
        # do not both try the same migration.
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute(
                "SELECT 1 FROM migrations WHERE name = ?", (migration.name,)
            ).fetchone():
                conn.execute("ROLLBACK")
                continue
            for statement in migration.statements:
                conn.execute(statement)
            if migration.then is not None:
                migration.then(conn)
            conn.execute(
                "INSERT INTO migrations (name, applied_at) VALUES (?, ?)",
                (migration.name, datetime.now(UTC).isoformat()),
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        now_applied.append(migration.name)
    return now_applied
