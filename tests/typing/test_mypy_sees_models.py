"""mypy sees the Pydantic models with their real types: the probe passes, a model that
resolves to ``Any`` fails the probe's assertions, and a deliberate misuse is rejected."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

mypy_api = pytest.importorskip("mypy.api")

ROOT = Path(__file__).resolve().parents[2]
PROBE = Path(__file__).with_name("probe_models.py")


def run_mypy(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("MYPYPATH", str(ROOT))
    stdout, stderr, status = mypy_api.run(
        ["--config-file", str(ROOT / "pyproject.toml"), "--no-error-summary", str(path)]
    )
    return status, stdout + stderr


def test_the_probe_type_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    status, output = run_mypy(PROBE, monkeypatch)
    assert status == 0, output


def test_a_model_seen_as_any_fails_the_probe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = PROBE.read_text(encoding="utf-8")
    hollow = source.replace(
        "from judge.api import verify_sync",
        "from typing import Any\n\nfrom judge.api import verify_sync",
    ).replace("def probe(response: VerifyResponse,", "def probe(response: Any,")
    path = tmp_path / "hollow_probe.py"
    path.write_text(hollow, encoding="utf-8")
    status, output = run_mypy(path, monkeypatch)
    assert status == 1
    assert 'Expression is of type "Any", not "Action"' in output


@pytest.mark.parametrize(
    ("misuse", "message"),
    [
        ("ClaimVerdict(claim=claim, label='supported-ish')", 'incompatible type "str"'),
        ("VerifyResponse.model_validate({}).action + 1", "Unsupported operand"),
        ("Passage(id=3, text='x')", 'incompatible type "int"'),
    ],
)
def test_a_misuse_of_a_model_is_rejected(
    misuse: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "misuse.py"
    path.write_text(
        "from judge.schemas import Claim, ClaimVerdict, Passage, VerifyResponse\n\n"
        "claim = Claim(id='c1', text='x')\n"
        f"value = {misuse}\n",
        encoding="utf-8",
    )
    status, output = run_mypy(path, monkeypatch)
    assert status == 1, output
    assert message in output, output
    assert os.fspath(path.name) in output
