"""The verdict cache: validated judge verdicts on disk, keyed by everything that can change them.

Backed by :class:`diskcache.Cache` (SQLite), which is safe across processes. Values are JSON
text, never pickles, and are validated again when read. Only validated verdicts are stored;
errors never are.

Fail closed: a cache that cannot be opened, read or written raises :class:`CacheFault`, and so
does a stored entry that does not parse, since a corrupt entry means the store cannot be
trusted. Only a key that is absent is a miss.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judge.config import Settings
from judge.errors import CacheFault
from judge.judges.cache_store import note, open_store
from judge.schemas import JudgeTrace
from judge.schemas.judging import EntailmentResult, JudgeLabel, Premise
from judge.schemas.ledger import canonical_hash, content_hash
from judge.state import private_dir, private_files

_FORMAT = 1


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format: int = Field(ge=_FORMAT, le=_FORMAT)
    label: JudgeLabel
    reason: str
    p_supported: float | None = Field(ge=0.0, le=1.0)
    p_contradicted: float | None = Field(ge=0.0, le=1.0)
    evidence_quote: str | None
    evidence_ids: list[str]
    extra: dict[str, float]
    trace: JudgeTrace


def verdict_key(
    *,
    ledger_hash: str | None,
    claim: str,
    question: str | None,
    premise: Premise,
    model: str,
    template_hash: str,
    variant: str,
    decoding: Mapping[str, Any],
) -> str:
    """Canonical hash of everything that can change a verdict (the nonce and timeouts cannot)."""
    key: str = canonical_hash(
        {
            "ledger": ledger_hash,
            "claim": claim,
            "question": question,
            "premise": content_hash(premise.text),
            "pieces": [
                [p.passage_id, p.premise_start, p.premise_end, p.passage_start]
                for p in premise.pieces
            ],
            "model": model,
            "template": template_hash,
            "variant": variant,
            "decoding": dict(decoding),
        }
    )
    return key


def call_key(
    *,
    kind: str,
    ledger_hash: str | None,
    inputs: Mapping[str, str | None],
    model: str,
    template_hash: str,
    decoding: Mapping[str, Any],
) -> str:
    """Canonical hash of a judge call other than a verdict (the answer's main conclusion, a
    sentence's facts): keyed like verdicts, by the ledger, model, template and the call's inputs."""
    key: str = canonical_hash(
        {
            "kind": kind,
            "ledger": ledger_hash,
            "inputs": {name: value for name, value in sorted(inputs.items())},
            "model": model,
            "template": template_hash,
            "decoding": dict(decoding),
        }
    )
    return key


def served_from_cache(trace: JudgeTrace) -> JudgeTrace:
    """``trace`` as a run that found its verdict in the cache reports it: no calls, no tokens."""
    return trace.model_copy(
        update={
            "cached": True,
            "calls": 0,
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "latency_s": 0.0,
        }
    )


class _Texts(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format: int = Field(ge=_FORMAT, le=_FORMAT)
    texts: list[str]


class VerdictCache:
    def __init__(self, directory: Path | str) -> None:
        self.directory = Path(directory)
        try:
            private_dir(self.directory)
            self._store = open_store(self.directory)
            private_files(self.directory)
        except Exception as exc:  # any failure of the store fails closed
            raise CacheFault(f"cannot open verdict cache at {self.directory}: {exc}") from exc

    @classmethod
    def from_settings(cls, settings: Settings) -> VerdictCache | None:
        """The cache under ``settings.cache_dir``, or ``None`` when caching is off."""
        if not settings.cache_enabled:
            return None
        try:
            private_dir(settings.state_dir)
        except OSError as exc:
            raise CacheFault(f"cannot open verdict cache at {settings.cache_dir}: {exc}") from exc
        return cls(settings.cache_dir)

    def get(self, key: str) -> EntailmentResult | None:
        """The stored verdict, marked cached (no calls, no tokens); ``None`` on a miss."""
        raw = self._read(key)
        if raw is None:
            return None
        try:
            entry = _Entry.model_validate(json.loads(raw))
        except (ValueError, ValidationError) as exc:
            raise CacheFault(f"corrupt verdict cache entry {key}: {exc}") from exc
        trace = served_from_cache(entry.trace)
        return EntailmentResult(
            label=entry.label,
            reason=entry.reason,
            p_supported=entry.p_supported,
            p_contradicted=entry.p_contradicted,
            evidence_quote=entry.evidence_quote,
            evidence_ids=list(entry.evidence_ids),
            trace=trace,
            extra=dict(entry.extra),
        )

    def put(self, key: str, result: EntailmentResult) -> None:
        """Store a validated verdict."""
        entry = _Entry(
            format=_FORMAT,
            label=result.label,
            reason=result.reason,
            p_supported=result.p_supported,
            p_contradicted=result.p_contradicted,
            evidence_quote=result.evidence_quote,
            evidence_ids=list(result.evidence_ids),
            extra=dict(result.extra),
            trace=result.trace,
        )
        self._write(key, entry.model_dump_json())

    def get_texts(self, key: str) -> list[str] | None:
        """The stored output of a text call (see :func:`call_key`); ``None`` on a miss."""
        raw = self._read(key)
        if raw is None:
            return None
        try:
            return list(_Texts.model_validate(json.loads(raw)).texts)
        except (ValueError, ValidationError) as exc:
            raise CacheFault(f"corrupt verdict cache entry {key}: {exc}") from exc

    def put_texts(self, key: str, texts: list[str]) -> None:
        """Store the validated output of a text call."""
        self._write(key, _Texts(format=_FORMAT, texts=list(texts)).model_dump_json())

    def _read(self, key: str) -> str | None:
        try:
            raw = self._store.get(key, default=None)
        except Exception as exc:
            raise CacheFault(f"cannot read verdict cache: {exc}") from exc
        if raw is not None and not isinstance(raw, str):
            raise CacheFault(f"corrupt verdict cache entry {key}: not JSON text")
        note(key, raw)
        return raw

    def _write(self, key: str, value: str) -> None:
        try:
            self._store.set(key, value)
        except Exception as exc:
            raise CacheFault(f"cannot write verdict cache: {exc}") from exc
        note(key, value)

    def close(self) -> None:
        self._store.close()
