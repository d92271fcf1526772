"""Every snippet in docs/API.md runs, in order, against the scripted fake judge (and, for the
guard endpoint, a real uvicorn with a fake generator), and prints the output the page shows."""

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from judge.audit.log import AuditLog
from judge.service.app import ServeOptions, create_app
from tests.service.test_chat_guard import uvicorn_serving
from tests.support.fake_judge import (
    FakeJudgeServer,
    chat_completion,
    fake_settings,
    run_fake_openai_server,
)

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "API.md"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```$", re.DOTALL | re.MULTILINE)
DOC_GUARD_URL = "http://127.0.0.1:8080/v1"
GENERATOR_REPLY = (
    "Refunds are issued to the original payment method within 5 to 7 business days [S2]."
)


def blocks() -> list[tuple[str, str]]:
    return [(lang, body) for lang, body in BLOCK.findall(DOC.read_text(encoding="utf-8"))]


def snippets() -> list[tuple[str, str | None]]:
    """Each python block with the text block that follows it (its output), if any."""
    found = blocks()
    out: list[tuple[str, str | None]] = []
    for index, (lang, body) in enumerate(found):
        if lang != "python":
            continue
        following = found[index + 1] if index + 1 < len(found) else None
        out.append((body, following[1] if following and following[0] == "text" else None))
    return out


@contextlib.contextmanager
def guard_service(tmp_path: Path, judge_url: str) -> Iterator[str]:
    def generator(request: httpx.Request) -> httpx.Response:
        if json.loads(request.content).get("stream"):
            headers = {"content-type": "text/event-stream"}
            return httpx.Response(200, content=streamed(GENERATOR_REPLY), headers=headers)
        return httpx.Response(200, json=chat_completion(GENERATOR_REPLY, model="generator"))

    with contextlib.ExitStack() as stack:
        settings = fake_settings(
            base_url=judge_url,
            model=None,
            state_dir=tmp_path / "guard",
            generator_base_url=stack.enter_context(run_fake_openai_server(generator)),
        )
        audit = stack.enter_context(AuditLog.open(tmp_path / "guard-audit.sqlite3"))
        app = create_app(settings, ServeOptions(), audit=audit)
        yield stack.enter_context(uvicorn_serving(app))


def streamed(text: str) -> bytes:
    """``text`` as a chat-completion stream, a few words a chunk."""
    words = text.split(" ")
    pieces = [" ".join(words[i : i + 3]) + " " for i in range(0, len(words), 3)]
    pieces[-1] = pieces[-1].rstrip()
    deltas: list[tuple[dict[str, str], str | None]] = [({"content": p}, None) for p in pieces]
    deltas.append(({}, "stop"))
    events = [
        {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "generator",
         "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        for delta, finish in deltas
    ]  # fmt: skip
    return b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in events) + b"data: [DONE]\n\n"


@pytest.fixture
def judge_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    with run_fake_openai_server(FakeJudgeServer().handler) as url:
        monkeypatch.setenv("JUDGE_BASE_URL", url)
        monkeypatch.delenv("JUDGE_MODEL", raising=False)
        monkeypatch.delenv("JUDGE_CONFIG", raising=False)
        monkeypatch.setenv("JUDGE_STATE_DIR", str(tmp_path / "state"))
        monkeypatch.setenv("JUDGE_HTTP_RETRIES", "0")
        yield url


def test_the_page_has_the_snippets_it_promises() -> None:
    codes = [code for code, _ in snippets()]
    assert len(codes) >= 8
    assert any("from openai import OpenAI" in code for code in codes)
    assert any("GroundingCheck" in code for code in codes)
    assert any(code.startswith("# test_") for code in codes)
    assert sum(output is not None for _, output in snippets()) >= 6


def test_every_snippet_runs_and_prints_what_the_page_shows(judge_env: str, tmp_path: Path) -> None:
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    with guard_service(tmp_path, judge_env) as guard_url:
        for number, (code, expected) in enumerate(snippets(), start=1):
            first_line = code.splitlines()[0]
            if re.fullmatch(r"# test_\w+\.py", first_line):
                run_as_test_file(code, tmp_path / first_line.removeprefix("# "))
                continue
            source = code.replace(DOC_GUARD_URL, guard_url)
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exec(compile(source, f"docs/API.md snippet {number}", "exec"), namespace)
            if expected is not None:
                assert printed.getvalue() == expected, f"snippet {number} printed otherwise"


def run_as_test_file(code: str, path: Path) -> None:
    path.write_text(code, encoding="utf-8")
    # The plugin by module, whether or not the installed entry point already loads it.
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:grounding_judge",
               "-p", "judge.integrations.pytest", "-p", "no:cacheprovider", str(path)]  # fmt: skip
    result = subprocess.run(
        command, cwd=path.parent, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout
