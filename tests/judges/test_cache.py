"""The verdict cache: canonical keys, JSON entries, fail-closed reads and writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from judge.errors import CacheFault
from judge.judges.cache import VerdictCache, verdict_key
from judge.schemas import JudgeTrace
from judge.schemas.judging import EntailmentResult, Premise, PremisePiece

PREMISE = Premise(text="[S1]\nRefunds take 5 days.", pieces=(PremisePiece("S1", 5, 24, 0),))
DECODING = {"temperature": 0.0, "max_tokens": 256, "logprobs": True, "top_logprobs": 10}


def _key(**changes: Any) -> str:
    values: dict[str, Any] = {
        "ledger_hash": "sha256:" + "1" * 64,
        "claim": "Refunds take 5 days.",
        "question": None,
        "premise": PREMISE,
        "model": "m",
        "template_hash": "sha256:" + "2" * 64,
        "variant": "label_first",
        "decoding": DECODING,
    }
    values.update(changes)
    return verdict_key(**values)


def _result() -> EntailmentResult:
    trace = JudgeTrace(
        model="m",
        template="entail.j2:label_first",
        template_hash="sha256:" + "2" * 64,
        calls=2,
        prompt_tokens=300,
        completion_tokens=40,
        window=0,
        raw_label="supported",
        latency_s=1.5,
    )
    return EntailmentResult(
        label="supported",
        reason="stated",
        p_supported=0.93,
        p_contradicted=0.02,
        evidence_quote="Refunds take 5 days.",
        evidence_ids=["S1"],
        trace=trace,
        extra={"p_unsupported": 0.05},
    )


def test_round_trip_marks_the_hit_cached_and_free(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path)
    key = _key()
    assert cache.get(key) is None
    cache.put(key, _result())
    hit = cache.get(key)
    assert hit is not None
    assert (hit.label, hit.p_supported, hit.evidence_ids) == ("supported", 0.93, ["S1"])
    assert hit.extra == {"p_unsupported": 0.05}
    assert hit.trace.cached is True
    assert (hit.trace.calls, hit.trace.prompt_tokens, hit.trace.latency_s) == (0, 0, 0.0)
    assert hit.trace.template_hash == _result().trace.template_hash
    cache.close()


def test_key_is_canonical_and_names_its_algorithm() -> None:
    assert _key() == _key()
    assert _key().startswith("sha256:")
    assert _key(decoding=dict(reversed(list(DECODING.items())))) == _key()


@pytest.mark.parametrize(
    "change",
    [
        {"ledger_hash": None},
        {"claim": "Refunds take 6 days."},
        {"question": "When?"},
        {"premise": Premise(text="[S1]\nRefunds take 6 days.", pieces=PREMISE.pieces)},
        {"premise": Premise(text=PREMISE.text, pieces=(PremisePiece("S1", 5, 24, 3),))},
        {"model": "m2"},
        {"template_hash": "sha256:" + "3" * 64},
        {"variant": "quote_first"},
        {"decoding": {**DECODING, "temperature": 0.2}},
        {"decoding": {**DECODING, "logprobs": False}},
    ],
)
def test_every_part_changes_the_key(change: dict[str, Any]) -> None:
    assert _key(**change) != _key()


def test_corrupt_entries_fail_closed(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path)
    cache._store.set("not-json", "{oops")
    cache._store.set("wrong-shape", '{"format": 1, "label": "maybe"}')
    cache._store.set("not-text", b"\x80\x04binary")
    cache._store.set("old-format", _result_json(format=0))
    for key in ("not-json", "wrong-shape", "not-text", "old-format"):
        with pytest.raises(CacheFault):
            cache.get(key)


def _result_json(**changes: Any) -> str:
    cache_entry = {
        "format": 1,
        "label": "supported",
        "reason": "r",
        "p_supported": None,
        "p_contradicted": None,
        "evidence_quote": None,
        "evidence_ids": [],
        "extra": {},
        "trace": {"model": "m", "template": "t", "template_hash": "sha256:" + "0" * 64},
    }
    cache_entry.update(changes)
    return json.dumps(cache_entry)


def test_an_unopenable_directory_is_a_fault(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(CacheFault):
        VerdictCache(blocker / "cache")


def test_a_closed_or_broken_store_is_a_fault_not_a_miss(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path)

    class Broken:
        def get(self, *args: Any, **kwargs: Any) -> Any:
            raise OSError("disk gone")

        def set(self, *args: Any, **kwargs: Any) -> Any:
            raise OSError("disk full")

    cache._store = Broken()
    with pytest.raises(CacheFault, match="read"):
        cache.get(_key())
    with pytest.raises(CacheFault, match="write"):
        cache.put(_key(), _result())
