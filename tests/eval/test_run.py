"""`judge eval` end to end against the scripted fake judge: predictions, resuming, reports."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judge.cli.app import main
from judge.config import Settings
from judge.eval.records import load_records, read_predictions
from judge.eval.run import evaluate
from judge.schemas import Claim
from judge.schemas.judging import EntailmentResult, Premise
from tests.support.fake_judge import (
    FAKE_MODEL,
    FakeJudgeServer,
    fenced,
    http_error,
    requested_variant,
    run_fake_openai_server,
    verdict_response,
)

SEED_SUMMARY = "SEED-SUMMARY-NEVER-SENT"
PASSAGES = [
    "The bridge opened in 1932.",
    "The bridge is 503 metres long.",
    "The city has two rivers.",
    "The museum holds paintings by local artists.",
    "The harbour freezes in January.",
    "The old town hall burned down in 1890.",
]


def _passages(*texts: str) -> list[dict[str, str]]:
    return [{"id": f"p{i}", "text": text} for i, text in enumerate(texts, start=1)]


RECORDS: list[dict[str, Any]] = [
    # Six cited passages: over the default per-claim cap, and stuffing by the default rule.
    {
        "id": "c1",
        "dataset": "toy-claims",
        "evidence": _passages(*PASSAGES),
        "claim": "The harbour freezes in January.",
        "label": "supported",
        "meta": {"numeric": True, "original_summary": SEED_SUMMARY},
    },
    {
        "id": "c2",
        "dataset": "toy-claims",
        "evidence": _passages(PASSAGES[1]),
        "claim": "The bridge is 900 metres long.",
        "label": "contradicted",
        "meta": {"numeric": True},
    },
    {
        "id": "c3",
        "dataset": "toy-claims",
        "evidence": _passages(PASSAGES[3]),
        "claim": "The museum was founded by a famous sculptor.",
        "label": "unsupported",
        "meta": {"numeric": False},
    },
    {
        "id": "a1",
        "dataset": "toy-answers",
        "evidence": _passages(PASSAGES[0], PASSAGES[1]),
        "answer": "The bridge opened in 1932. The bridge is 503 metres long.",
        "label": "faithful",
        "meta": {"numeric": True},
    },
    {
        "id": "a2",
        "dataset": "toy-answers",
        "evidence": _passages(PASSAGES[0], PASSAGES[1]),
        "answer": "The bridge opened in 1932. A team of forty engineers from Paris designed it.",
        "label": "hallucinated",
        "meta": {"numeric": True, "original_summary": SEED_SUMMARY},
    },
]
IDS = [r["id"] for r in RECORDS]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    return path


@pytest.fixture
def server(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[tuple[FakeJudgeServer, str]]:
    monkeypatch.setenv("JUDGE_STATE_DIR", str(tmp_path / "state"))
    fake = FakeJudgeServer()
    with run_fake_openai_server(fake.handler) as url:
        yield fake, url


def _eval(data: Path, out: Path, url: str, *extra: str) -> int:
    return main(
        [
            "eval",
            str(data),
            "--out",
            str(out),
            "--base-url",
            url,
            "--model",
            FAKE_MODEL,
            "--no-cache",
            "--no-progress",
            *extra,
        ]
    )


def _judged_claims(fake: FakeJudgeServer) -> list[str]:
    blocks = [fenced(r) for r in fake.requests]
    return [b["CLAIM"] for b in blocks if "CLAIM" in b]


def _ids(path: Path) -> list[str]:
    return [p["id"] for p in read_predictions(path)]


def test_eval_resumes_after_limit_and_torn_line(
    data: Path, tmp_path: Path, server: tuple[FakeJudgeServer, str]
) -> None:
    fake, url = server
    out = tmp_path / "pred.jsonl"
    assert _eval(data, out, url, "--limit", "2") == 0
    assert _ids(out) == ["c1", "c2"]

    # A run killed while writing leaves a torn last line; it is dropped and that record redone.
    with out.open("a", encoding="utf-8") as handle:
        handle.write('{"id": "c3", "dataset": "toy-cl')
    judged_before = len(_judged_claims(fake))
    assert _eval(data, out, url, "--concurrency", "2") == 0

    assert sorted(_ids(out)) == sorted(IDS)
    assert out.read_text(encoding="utf-8").endswith("\n")
    # Finished records are not judged again; the torn one is.
    rerun = _judged_claims(fake)[judged_before:]
    assert RECORDS[0]["claim"] not in rerun
    assert RECORDS[2]["claim"] in rerun
    # Only evidence and claim or answer reach the judge, never meta.
    assert all(SEED_SUMMARY not in json.dumps(r) for r in fake.requests)


def test_predictions_carry_labels_scores_and_costs(
    data: Path, tmp_path: Path, server: tuple[FakeJudgeServer, str]
) -> None:
    _, url = server
    out = tmp_path / "pred.jsonl"
    assert _eval(data, out, url) == 0
    by_id = {p["id"]: p for p in read_predictions(out)}

    c1 = by_id["c1"]
    # Six cited passages did not trip the citation cap or stuffing: the judge decided.
    assert (c1["predicted"], c1["gold"], c1["error"]) == ("supported", "supported", None)
    assert c1["score"] == pytest.approx(0.9, abs=0.01)
    assert c1["judge_calls"] == 1
    assert c1["prompt_tokens"] > 0
    assert c1["verdicts"][0]["label"] == "supported"
    assert set(c1["verdicts"][0]["claim"]["citations"]) == {f"p{i}" for i in range(1, 7)}
    assert c1["numeric"] is True

    # 900 vs 503 metres: an exact check decides without a model call, and as the evidence
    # states another value of the same kind, the three-label view reads a contradiction.
    c2 = by_id["c2"]
    assert c2["predicted"] == "contradicted"
    assert c2["verdicts"][0]["label"] == "number_mismatch"
    assert c2["verdicts"][0]["finding"] == "conflict"
    assert c2["decided_by_checks"] is True
    assert c2["judge_calls"] == 0
    assert c2["score"] is None

    assert by_id["c3"]["predicted"] == "unsupported"
    assert by_id["a1"]["predicted"] == "faithful"
    assert by_id["a1"]["action"] == "pass"
    assert by_id["a2"]["predicted"] == "hallucinated"
    assert by_id["a2"]["action"] != "pass"


def test_errors_fail_closed_and_retry_errors_redoes_them(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_STATE_DIR", str(tmp_path / "state"))
    failing = FakeJudgeServer(lambda request: http_error(500))
    out = tmp_path / "pred.jsonl"
    with run_fake_openai_server(failing.handler) as url:
        assert _eval(data, out, url, "--limit", "1", "--timeout", "5") == 4  # all erred
    [failed] = read_predictions(out)
    assert failed["id"] == "c1"
    assert failed["predicted"] == "unsupported"  # a verifier error never counts as supported
    assert failed["error"].startswith("verifier_error")

    healthy = FakeJudgeServer()
    with run_fake_openai_server(healthy.handler) as url:
        assert _eval(data, out, url, "--limit", "1") == 4  # not redone: it still counts
        assert read_predictions(out) == [failed]
        assert _eval(data, out, url, "--limit", "1", "--retry-errors") == 0
    [redone] = read_predictions(out)
    assert (redone["id"], redone["predicted"], redone["error"]) == ("c1", "supported", None)


class _GatedJudge:
    """Judges the first ``allowed`` claims, then waits forever: a run to interrupt."""

    def __init__(self, inner: Any, allowed: int) -> None:
        self._inner = inner
        self._allowed = allowed
        self.model_id = FAKE_MODEL

    async def entail(
        self, claim: Claim, premise: Premise, question: str | None = None
    ) -> EntailmentResult:
        if self._allowed <= 0:
            await asyncio.Event().wait()
        self._allowed -= 1
        result: EntailmentResult = await self._inner.entail(claim, premise, question)
        return result


async def test_cancelled_run_keeps_finished_records_and_resumes(data: Path, tmp_path: Path) -> None:
    records = load_records(data)
    settings = Settings(base_url="http://fake-judge.test/v1", cache_enabled=False)
    out = tmp_path / "pred.jsonl"
    fake = FakeJudgeServer()
    async with fake.judge(settings) as inner:
        task = asyncio.create_task(
            evaluate(records, out, settings, judge=_GatedJudge(inner, 1), progress=False)
        )
        # c1 is judged, c2 is decided by an exact check; c3 then waits on the gate.
        for _ in range(500):
            if out.exists() and len(read_predictions(out)) == 2:
                break
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert _ids(out) == ["c1", "c2"]

        outcome = await evaluate(
            records, out, settings, judge=_GatedJudge(inner, 99), progress=False
        )
    assert (outcome.skipped, outcome.written) == (2, 3)
    ids = _ids(out)
    assert sorted(ids) == sorted(IDS)
    assert len(ids) == len(set(ids))


def test_report_of_existing_predictions(
    data: Path,
    tmp_path: Path,
    server: tuple[FakeJudgeServer, str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, url = server
    out = tmp_path / "pred.jsonl"
    assert _eval(data, out, url) == 0
    capsys.readouterr()
    folder = tmp_path / "report"
    assert main(["eval", "--report", str(out), "--report-dir", str(folder)]) == 0
    printed = capsys.readouterr().out
    assert "claims: accuracy and cost" in printed
    assert "answers: accuracy and cost" in printed
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    assert report["n"] == 5
    assert report["claims"]["n"] == 3
    assert report["claims"]["by_dataset"]["toy-claims"]["n"] == 3
    assert set(report["claims"]["by_numeric"]) == {"numeric", "not numeric"}
    assert report["claims"]["decided_by_checks_share"] == pytest.approx(1 / 3)
    for name in ("claims_reliability.png", "claims_pr.png", "claims_scores.png"):
        assert (folder / name).read_bytes().startswith(b"\x89PNG")


def test_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(tmp_path / "x.jsonl")]) == 2
    assert main(["eval", "--report", "p.jsonl", "--out", "q.jsonl"]) == 2
    assert "judge eval: error" in capsys.readouterr().err


# P(supported) the scripted judge gives each claim; the gold labels split them between 0.6
# and 0.8, so calibrating for balanced accuracy puts t_entail at 0.7.
HARBOUR = "The harbour is busy and large."
SCORED_CLAIMS = {
    "The harbour is busy.": ("supported", 0.9),
    "The harbour is large.": ("supported", 0.8),
    "The harbour is quiet.": ("unsupported", 0.6),
    "The harbour is small.": ("unsupported", 0.55),
}


def _scored_judge(request: dict[str, Any]) -> Any:
    p = SCORED_CLAIMS[fenced(request)["CLAIM"].strip()][1]
    scores = {"supported": p, "unsupported": 0.98 - p, "contradicted": 0.02}
    variant = requested_variant(request)
    return verdict_response(
        "supported", "scripted", HARBOUR, ["p1"], variant=variant, scores=scores
    )


def test_calibration_from_eval_changes_verify_decisions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state"
    monkeypatch.setenv("JUDGE_STATE_DIR", str(state))
    records = [
        {
            "id": f"h{i}",
            "dataset": "harbour",
            "evidence": [{"id": "p1", "text": HARBOUR}],
            "claim": claim,
            "label": gold,
        }
        for i, (claim, (gold, _)) in enumerate(SCORED_CLAIMS.items())
    ]
    data = tmp_path / "harbour.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    request = tmp_path / "request.json"
    request.write_text(
        json.dumps(
            {
                "evidence": [{"id": "p1", "text": HARBOUR}],
                "claims": [{"text": "The harbour is quiet.", "chunk_id": "p1"}],
            }
        ),
        encoding="utf-8",
    )
    fake = FakeJudgeServer(_scored_judge)
    with run_fake_openai_server(fake.handler) as url:
        judge_flags = ["--base-url", url, "--model", FAKE_MODEL, "--no-cache"]
        # Default t_entail 0.5: the claim scored 0.6 is supported and the answer passes.
        assert main(["verify", str(request), "--json", *judge_flags]) == 0
        before = json.loads(capsys.readouterr().out)
        assert before["verdicts"][0]["label"] == "supported"
        assert before["verdicts"][0]["score"] == pytest.approx(0.6, abs=0.01)

        pred = tmp_path / "pred.jsonl"
        assert main(["eval", str(data), "--out", str(pred), "--no-progress", *judge_flags]) == 0
        assert {p["calibration_hash"] for p in read_predictions(pred)} == {None}
        # Written to the state directory, where `judge verify` looks without being told.
        assert main(["calibrate", str(pred), "--target", "balanced_accuracy"]) == 0
        assert (state / "calibration.json").is_file()
        capsys.readouterr()

        assert main(["verify", str(request), "--json", *judge_flags]) == 1
        after = json.loads(capsys.readouterr().out)
    assert after["verdicts"][0]["label"] == "unsupported"
    assert after["verdicts"][0]["score"] == pytest.approx(0.6, abs=0.01)
    assert after["calibration_hash"] is not None
    assert after["calibration_hash"] != before["calibration_hash"]
