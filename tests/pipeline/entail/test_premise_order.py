"""Claims judged against the same passages go one after another (each call after the first
finds the evidence prefix in the server's cache); claims on other passages run beside them."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx

from judge.judges.transport import FailFastTransport
from judge.pipeline.entail.llm_judge import build_http_judge
from judge.pipeline.runner import verify
from tests.support.fake_judge import (
    FAKE_BASE_URL,
    FAKE_MODEL,
    fake_settings,
    fenced,
    rule_based_judge,
)


class InFlight:
    """Answers like the rule judge after a short wait, counting calls in flight per evidence."""

    def __init__(self) -> None:
        self.now: dict[str, int] = {}
        self.most: dict[str, int] = {}
        self.overall = 0
        self.most_overall = 0

    async def handler(self, request: httpx.Request) -> httpx.Response:
        body: dict[str, Any] = json.loads(request.content)
        evidence = fenced(body).get("EVIDENCE", "")
        self.now[evidence] = self.now.get(evidence, 0) + 1
        self.overall += 1
        self.most[evidence] = max(self.most.get(evidence, 0), self.now[evidence])
        self.most_overall = max(self.most_overall, self.overall)
        await asyncio.sleep(0.02)
        self.now[evidence] -= 1
        self.overall -= 1
        answer = rule_based_judge(body)
        assert isinstance(answer, httpx.Response)
        return answer


def _request() -> dict[str, Any]:
    evidence = [
        {"id": "A", "text": "Refunds are issued within five days. Returns need a receipt."},
        {"id": "B", "text": "Shipping is free on orders over fifty euros. Parcels ship daily."},
    ]
    answer = (
        "Refunds are issued within five days [A]. Returns need a receipt [A]. "
        "Shipping is free on orders over fifty euros [B]. Parcels ship daily [B]."
    )
    return {"evidence": evidence, "answer": answer}


async def test_claims_on_one_passage_are_judged_one_at_a_time() -> None:
    counter = InFlight()
    settings = fake_settings(concurrency=4, check_conclusion=False)
    transport = FailFastTransport(httpx.MockTransport(counter.handler))
    judge = build_http_judge(
        settings,
        base_url=FAKE_BASE_URL,
        model=FAKE_MODEL,
        http_client=httpx.AsyncClient(transport=transport),
    )
    response = await verify(_request(), settings, judge=judge)
    assert len(response.verdicts) == 4
    assert counter.most and max(counter.most.values()) == 1
    assert counter.most_overall == 2  # the two passages' groups ran side by side
