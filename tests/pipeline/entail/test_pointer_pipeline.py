"""Through the whole pipeline, a judged verdict points at its sentence, and the HTML report
marks that sentence, not the whole passage."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from judge.pipeline.runner import verify
from judge.reports.html import render_report
from judge.schemas import VerifyRequest
from tests.support.fake_judge import FakeJudgeServer, fake_settings

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _request() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / "refund_policy.json").read_text("utf-8"))
    return data


async def test_judged_verdict_points_at_the_sentence_and_the_report_marks_it() -> None:
    settings = fake_settings(check_conclusion=False)
    request = _request()
    response = await verify(request, settings, judge=FakeJudgeServer().judge(settings))
    refunds = next(v for v in response.verdicts if v.claim.text.startswith("Refunds go back"))
    passage = request["evidence"][1]["text"]
    sentence_end = passage.index("Shipping") - 1
    assert [(e.passage_id, e.start, e.end) for e in refunds.evidence] == [("S2", 0, sentence_end)]
    assert refunds.evidence[0].text == passage[:sentence_end]

    html = render_report(VerifyRequest.model_validate(request), response)
    found = re.search(r'<script type="application/json"[^>]*>(.*?)</script>', html, re.S)
    assert found is not None
    records = json.loads(found.group(1))["records"]
    claims = next(iter(records.values()))["claims"]
    shown = next(c for c in claims if c["text"].startswith("Refunds go back"))["evidence"]
    assert shown[0]["spans"] == [[0, sentence_end]]
    marked = [s["text"] for s in shown[0]["segments"] if s["spans"]]
    assert marked == [passage[:sentence_end]]
