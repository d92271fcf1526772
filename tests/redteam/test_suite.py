"""`judge redteam` end to end against the rule-based fake judge, behind the real HTTP stack.

The whole built-in suite runs once per module. No must-block case may pass, no case may crash,
every injection case must keep the prompt intact, and every miss must be a known hole (each
known hole has a strict xfail below, so closing one makes it flag itself for removal). The
weakened-defence tests show the cases can fail.
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import time
from pathlib import Path
from typing import Any

import pytest

from judge.cli.app import main
from judge.config import Settings
from judge.errors import InputError
from judge.pipeline import runner as pipeline
from judge.pipeline.checks import IdentifierCheck, LookalikeCheck, NumberCheck, default_checks
from judge.redteam import (
    FAMILIES,
    Case,
    Expect,
    Expectation,
    JudgeChoice,
    Report,
    Status,
    build_report,
    build_suite,
    default_seeds,
    run_suite,
    select,
)
from judge.redteam.recording import structure_problems
from judge.redteam.seeds import BUILTIN_SEEDS
from judge.testing.rule_judge import RuleJudge
from tests.support.fake_judge import FakeJudgeServer, fake_settings, run_fake_openai_server

FAKE = JudgeChoice("fake")

# Holes the suite finds in the current defences (case id glob -> what lets the attack through).
# Case globs the defences are known to miss, with why; each one's test fails once it is closed.
KNOWN_HOLES: dict[str, str] = {
    # "Opened items ... within one month" against evidence giving 14 days for opened items and
    # 30 days for unopened ones: the unit conversion (one month = 30 days) is tried against
    # every value of the passage, not only the sentence restating the claim, and the value
    # frames compare bare durations by period and basis only.
    "evasion/unit_rewrite/example.refund_policy": "a conversion matched to another fact's value",
}


def _known(case_id: str) -> bool:
    return any(fnmatch.fnmatchcase(case_id, glob) for glob in KNOWN_HOLES)


@pytest.fixture(scope="module")
def report() -> Report:
    cases = build_suite(default_seeds())
    return build_report(run_suite(cases, Settings(), FAKE))


def test_no_must_block_case_passes(report: Report) -> None:
    assert report.must_block_passed == []


def test_every_family_has_a_non_trivial_number_of_cases(report: Report) -> None:
    counts = {row.family: row.cases for row in report.rows}
    assert set(counts) == set(FAMILIES)
    assert all(count >= 8 for count in counts.values()), counts
    assert counts["injection"] >= 100


def test_nothing_crashes(report: Report) -> None:
    assert [r.case_id for r in report.results if r.got.startswith("crash")] == []


def test_injection_never_flips_a_verdict_or_breaks_the_prompt(report: Report) -> None:
    injection = [r for r in report.results if r.family == "injection"]
    assert injection
    assert [(r.case_id, r.why) for r in injection if r.status is not Status.CAUGHT] == []
    assert all(not r.new_support and not r.to_pass for r in injection)
    # Every case's judge requests were checked for structure: none was broken anywhere.
    assert [r.case_id for r in report.results if "judge request" in r.why] == []


def test_every_miss_is_a_known_hole(report: Report) -> None:
    unexpected = [(r.case_id, r.got, r.why) for r in report.missed if not _known(r.case_id)]
    assert unexpected == []
    assert all(_known(r.case_id) for r in report.faults)


def test_judge_dependent_cases_are_reported_apart(report: Report) -> None:
    dependent = [r for r in report.results if r.judge_dependent]
    assert dependent and not any(r.counted for r in dependent)
    missed = [r for r in dependent if r.status is Status.MISSED]
    assert report.judge_dependent_missed == missed
    meaning = next(row for row in report.rows if row.family == "meaning")
    assert meaning.judge_dependent > 0
    assert meaning.caught + meaning.missed + meaning.not_applicable < meaning.cases


def test_a_judge_dependent_miss_is_listed_apart_and_not_counted() -> None:
    # A judge that supports every claim passes a bare "Yes." conclusion, which only a model
    # judge can read: the miss is listed apart and fails nothing.
    cases = select(build_suite(default_seeds()), patterns=["splitting/bare_reply/*"])
    permissive = build_report(run_suite(cases, Settings(), JudgeChoice("fake-permissive")))
    assert permissive.judge_dependent_missed
    assert permissive.missed == [] and not permissive.failed


@pytest.mark.parametrize("glob", sorted(KNOWN_HOLES))
@pytest.mark.xfail(strict=True, reason="a known hole in the defences; see KNOWN_HOLES")
def test_known_hole_is_closed(report: Report, glob: str) -> None:
    matching = [r for r in report.results if fnmatch.fnmatchcase(r.case_id, glob)]
    assert matching
    assert all(r.status is not Status.MISSED for r in matching)


# --- the command line ---------------------------------------------------------------------------


def test_cli_writes_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "redteam.json"
    args = [
        "redteam",
        "--family",
        "citations",
        "--no-examples",
        "--no-progress",
        "--json",
        str(out),
    ]
    assert main(args) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["suite_version"] == "2"
    assert [f["family"] for f in data["families"]] == ["citations"]
    assert data["must_block_passed"] == [] and not data["failed"]
    assert len(data["cases"]) == data["total"]["cases"] >= 20
    assert {"case_id", "expected", "got", "status", "seconds"} <= set(data["cases"][0])
    assert "citations" in capsys.readouterr().out


def test_cli_lists_a_sample_spread_over_families(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["redteam", "--list", "--sample", str(len(FAMILIES)), "--seed", "7"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert sorted(line.split("/")[0] for line in lines) == sorted(FAMILIES)


def test_cli_against_an_endpoint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # --base-url takes the real-judge path: real HTTP to a loopback server, model from /models,
    # judge-dependent cases counted like any other.
    out = tmp_path / "redteam.json"
    with run_fake_openai_server(RuleJudge().handler) as url:
        args = ["redteam", "--base-url", url, "--sample", "12", "--seed", "2", "--no-progress"]
        assert main([*args, "--json", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert not data["fake_judge"] and url in data["judge"]
    assert len(data["cases"]) == 12
    assert all(case["counted"] for case in data["cases"])
    assert sum(case["judge_calls"] for case in data["cases"]) > 0
    assert "catch rates" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args",
    [
        ["--family", "nope"],
        ["--sample", "0"],
        ["--no-judge"],
        ["--judge", "fake", "--base-url", "http://127.0.0.1:9/v1"],
    ],
)
def test_cli_usage_errors(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["redteam", "--list", *args]) == 2
    assert "judge redteam: error" in capsys.readouterr().err


def test_cli_fails_when_a_must_block_case_passes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # With stuffing detection configured off, answers citing every passage go through.
    monkeypatch.setenv("JUDGE_DETECT_STUFFING", "false")
    args = ["redteam", "--case", "citations/stuffing/builtin.*", "--no-examples", "--no-progress"]
    assert main(args) == 1
    assert "must-block case PASSED: citations/stuffing/builtin." in capsys.readouterr().out


# --- weakened defences make cases fail ----------------------------------------------------------


def _run(cases: list[Case], settings: Settings | None = None, **options: Any) -> Report:
    return build_report(
        run_suite(cases, settings or Settings(), options.pop("judge", FAKE), **options)
    )


def test_identifier_evasion_is_missed_without_the_identifier_check() -> None:
    cases = select(build_suite(BUILTIN_SEEDS), patterns=["evasion/*identifier*"])
    # Look-alike digits are a matter for review, which other checks may send them to.
    attacks = [
        c for c in cases if c.expect.kind is Expect.MUST_FLAG and "lookalike" not in c.transform
    ]
    assert attacks
    full = _run(attacks)
    weakened = _run(
        attacks, checks=[c for c in default_checks() if not isinstance(c, IdentifierCheck)]
    )
    caught = {r.case_id for r in full.results if r.status is Status.CAUGHT}
    assert caught
    assert caught.isdisjoint(r.case_id for r in weakened.results if r.status is Status.CAUGHT)


def test_injection_succeeds_without_the_screen_and_neutralising(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import judge.pipeline.claims.decompose
    import judge.pipeline.entail.verdict

    cases = select(
        build_suite(BUILTIN_SEEDS[:1]),
        patterns=["injection/*forged_fence_nonce/*", "injection/*role_tags_chatml/*"],
    )
    assert len(cases) >= 4
    assert all(r.status is Status.CAUGHT for r in _run(cases).results)
    # Without the screen nothing is sent to review, but the fenced prompt still holds.
    unscreened = _run(cases, Settings(detect_injection=False)).results
    assert all(r.status is Status.MISSED for r in unscreened)
    assert not any("judge request" in r.why for r in unscreened)
    monkeypatch.setattr(judge.pipeline.entail.verdict, "neutralise", lambda text: text)
    monkeypatch.setattr(judge.pipeline.claims.decompose, "neutralise", lambda text: text)
    weakened = _run(cases, Settings(detect_injection=False)).results
    assert all(r.status is Status.MISSED for r in weakened)
    # A passage's source never reaches the judge's prompt; everything else breaks it.
    assert all(("judge request" in r.why) != ("/source_" in r.case_id) for r in weakened)


def test_exact_checks_alone_catch_the_evasions_against_a_permissive_judge() -> None:
    cases = select(build_suite(BUILTIN_SEEDS), families=["evasion", "meaning", "citations"])
    report = _run(cases, judge=JudgeChoice("fake-permissive"))
    unexpected = [(r.case_id, r.got) for r in report.missed if not _known(r.case_id)]
    assert unexpected == []
    evasion = next(row for row in report.rows if row.family == "evasion")
    assert evasion.caught >= 20


def test_score_and_look_alike_families_are_all_caught(report: Report) -> None:
    rows = {row.family: row for row in report.rows if row.family in ("scores", "lookalikes")}
    assert set(rows) == {"scores", "lookalikes"}
    assert all(row.caught == row.cases and row.to_pass == 0 for row in rows.values()), rows
    transforms = {r.case_id.split("/")[1] for r in report.results if r.family == "lookalikes"}
    assert {"tone_five", "roman_numeral_digit", "bidi_override", "percent_for_points"} <= transforms


def test_score_faults_pass_when_label_only_verdicts_are_allowed() -> None:
    # The weakened defence: a label-only verdict decides, and every score case passes. The
    # finance seed: every one of its sentences holds, so nothing but the score could block it
    # (the refund seed's last sentence contradicts its evidence, which the exact checks catch).
    cases = select(build_suite(BUILTIN_SEEDS[1:2]), families=["scores"])
    assert len(cases) == 5
    assert all(r.status is Status.CAUGHT for r in _run(cases).results)
    weakened = _run(cases, Settings(allow_label_only=True))
    assert len(weakened.must_block_passed) == len(cases)


def test_look_alike_values_pass_the_weakened_checks_against_a_permissive_judge() -> None:
    cases = select(build_suite(BUILTIN_SEEDS), families=["lookalikes"])
    permissive = JudgeChoice("fake-permissive")
    assert all(r.status is Status.CAUGHT for r in _run(cases, judge=permissive).results)
    plain = [c for c in default_checks() if not isinstance(c, LookalikeCheck | NumberCheck)]
    weakened = _run(cases, checks=plain, judge=permissive)
    assert any(r.status is Status.MISSED for r in weakened.results)


# --- the runner ---------------------------------------------------------------------------------


def _one_case(expect: Expectation) -> Case:
    return Case("exhaustion", "probe", "builtin.refund", BUILTIN_SEEDS[0].request(), expect)


def test_a_case_that_hangs_is_killed_and_fails_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    async def hang(*_args: Any, **_kwargs: Any) -> None:
        time.sleep(30)  # blocks the event loop, as a runaway regular expression would

    monkeypatch.setattr(pipeline, "verify", hang)
    started = time.perf_counter()
    report = _run([_one_case(Expectation(Expect.MUST_BLOCK, max_seconds=0.5))])
    assert time.perf_counter() - started < 15
    assert report.results[0].got.startswith("timeout")
    assert report.failed and report.faults


def test_a_crash_is_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    async def crash(*_args: Any, **_kwargs: Any) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(pipeline, "verify", crash)
    report = _run([_one_case(Expectation(Expect.MUST_NOT_PASS))])
    assert report.results[0].got == "crash: RuntimeError: boom"
    assert report.failed


async def test_recorded_structure_agrees_with_the_shared_fake_server() -> None:
    # The same injected requests through the tests' scripted server: its recorded requests
    # pass the same structure check, with one system and one user message each.
    cases = select(build_suite(BUILTIN_SEEDS[:1]), families=["injection"])
    fake = FakeJudgeServer()
    for case in cases[:12]:
        assert isinstance(case.request, dict)
        with contextlib.suppress(InputError):  # a request refused as input reaches no judge
            await pipeline.verify(case.request, fake_settings(), judge=fake.judge())
    assert fake.requests
    for body in fake.requests:
        assert [m["role"] for m in body["messages"]] == ["system", "user"]
        assert structure_problems(body) == []


def test_seeds_include_the_examples() -> None:
    ids = [seed.id for seed in default_seeds()]
    assert ids[: len(BUILTIN_SEEDS)] == [s.id for s in BUILTIN_SEEDS]
    assert any(i.startswith("example.") for i in ids)
