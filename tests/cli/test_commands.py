"""The command table: `judge --help` stays light, --version, did-you-mean, missing extras."""

from __future__ import annotations

import argparse
import builtins
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from judge.cli import app as cli
from judge.extras import EXTRA_OF_MODULE, missing_extra

ROOT = Path(__file__).resolve().parents[2]


def _run(code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT, check=False
    )


def test_help_imports_neither_openai_nor_instructor() -> None:
    result = _run(
        "import sys\n"
        "from judge.cli.app import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "names = ('openai', 'instructor', 'fastapi')\n"
        "heavy = sorted(m for m in names if m in sys.modules)\n"
        "print('HEAVY', heavy)\n"
    )
    assert result.returncode == 0, result.stderr
    assert "verify" in result.stdout and "redteam" in result.stdout
    assert "HEAVY []" in result.stdout


def test_a_light_command_does_not_load_the_http_stack() -> None:
    result = _run(
        "import sys\n"
        "from judge.cli.app import build_parser\n"
        "build_parser('schema')\n"
        "print('openai' in sys.modules, 'instructor' in sys.modules)\n"
    )
    assert result.stdout.strip() == "False False", result.stderr


def test_every_command_module_registers_its_name() -> None:
    for name in cli.COMMANDS:
        parser = cli.build_parser(name)
        [commands] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        registered = commands.choices[name]
        assert len(registered._actions) > 1, name  # more than the stub's -h


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out.strip() == f"judge {cli.version()}"


def test_a_mistyped_command_suggests_the_closest(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["verfy", "request.json"]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert "unknown command 'verfy' (did you mean 'verify'?)" in err
    assert err.startswith("usage: judge")


def test_an_unknown_command_without_a_close_match(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["zzzz"]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert "unknown command 'zzzz';" in err and "did you mean" not in err


def test_serve_without_its_extra_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real_import = builtins.__import__

    def no_fastapi(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.split(".")[0] == "fastapi":
            raise ModuleNotFoundError(f"No module named '{name}'", name=name)
        return real_import(name, *args, **kwargs)

    for module in [m for m in sys.modules if m.startswith(("fastapi", "judge.service"))]:
        monkeypatch.delitem(sys.modules, module)
    monkeypatch.setattr(builtins, "__import__", no_fastapi)
    assert cli.main(["serve", "--no-judge"]) == cli.EXIT_INPUT_ERROR
    assert capsys.readouterr().err.strip() == (
        "judge: error: judge serve needs the 'serve' extra: pip install 'grounding-judge[serve]'"
    )


def test_a_missing_module_of_our_own_is_not_an_extra() -> None:
    assert missing_extra(ModuleNotFoundError("x", name="judge.nowhere"), "judge x") is None
    found = missing_extra(ModuleNotFoundError("x", name="matplotlib.pyplot"), "judge eval")
    assert found == "judge eval needs the 'eval' extra: pip install 'grounding-judge[eval]'"


def test_every_extra_named_exists_in_pyproject() -> None:
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
    assert set(EXTRA_OF_MODULE.values()) <= set(extras)
