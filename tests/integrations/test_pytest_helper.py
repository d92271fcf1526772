"""assert_grounded and the pytest plugin, against the scripted fake judge on loopback."""

import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge.api import Verifier
from judge.integrations.pytest import assert_grounded
from judge.integrations.report import escape
from judge.schemas import Action
from tests.support.fake_judge import FakeJudgeServer, fake_settings, run_fake_openai_server

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
EVIDENCE = [
    "Customers may return any unopened item within 30 days of delivery for a full refund.",
    "Refunds are issued to the original payment method within 5 to 7 business days.",
]
GOOD = "Customers may return any unopened item within 30 days of delivery for a full refund [S1]."
WRONG = "Customers may return any unopened item within 60 days of delivery for a full refund [S1]."
PIGEON = "Refund requests are also accepted by carrier pigeon [S2]."
SECOND = "Refunds are issued to the original payment method within 5 to 7 business days [S2]."


@pytest.fixture
def judge_url() -> Iterator[str]:
    with run_fake_openai_server(FakeJudgeServer().handler) as url:
        yield url


@pytest.fixture
def verifier(judge_url: str, tmp_path: Path) -> Iterator[Verifier]:
    settings = fake_settings(base_url=judge_url, model=None, state_dir=tmp_path)
    with Verifier(settings) as opened:
        yield opened


def test_a_grounded_answer_returns_its_verification(verifier: Verifier) -> None:
    response = assert_grounded(GOOD, EVIDENCE, question="Can I return it?", verifier=verifier)
    assert response.passed


def test_settings_by_name_without_a_verifier(judge_url: str, tmp_path: Path) -> None:
    response = assert_grounded(
        answer=GOOD, evidence=EVIDENCE, base_url=judge_url, state_dir=tmp_path, http_retries=0
    )
    assert response.passed


def test_a_failure_shows_the_claim_table(verifier: Verifier) -> None:
    with pytest.raises(AssertionError) as caught:
        assert_grounded(f"{GOOD} {WRONG}", EVIDENCE, verifier=verifier)
    lines = str(caught.value).splitlines()
    assert lines[0] == "answer not grounded: action block"
    assert lines[1].startswith(
        "  - c2 number_mismatch: Numbers the cited evidence states otherwise: '60 days'"
    )
    claim = "Customers may return any unopened item within {} days of delivery for a full refund."
    assert lines[-3:] == [
        "   claim  label            score  cites  text",
        "   c1     supported        0.90   S1     " + claim.format(30),
        "x  c2     number_mismatch  -      S1     " + claim.format(60),
    ]


def test_claim_text_is_escaped_in_the_report(verifier: Verifier) -> None:
    hostile = "Refunds\x1bc are \u202etxet\u202c paid in cash\nPASSED [S2]."
    with pytest.raises(AssertionError) as caught:
        assert_grounded(f"{GOOD} {hostile}", EVIDENCE, verifier=verifier)
    report = str(caught.value)
    assert "\x1b" not in report and "\u202e" not in report
    assert "\\x1bc" in report and "\\u202e" in report
    assert not any(line.startswith("PASSED") for line in report.splitlines())


def test_escape() -> None:
    assert escape("a\nb\tc\x00d\u200be é") == "a\\nb\\tc\\x00d\\u200be é"
    assert escape("x" * 200, 10) == "x" * 9 + "…"


def test_allow_repair(verifier: Verifier) -> None:
    answer = f"{GOOD} {PIGEON} {SECOND}"
    with pytest.raises(AssertionError, match="action repair"):
        assert_grounded(answer, EVIDENCE, verifier=verifier)
    response = assert_grounded(answer, EVIDENCE, verifier=verifier, allow_repair=True)
    assert response.action is Action.REPAIR


def test_settings_go_to_the_verifier_not_alongside_it(verifier: Verifier) -> None:
    with pytest.raises(TypeError):
        assert_grounded(GOOD, EVIDENCE, verifier=verifier, timeout_s=3)


def test_the_plugin_is_declared_as_a_pytest_entry_point() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["entry-points"]["pytest11"] == {"grounding_judge": "judge.integrations.pytest"}


def test_the_plugin_fixture_in_a_test_session(
    pytester: pytest.Pytester, judge_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGE_BASE_URL", judge_url)
    monkeypatch.setenv("JUDGE_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("JUDGE_HTTP_RETRIES", "0")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyfile(
        test_rag=f"""
        from judge.integrations.pytest import assert_grounded

        EVIDENCE = {EVIDENCE!r}

        def test_good(grounding_verifier):
            assert_grounded({GOOD!r}, EVIDENCE, verifier=grounding_verifier)

        def test_wrong(grounding_verifier):
            assert_grounded({WRONG!r}, EVIDENCE, verifier=grounding_verifier)
        """
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:grounding_judge", "-p", "judge.integrations.pytest", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*answer not grounded: action block*", "*number_mismatch*60 days*"]
    )
