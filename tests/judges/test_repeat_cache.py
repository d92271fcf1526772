"""An identical request verified again is served wholly from the verdict cache: the main
conclusion and the decomposed facts are cached like the entailment verdicts."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from judge.errors import CacheFault, VerifierFault
from judge.judges.cache import VerdictCache
from judge.pipeline.runner import verify
from tests.support.fake_judge import (
    FakeJudgeServer,
    conclusion_response,
    facts_response,
    fake_settings,
    invalid_json_response,
    rule_based_judge,
    run_fake_openai_server,
)
from tests.support.fresh_process import verify_in_fresh_process

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
LEDGER = "sha256:" + "c" * 64


def _request() -> dict[str, Any]:
    """The refund example corrected so that its claims pass: only then is the conclusion
    extracted and judged."""
    data: dict[str, Any] = json.loads((EXAMPLES / "refund_policy.json").read_text("utf-8"))
    data["answer"] = (
        "You can return an unopened item within 30 days of delivery for a full refund [S1]. "
        "Refunds are issued to the original payment method within 5 to 7 business days [S2]."
    )
    return data


def _schema(body: dict[str, Any]) -> str:
    name: str = body["response_format"]["json_schema"]["name"]
    return name


def _script(body: dict[str, Any]) -> Any:
    if _schema(body).startswith("Conclusion"):
        return conclusion_response("Unopened items can be returned within 30 days.")
    if _schema(body).startswith("Facts"):
        return facts_response(["Opened items can be returned within 14 days."])
    return rule_based_judge(body)


async def test_second_identical_verify_makes_no_judge_call(tmp_path: Path) -> None:
    settings = fake_settings(check_conclusion=True, state_dir=tmp_path)
    first_fake, second_fake = FakeJudgeServer(_script), FakeJudgeServer(_script)
    first = await verify(
        _request(), settings, judge=first_fake.judge(settings, cache=VerdictCache(tmp_path))
    )
    assert any(_schema(r).startswith("Conclusion") for r in first_fake.requests)
    second = await verify(
        _request(), settings, judge=second_fake.judge(settings, cache=VerdictCache(tmp_path))
    )
    assert second_fake.requests == []
    assert [v.label for v in second.verdicts] == [v.label for v in first.verdicts]
    assert [v.claim.text for v in second.verdicts] == [v.claim.text for v in first.verdicts]


async def test_conclusion_is_cached_per_request_answer_and_model(tmp_path: Path) -> None:
    fake = FakeJudgeServer(_script)
    cache = VerdictCache(tmp_path)
    judge = fake.judge(cache=cache).for_request(ledger_hash=LEDGER)
    first = await judge.main_conclusion("A. B.", "Q?")
    again = (
        await fake.judge(cache=cache).for_request(ledger_hash=LEDGER).main_conclusion("A. B.", "Q?")
    )
    assert again == first and len(fake.requests) == 1
    await judge.main_conclusion("A. C.", "Q?")
    await judge.main_conclusion("A. B.", "Other?")
    await (
        fake.judge(cache=cache)
        .for_request(ledger_hash="sha256:" + "d" * 64)
        .main_conclusion("A. B.", "Q?")
    )
    await (
        fake.judge(cache=cache, model="other-model")
        .for_request(ledger_hash=LEDGER)
        .main_conclusion("A. B.", "Q?")
    )
    assert len(fake.requests) == 5


async def test_decomposed_facts_are_cached(tmp_path: Path) -> None:
    fake = FakeJudgeServer(_script)
    cache = VerdictCache(tmp_path)
    judge = fake.judge(cache=cache).for_request(ledger_hash=LEDGER)
    first = await judge.decompose("Opened items go back in 14 days.", "", None)
    second = await judge.decompose("Opened items go back in 14 days.", "", None)
    assert first == second == ["Opened items can be returned within 14 days."]
    assert len(fake.requests) == 1
    await judge.decompose("Opened items go back in 14 days.", "Context.", None)
    assert len(fake.requests) == 2


async def test_a_failed_conclusion_is_not_cached(tmp_path: Path) -> None:
    fake = FakeJudgeServer()
    fake.push(invalid_json_response(), invalid_json_response(), invalid_json_response())
    cache = VerdictCache(tmp_path)
    judge = fake.judge(fake_settings(reasks=0), cache=cache).for_request(ledger_hash=LEDGER)
    with pytest.raises(VerifierFault):
        await judge.main_conclusion("A. B.", None)
    assert list(cache._store.iterkeys()) == []


async def test_a_corrupt_text_entry_fails_closed(tmp_path: Path) -> None:
    fake = FakeJudgeServer(_script)
    cache = VerdictCache(tmp_path)
    judge = fake.judge(cache=cache).for_request(ledger_hash=LEDGER)
    await judge.main_conclusion("A. B.", None)
    for key in list(cache._store.iterkeys()):
        cache._store.set(key, '{"format": 1}')
    with pytest.raises(CacheFault):
        await judge.main_conclusion("A. B.", None)


async def test_a_request_served_from_the_cache_builds_no_client(tmp_path: Path) -> None:
    settings = fake_settings(check_conclusion=True, state_dir=tmp_path)
    first = FakeJudgeServer(_script)
    await verify(_request(), settings, judge=first.judge(settings, cache=VerdictCache(tmp_path)))
    again = FakeJudgeServer(_script).judge(settings, cache=VerdictCache(tmp_path))
    await verify(_request(), settings, judge=again)
    # The openai client and its instructor wrapper are built on the first call to the server.
    assert again.client._openai is None and again.client._instructor is None
    await again.aclose()


def test_a_repeat_from_a_fresh_process_never_loads_the_http_stack(tmp_path: Path) -> None:
    request = tmp_path / "request.json"
    request.write_text(json.dumps(_request()), encoding="utf-8")
    fake = FakeJudgeServer(_script)
    watched = ("openai", "instructor")
    with run_fake_openai_server(fake.handler) as base_url:
        env = {
            **os.environ,
            # No JUDGE_MODEL: the served model is looked up on every run, over plain HTTP.
            "JUDGE_BASE_URL": base_url,
            "JUDGE_STATE_DIR": str(tmp_path / "state"),
            "JUDGE_CHECK_CONCLUSION": "always",
        }
        first = verify_in_fresh_process(request, env, watched)
        asked = len(fake.requests)
        # The repeat goes through the pipeline and its verdict cache, not the output `judge
        # verify` keeps (tests/cli/test_output_cache.py): none is kept when the model is looked
        # up, and another concurrency is another command besides.
        env["JUDGE_CONCURRENCY"] = "3"
        second = verify_in_fresh_process(request, env, watched)
    assert (first.code, first.loaded) == (0, ["instructor", "openai"])
    assert asked >= 3  # each claim and the conclusion
    assert (second.code, second.loaded) == (0, [])
    assert len(fake.requests) == asked
    assert [v["label"] for v in second.response["verdicts"]] == [
        v["label"] for v in first.response["verdicts"]
    ]
