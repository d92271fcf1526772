import json
from pathlib import Path

import pytest

from judge.cli.app import main

RECORDS = [
    {
        "id": "t1",
        "dataset": "toy",
        "evidence": [{"id": "a", "text": "The bridge opened in 1932 and carries six lanes."}],
        "claim": "The bridge opened in 1932.",
        "label": "supported",
    },
    {
        "id": "t2",
        "dataset": "toy",
        "evidence": [{"id": "a", "text": "The bridge opened in 1932 and carries six lanes."}],
        "claim": "The bridge opened in 1936.",
        "label": "unsupported",
    },
]


def test_eval_writes_an_html_report_of_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("JUDGE_STATE_DIR", str(tmp_path / "state"))
    data = tmp_path / "toy.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    html = tmp_path / "run.html"
    code = main(
        [
            "eval",
            str(data),
            "--out",
            str(tmp_path / "pred.jsonl"),
            "--no-judge",
            "--no-progress",
            "--html",
            str(html),
        ]
    )
    capsys.readouterr()
    assert code == 0
    page = html.read_text(encoding="utf-8")
    assert "The bridge opened in 1936." in page
    assert "1936" in page and "date" in page.lower()  # the failed exact check is shown
    assert page.count("t1") >= 1 and page.count("t2") >= 1
