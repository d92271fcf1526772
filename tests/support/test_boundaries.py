"""Who imports whom: the package imports neither the tests nor the benchmarks, the tests and the
benchmarks do not import each other (both take the fake judge from ``judge.testing``), and a
benchmark script imports no other script, only ``benchmarks.common``."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def imported(path: Path) -> Iterator[str]:
    """Every module ``path`` imports, wherever in the file (functions included)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module


def top(name: str) -> str:
    return name.split(".", 1)[0]


def modules(folder: str) -> list[Path]:
    return sorted((ROOT / folder).rglob("*.py"))


@pytest.mark.parametrize("folder", ["judge", "tests"])
def test_neither_the_package_nor_the_tests_import_the_benchmarks(folder: str) -> None:
    found = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in modules(folder)
        for name in imported(path)
        if top(name) == "benchmarks"
    ]
    assert found == []


@pytest.mark.parametrize("folder", ["judge", "benchmarks"])
def test_neither_the_package_nor_the_benchmarks_import_the_tests(folder: str) -> None:
    found = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in modules(folder)
        for name in imported(path)
        if top(name) == "tests"
    ]
    assert found == []


def test_a_benchmark_script_imports_no_other_script() -> None:
    runner = ROOT / "benchmarks" / "gates" / "__main__.py"  # it runs the gates, by design
    found = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in modules("benchmarks")
        if path != runner
        for name in imported(path)
        if top(name) == "benchmarks" and name != "benchmarks.common"
    ]
    assert found == []
    assert any(name == "benchmarks.common" for name in imported(runner))


def test_the_ragas_worker_imports_nothing_of_the_project() -> None:
    # It runs in RAGAS's own virtual environment, where the project is not installed.
    worker = ROOT / "benchmarks" / "harness" / "ragas_worker.py"
    assert not {top(name) for name in imported(worker)} & {"judge", "benchmarks", "tests"}
