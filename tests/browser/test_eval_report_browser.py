"""The HTML report of `judge eval` in a real headless Chromium: the metrics of the terminal
report, each record's gold label next to the prediction, the policy's reasons in the index and
the judge's reason per claim; injected markup in the data stays text."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, sync_playwright

from judge.cli.app import main
from judge.eval.records import read_predictions
from judge.eval.report import build_report
from tests.browser.test_report_browser import ARGS, ARTIFACTS, CHROMIUM, Opened
from tests.support.fake_judge import FAKE_MODEL, FakeJudgeServer, run_fake_openai_server

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium binary on PATH (apt-get install chromium)"
)

BRIDGE = "The bridge opened in 1932 and carries six lanes."
HOSTILE = "<b>bold</b><script>alert(document.title)</script> [red]flag[/red]"


def _record(record_id: str, dataset: str, claim: str, label: str) -> dict[str, object]:
    return {
        "id": record_id,
        "dataset": dataset,
        "evidence": [{"id": "a", "text": BRIDGE}],
        "claim": claim,
        "label": label,
    }


RECORDS = [
    _record("s1", "bridges", "The bridge carries six lanes.", "supported"),
    _record("s2", "bridges", "The bridge opened in 1936.", "unsupported"),
    _record("s3", "paint", "The bridge is painted red.", "unsupported"),
    # Gold says supported, the judge disagrees: the page must show the disagreement.
    _record("s4", "paint", f"The bridge carries {HOSTILE}.", "supported"),
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert CHROMIUM is not None
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    monkeypatch.setenv("JUDGE_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("JUDGE_BASE_URL", raising=False)
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    out, html = tmp_path / "pred.jsonl", tmp_path / "run.html"
    codes: list[int] = []
    with run_fake_openai_server(FakeJudgeServer().handler) as url:
        argv = ["eval", str(data), "--out", str(out), "--html", str(html), "--base-url", url]
        argv += ["--model", FAKE_MODEL, "--no-cache", "--no-progress"]
        # Playwright's sync API holds an event loop in this thread; the run gets its own.
        worker = threading.Thread(target=lambda: codes.append(main(argv)))
        worker.start()
        worker.join()
    assert codes == [0]
    return out, html


def test_eval_report_shows_metrics_gold_labels_and_reasons(
    browser: Browser, run: tuple[Path, Path]
) -> None:
    out, html = run
    predictions = read_predictions(out)
    report = build_report(predictions)
    opened = Opened(browser, html)
    page = opened.page

    metrics = page.locator("section.metrics")
    assert metrics.is_visible()
    headers = metrics.locator("table").first.locator("th").all_inner_texts()
    assert headers[:4] == ["slice", "n", "err", "bal.acc"]
    first_row = metrics.locator("table").first.locator("tbody tr").first
    cells = first_row.locator("td").all_inner_texts()
    assert cells[0] == "all" and cells[1] == "4"
    assert cells[3] == f"{report['claims']['balanced_accuracy']:.3f}"
    slices = metrics.locator("table").first.locator("tbody td:first-child").all_inner_texts()
    assert {"bridges", "paint"} <= set(slices)

    index = page.locator("table.index").last.locator("tbody tr")
    assert index.count() == 4
    header = page.locator("table.index").last.locator("th").all_inner_texts()
    gold_at, predicted_at = header.index("Gold"), header.index("Predicted")
    by_id = {p["id"]: p for p in predictions}
    for row, record in zip(index.all(), RECORDS, strict=True):
        texts = row.locator("td").all_inner_texts()
        prediction = by_id[str(record["id"])]
        assert texts[gold_at] == record["label"]
        assert texts[predicted_at].endswith(str(prediction["predicted"]))
    # A record the policy did not pass has its first reason in the index, never blank.
    reasons = index.locator("td:last-child").all_inner_texts()
    assert "c1 date_mismatch" in reasons[1] or "date" in reasons[1]
    assert reasons[2].startswith("c1 unsupported")

    fourth = page.locator("#record-4")
    grade = fourth.locator(".grade")
    assert "gold label supported" in " ".join(grade.inner_text().split())
    assert "disagrees with the gold label" in grade.inner_text()
    assert HOSTILE in fourth.locator(".claim-text").first.inner_text()  # text, not markup

    third = page.locator("#record-3")
    third.locator("button.badge").first.click()
    reason = third.locator(".panel-body .reason").first
    assert reason.is_visible()
    assert "t_entail" in reason.inner_text()  # the judge's score against the threshold

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "eval-run.png"), full_page=True)
    assert opened.dialogs == []
    assert opened.errors == []
    assert opened.requests == []
