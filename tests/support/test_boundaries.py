"""Who imports whom: the package imports neither the tests nor the benchmarks, the tests and the
benchmarks do not import each other (both take the fake judge from ``judge.testing``), and a
benchmark script imports no other script, only ``benchmarks.common``."""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator, Sequence
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


# --- layers and cycles inside the package --------------------------------------------------------

ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"


def layer_table(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """The ```layers block of the architecture page: (layer, its packages), bottom first."""
    block = text.split("```layers\n", 1)[1].split("```", 1)[0]
    table = []
    for line in block.strip().splitlines():
        name, _, members = line.partition(":")
        table.append((name.strip(), tuple(m.strip() for m in members.split(",") if m.strip())))
    return table


def package_modules(root: Path, package: str = "judge") -> dict[str, Path]:
    """Every module of the package by dotted name, folders linked into it included."""
    found: dict[str, Path] = {}
    for folder, _, files in os.walk(root / package, followlinks=True):
        for name in files:
            if name.endswith(".py"):
                path = Path(folder) / name
                parts = list(path.relative_to(root).with_suffix("").parts)
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                found[".".join(parts)] = path
    return found


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(child) for part in node.body for child in ast.walk(part))
    return skipped


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Who imports whom among ``modules``, imports inside functions included, those under
    ``TYPE_CHECKING`` left out. An imported name resolves to the longest module it names."""

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped = _type_checking_nodes(tree)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([base] if base else [])])
                targets = [base, *(f"{base}.{alias.name}" for alias in node.names)]
            for target in targets:
                found = resolve(target)
                if found is not None and found != name:
                    graph[name].add(found)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of ``graph`` with more than one member (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            part = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                part.append(member)
                if member == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def subpackage(module: str) -> str:
    return ".".join(module.split(".")[:2])


def layer_of(module: str, table: Sequence[tuple[str, tuple[str, ...]]]) -> int | None:
    """The layer of the longest package in the table that holds ``module``."""
    best: tuple[int, int] | None = None
    for level, (_, members) in enumerate(table):
        for member in members:
            if (module == member or module.startswith(member + ".")) and (
                best is None or len(member) > best[1]
            ):
                best = (level, len(member))
    return None if best is None else best[0]


@pytest.fixture(scope="module")
def package_graph() -> tuple[dict[str, Path], dict[str, set[str]]]:
    modules = package_modules(ROOT)
    return modules, import_graph(modules)


def test_no_two_modules_import_each_other_in_a_circle(
    package_graph: tuple[dict[str, Path], dict[str, set[str]]],
) -> None:
    modules, graph = package_graph
    faces = {name for name, path in modules.items() if path.name == "__init__.py"}
    # A package's __init__ hands names on; an import of the package is not an import of them.
    without_faces = {name: edges - faces for name, edges in graph.items()}
    assert cycles(without_faces) == []


def test_no_two_subpackages_import_each_other_in_a_circle(
    package_graph: tuple[dict[str, Path], dict[str, set[str]]],
) -> None:
    _, graph = package_graph
    between: dict[str, set[str]] = {}
    for name, edges in graph.items():
        if name == "judge":
            continue  # the package face re-exports the public API from every layer
        mine = subpackage(name)
        between.setdefault(mine, set()).update(
            subpackage(other) for other in edges if other != "judge" and subpackage(other) != mine
        )
    assert cycles(between) == []


def test_every_module_has_a_layer_and_imports_none_above_it(
    package_graph: tuple[dict[str, Path], dict[str, set[str]]],
) -> None:
    _, graph = package_graph
    table = layer_table(ARCHITECTURE.read_text(encoding="utf-8"))
    unplaced = sorted(name for name in graph if layer_of(name, table) is None)
    assert unplaced == [], "give these a layer in docs/ARCHITECTURE.md"
    upward = sorted(
        f"{name} ({table[layer_of(name, table) or 0][0]}) imports {other} "
        f"({table[layer_of(other, table) or 0][0]})"
        for name, edges in graph.items()
        for other in edges
        if other != "judge" and (layer_of(other, table) or 0) > (layer_of(name, table) or 0)
    )
    assert upward == []


def test_the_scan_finds_a_planted_cycle_and_a_planted_upward_import(tmp_path: Path) -> None:
    # The scan itself, on a package made to break both rules.
    package = tmp_path / "judge"
    (package / "low").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "low" / "__init__.py").write_text("")
    (package / "low" / "a.py").write_text("def f() -> None:\n    from judge.low import b\n")
    (package / "low" / "b.py").write_text("from judge.low.a import f\nimport judge.high\n")
    (package / "high.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import judge.low.b\n"
    )
    graph = import_graph(package_modules(tmp_path))
    assert cycles(graph) == [["judge.low.a", "judge.low.b"]]
    assert graph["judge.high"] == set()  # TYPE_CHECKING imports do not count
    table = [("low", ("judge.low",)), ("high", ("judge.high",))]
    assert layer_of("judge.low.b", table) == 0 < (layer_of("judge.high", table) or 0)
