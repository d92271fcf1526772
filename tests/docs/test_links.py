"""The front door holds: the README is short, opens with the two commands, and every relative
link in it and in the documentation reaches a file, and a heading where it names one."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, ROOT / "CONTRIBUTING.md", ROOT / "local_models" / "README.md", *DOCS]
RUN_COMMAND = "judge verify examples/refund_policy.json"
TEST_COMMAND = "./scripts/test"

_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^\s*(```|~~~)")


def _prose(path: Path) -> list[str]:
    """The file's lines outside fenced code blocks."""
    lines, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return lines


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    text = heading.strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


@functools.cache
def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for line in _prose(path):
        match = re.match(r"^#{1,6}\s+(.*)$", line)
        if not match:
            continue
        base = slug(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(path: Path) -> list[str]:
    return [
        target
        for line in _prose(path)
        for target in _LINK.findall(line)
        if not re.match(r"^[a-z][a-z0-9+.-]*:", target)  # http:, https:, mailto:
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in links(page):
        file_part, _, anchor = target.partition("#")
        destination = (page.parent / file_part).resolve() if file_part else page
        if not destination.exists():
            broken.append(f"{target}: no such file")
        elif anchor and destination.suffix == ".md" and anchor not in anchors(destination):
            broken.append(f"{target}: no heading #{anchor} in {destination.name}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_the_readme_is_a_front_door() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines; keep it to 150"
    first_screen = "\n".join(lines[:40])
    assert RUN_COMMAND in first_screen and TEST_COMMAND in first_screen


def test_ci_runs_the_readme_test_command() -> None:
    steps = [
        line.strip()
        for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert f"exec {TEST_COMMAND}" in steps


def test_the_readme_lists_every_documentation_page() -> None:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Documentation") :]
    listed = set(re.findall(r"\]\((docs/[^)#]+\.md)\)", section))
    missing = {f"docs/{page.name}" for page in DOCS} - listed
    assert not missing, f"add a line for each to the README's Documentation section: {missing}"


def test_the_slug_rule() -> None:
    assert slug("`judge config`: what a run would use") == "judge-config-what-a-run-would-use"
    assert slug("3. `judge batch`: verify logged traffic") == "3-judge-batch-verify-logged-traffic"
    assert slug("Your own judge (vLLM)") == "your-own-judge-vllm"
