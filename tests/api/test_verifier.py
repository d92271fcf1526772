"""The Python API (judge.verify, judge.verify_sync, judge.Verifier) against the scripted fake
judge served on loopback, through the real client stack."""

import asyncio
import contextlib
import itertools
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import judge
from judge.config import Settings
from judge.errors import ConfigError, InputError
from judge.schemas import Action, Label, Passage, VerifyResponse
from tests.support.fake_judge import FakeJudgeServer, fake_settings, run_fake_openai_server

EVIDENCE = [
    "Customers may return any unopened item within 30 days of delivery for a full refund.",
    "Refunds are issued to the original payment method within 5 to 7 business days.",
]
FAITHFUL = (
    "Customers may return any unopened item within 30 days of delivery for a full refund [S1]. "
    "Refunds are issued to the original payment method within 5 to 7 business days [S2]."
)
WRONG = "Customers may return any unopened item within 60 days of delivery for a full refund [S1]."


@contextlib.contextmanager
def served(fake: FakeJudgeServer | None = None) -> Iterator[tuple[FakeJudgeServer, str]]:
    fake = fake or FakeJudgeServer()
    with run_fake_openai_server(fake.handler) as url:
        yield fake, url


def settings_on(url: str, tmp_path: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {"base_url": url, "model": None, "state_dir": tmp_path}
    values.update(overrides)
    return fake_settings(**values)


def test_strings_as_evidence_are_numbered_in_order(tmp_path: Path) -> None:
    with served() as (_, url):
        result = judge.verify_sync(
            answer=FAITHFUL,
            evidence=EVIDENCE,
            question="Can I get a refund?",
            settings=settings_on(url, tmp_path),
        )
    assert isinstance(result, VerifyResponse)
    assert result.passed and result.action is Action.PASS, result.reasons
    assert result.failing == []
    cited = {p for v in result.verdicts for p in v.claim.citations}
    assert cited == {"S1", "S2"}


def test_a_wrong_number_fails_and_names_the_claim(tmp_path: Path) -> None:
    with served() as (_, url):
        result = judge.verify_sync(
            answer=WRONG, evidence=EVIDENCE, settings=settings_on(url, tmp_path)
        )
    assert not result.passed
    assert [v.label for v in result.failing] == [Label.NUMBER_MISMATCH]
    assert "60 days" in result.failing[0].claim.text


async def test_verify_sync_works_inside_a_running_event_loop(tmp_path: Path) -> None:
    asyncio.get_running_loop()  # as in a notebook cell
    with served() as (_, url):
        settings = settings_on(url, tmp_path)
        result = judge.verify_sync(answer=FAITHFUL, evidence=EVIDENCE, settings=settings)
        with judge.Verifier(settings) as verifier:
            again = verifier.verify_sync(answer=FAITHFUL, evidence=EVIDENCE)
    assert result.passed and again.passed


async def test_async_verify_takes_passages_dicts_and_strings(tmp_path: Path) -> None:
    evidence: list[Any] = [
        Passage(id="policy", text=EVIDENCE[0]),
        {"id": "timing", "text": EVIDENCE[1], "source": "docs/timing.md"},
        "An unrelated third passage about gift cards.",
    ]
    answer = FAITHFUL.replace("[S1]", "[policy]").replace("[S2]", "[timing]")
    with served() as (_, url):
        result = await judge.verify(
            answer=answer, evidence=evidence, settings=settings_on(url, tmp_path)
        )
    assert result.passed, result.reasons
    assert {p for v in result.verdicts for p in v.claim.citations} == {"policy", "timing"}


def test_claims_instead_of_an_answer(tmp_path: Path) -> None:
    claims: list[Any] = [
        {"text": "Refunds are issued within 5 to 7 business days.", "chunk_id": "S2"},
        "Refunds arrive by carrier pigeon.",
    ]
    with served() as (_, url):
        result = judge.verify_sync(
            claims=claims, evidence=EVIDENCE, settings=settings_on(url, tmp_path)
        )
    labels = [v.label for v in result.verdicts]
    assert labels == [Label.SUPPORTED, Label.UNCITED]
    assert not result.passed


def test_a_request_dict_still_works_as_the_first_argument(tmp_path: Path) -> None:
    request = {"evidence": [{"id": "S1", "text": EVIDENCE[0]}], "answer": WRONG}
    with served() as (_, url):
        settings = settings_on(url, tmp_path)
        result = judge.verify_sync(request, settings)
        with judge.Verifier(settings) as verifier:
            same = verifier.verify_sync(request)
    assert result.action is same.action is not Action.PASS
    with pytest.raises(InputError, match="not both"):
        judge.verify_sync(request, answer=WRONG)


def test_one_verifier_opens_the_judge_once_and_fences_by_evidence(tmp_path: Path) -> None:
    # Calls on the same evidence share its fence nonce (the server reuses the evidence prefix);
    # other evidence gets another.
    other_evidence = [*EVIDENCE, "Gift cards are not refundable."]
    marks = [0]
    with served() as (fake, url), judge.Verifier(settings_on(url, tmp_path)) as verifier:
        for evidence in (EVIDENCE, EVIDENCE, other_evidence):
            assert verifier.verify_sync(answer=FAITHFUL, evidence=evidence).passed
            marks.append(len(fake.requests))
    # The model id is looked up once, when the judge is opened.
    assert fake.model_list_calls == 1
    per_call = [nonces(fake.requests[a:b]) for a, b in itertools.pairwise(marks)]
    assert all(len(n) == 1 for n in per_call)
    assert per_call[0] == per_call[1] and not (per_call[1] & per_call[2])


def verdict_requests(fake: FakeJudgeServer) -> int:
    names = [r["response_format"]["json_schema"]["name"] for r in fake.requests]
    return sum(name.startswith("Verdict") for name in names)


def nonces(requests: list[dict[str, Any]]) -> set[str]:
    return {
        nonce
        for req in requests
        for message in req["messages"]
        for nonce in re.findall(r"<<<[A-Z]+-([0-9a-f]+)>>>", message["content"])
    }


def test_the_verdict_cache_stays_open_across_calls(tmp_path: Path) -> None:
    with served() as (fake, url):
        settings = settings_on(url, tmp_path, cache_enabled=True)
        with judge.Verifier(settings) as verifier:
            first = verifier.verify_sync(answer=FAITHFUL, evidence=EVIDENCE)
            calls = verdict_requests(fake)
            second = verifier.verify_sync(answer=FAITHFUL, evidence=EVIDENCE)
    assert calls > 0 and verdict_requests(fake) == calls
    assert all(v.judge is not None and v.judge.cached for v in second.verdicts)
    assert first.passed and second.passed


async def test_async_with_closes_and_a_later_call_reopens(tmp_path: Path) -> None:
    with served() as (fake, url):
        verifier = judge.Verifier(settings_on(url, tmp_path))
        async with verifier:
            results = await asyncio.gather(
                verifier.verify(answer=FAITHFUL, evidence=EVIDENCE),
                verifier.verify(answer=WRONG, evidence=EVIDENCE),
            )
        assert [r.passed for r in results] == [True, False]
        assert fake.model_list_calls == 1
        async with verifier:
            assert (await verifier.verify(answer=FAITHFUL, evidence=EVIDENCE)).passed
        assert fake.model_list_calls == 2


def test_a_dead_judge_blocks_and_is_tried_again(tmp_path: Path) -> None:
    with served() as (_, url):
        pass  # the port is closed now: connections are refused
    with judge.Verifier(settings_on(url, tmp_path)) as verifier:
        for _ in range(2):
            result = verifier.verify_sync(answer=FAITHFUL, evidence=EVIDENCE)
            assert result.action is Action.BLOCK and not result.passed
            assert {v.label for v in result.verdicts} == {Label.VERIFIER_ERROR}
            assert all("JudgeUnavailable" in (v.error or "") for v in result.verdicts)


def test_without_the_judge_nothing_passes(tmp_path: Path) -> None:
    with judge.Verifier(fake_settings(state_dir=tmp_path), use_judge=False) as verifier:
        result = verifier.verify_sync(answer=FAITHFUL, evidence=EVIDENCE)
    assert {v.label for v in result.verdicts} == {Label.UNVERIFIED}
    assert not result.passed


def test_overrides_are_settings_by_name(tmp_path: Path) -> None:
    verifier = judge.Verifier(fake_settings(state_dir=tmp_path), timeout_s=7, t_entail=0.6)
    assert verifier.settings.timeout_s == 7 and verifier.thresholds.t_entail == 0.6
    with pytest.raises(ConfigError, match=r"'timout_s' \(did you mean 'timeout_s'\?\)"):
        judge.Verifier(timout_s=3)
    with pytest.raises(ConfigError, match="timeout_s"):
        judge.Verifier(fake_settings(), timeout_s=-1)
    with pytest.raises(ConfigError, match="timeout_s"):
        judge.Verifier(timeout_s="soon")


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"answer": FAITHFUL}, "evidence"),
        ({"answer": FAITHFUL, "evidence": "one passage"}, "evidence"),
        ({"answer": FAITHFUL, "evidence": ["ok", 42]}, "evidence[1]"),
        ({"answer": FAITHFUL, "evidence": [{"id": "S1"}]}, "evidence[0].text"),
        ({"answer": FAITHFUL, "evidence": ["  "]}, "evidence[0]"),
        ({"evidence": EVIDENCE}, "request"),
        ({"evidence": EVIDENCE, "claims": [3]}, "claims[0]"),
    ],
)
def test_bad_input_names_the_field(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError) as caught:
        judge.build_request(**kwargs)
    assert caught.value.field == field, str(caught.value)


def test_passed_and_failing_survive_a_json_round_trip(tmp_path: Path) -> None:
    with served() as (_, url):
        result = judge.verify_sync(
            answer=WRONG, evidence=EVIDENCE, settings=settings_on(url, tmp_path)
        )
    back = VerifyResponse.model_validate_json(result.model_dump_json())
    assert back.passed is result.passed is False
    assert [v.claim.id for v in back.failing] == [v.claim.id for v in result.failing]
    assert "passed" not in result.model_dump()  # the JSON schema is unchanged


class _RefuseEverything:
    """A caller's own exact check: fails every claim it is shown."""

    name = "house_rule"

    def __call__(self, claim: str, evidence: str) -> Any:
        from judge.schemas import CheckOutcome, CheckStatus

        return CheckOutcome(check=self.name, status=CheckStatus.FAILED, detail="house rule")


def test_callers_pass_their_own_checks(tmp_path: Path) -> None:
    settings = fake_settings(state_dir=tmp_path)
    default = judge.verify_sync(
        answer=FAITHFUL, evidence=EVIDENCE, settings=settings, use_judge=False
    )
    assert all(v.label is not Label.UNSUPPORTED for v in default.verdicts)
    own = judge.verify_sync(
        answer=FAITHFUL,
        evidence=EVIDENCE,
        settings=settings,
        use_judge=False,
        checks=[_RefuseEverything()],
    )
    assert own.action is not Action.PASS
    factual = [v for v in own.verdicts if v.label is not Label.NOT_FACTUAL]
    assert factual and all(v.label is Label.UNSUPPORTED for v in factual)
    assert all(v.checks[-1].check == "house_rule" for v in factual)
    with judge.Verifier(settings, use_judge=False, checks=[_RefuseEverything()]) as verifier:
        held = verifier.verify_sync(answer=FAITHFUL, evidence=EVIDENCE)
    assert [v.label for v in held.verdicts] == [v.label for v in own.verdicts]
