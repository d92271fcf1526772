"""Run red-team cases through the full pipeline (``judge.pipeline.runner.verify``) with a
chosen judge.

Every case gets a fresh judge over a recording transport, so the requests sent to the judge can
be checked for prompt structure. Each clean case a case is compared with runs once. Cases with
a time bound run in a forked process that is killed past the bound: a case that hangs must not
hang the suite.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Literal

import httpx

from judge.config import Settings
from judge.errors import InputError
from judge.inputs.request import load_request
from judge.judges.transport import default_http_client
from judge.pipeline import runner as pipeline
from judge.pipeline.entail.llm_judge import build_http_judge
from judge.protocols import Check
from judge.redteam.model import Case, NestedJson, RawJson, Request, request_key
from judge.redteam.recording import RecordingTransport, structure_problems
from judge.schemas import ClaimOrigin
from judge.testing.rule_judge import (
    FAKE_BASE_URL,
    FAKE_MODEL,
    SCORE_FAULT_NAMES,
    RuleJudge,
)

JudgeKind = Literal["fake", "fake-permissive", "http"]
GRACE_S = 2.0  # past a case's time bound, before its process is killed


@dataclass(frozen=True)
class JudgeChoice:
    """The judge a suite runs against: the rule-based fake (or its permissive variant, which
    supports every claim) or an OpenAI-compatible endpoint."""

    kind: JudgeKind
    base_url: str | None = None
    model: str | None = None

    @property
    def is_fake(self) -> bool:
        return self.kind != "http"

    def describe(self) -> str:
        if self.kind == "http":
            return f"{self.model or 'the served model'} at {self.base_url}"
        return f"{self.kind} (rule-based, no model)"


def embedded_judge(settings: Settings) -> JudgeChoice:
    """The embedded judge server (started if it is not running), or the configured endpoint."""
    from judge.pipeline.entail import connect as runtime

    base_url, model = asyncio.run(runtime.resolve_endpoint(settings))
    return JudgeChoice("http", base_url, model)


@dataclass
class CaseRun:
    """What the pipeline did with one request."""

    outcome: str  # pass / repair / regenerate / block, or rejected / crash / timeout
    labels: dict[str, str] = field(default_factory=dict)  # claim id -> label
    conclusion_checked: bool = False
    reasons: list[str] = field(default_factory=list)
    seconds: float = 0.0
    judge_seconds: float = 0.0  # of ``seconds``, spent waiting for the judge
    judge_calls: int = 0
    structure: list[str] = field(default_factory=list)  # prompt structure problems
    error: str | None = None

    @property
    def passed(self) -> bool:
        return self.outcome == "pass"


@dataclass
class SuiteRun:
    judge: JudgeChoice
    cases: list[Case]
    runs: dict[str, CaseRun]  # by case id
    baselines: dict[str, CaseRun]  # by request key of the clean case
    seconds: float

    def baseline_of(self, case: Case) -> CaseRun | None:
        return None if case.baseline is None else self.baselines.get(request_key(case.baseline))


Progress = Callable[[int, int, str], None]


def judge_settings(settings: Settings, choice: JudgeChoice) -> Settings:
    """Settings for a red-team run: no verdict cache (every verdict fresh), and for the fake
    judge its address and no HTTP retries."""
    update: dict[str, Any] = {"cache_enabled": False}
    if choice.is_fake:
        update |= {"base_url": FAKE_BASE_URL, "model": FAKE_MODEL, "http_retries": 0}
    else:
        update |= {"base_url": choice.base_url, "model": choice.model}
    return settings.model_copy(update=update)


def run_suite(
    cases: Sequence[Case],
    settings: Settings,
    choice: JudgeChoice,
    *,
    checks: Sequence[Check] | None = None,
    progress: Progress | None = None,
    isolate: bool = True,
) -> SuiteRun:
    """Run every case and each clean case they are compared with.

    ``checks`` replaces the pipeline's exact checks for this run (a weakened set shows which
    cases depend on a check); ``isolate=False`` runs time-bounded cases in this process too.
    """
    base = judge_settings(settings, choice)
    started = time.perf_counter()
    clean = {request_key(c.baseline): c.baseline for c in cases if c.baseline is not None}
    total = len(clean) + len(cases)
    done = 0
    baselines: dict[str, CaseRun] = {}
    runs: dict[str, CaseRun] = {}
    for key, request in clean.items():
        baselines[key] = run_request(request, base, choice, checks=checks)
        done += 1
        if progress is not None:
            progress(done, total, "clean case")
    for case in cases:
        runs[case.id] = run_case(case, base, choice, isolate=isolate, checks=checks)
        done += 1
        if progress is not None:
            progress(done, total, case.id)
    return SuiteRun(choice, list(cases), runs, baselines, time.perf_counter() - started)


def run_case(
    case: Case,
    settings: Settings,
    choice: JudgeChoice,
    *,
    isolate: bool,
    checks: Sequence[Check] | None = None,
) -> CaseRun:
    case_settings = settings.model_copy(update=dict(case.settings)) if case.settings else settings
    expect = case.expect
    calls = expect.max_judge_calls

    def work() -> CaseRun:
        return run_request(
            case.request,
            case_settings,
            choice,
            max_calls=calls,
            judge_fault=case.judge_fault,
            checks=checks,
        )

    if expect.max_seconds is not None and isolate and _can_fork():
        # Time bounds are on the verifier's own work; a model judge adds its calls' time.
        judge_calls = 3 if calls is None else calls
        allowance = 0.0 if choice.is_fake else judge_calls * case_settings.timeout_s
        return _isolated(work, expect.max_seconds + GRACE_S + allowance)
    return work()


def run_request(
    request: Request,
    settings: Settings,
    choice: JudgeChoice,
    *,
    max_calls: int | None = None,
    judge_fault: str | None = None,
    checks: Sequence[Check] | None = None,
) -> CaseRun:
    """Run one request; ``judge_fault`` (fake judges only) spoils every verdict's score;
    ``checks`` replaces the default exact checks."""
    return asyncio.run(_run(request, settings, choice, max_calls, judge_fault, checks))


async def _run(
    request: Request,
    settings: Settings,
    choice: JudgeChoice,
    max_calls: int | None,
    judge_fault: str | None = None,
    checks: Sequence[Check] | None = None,
) -> CaseRun:
    inner: httpx.AsyncBaseTransport
    fault = next((f for f in SCORE_FAULT_NAMES if f == judge_fault), None)
    if fault is not None:
        # A faulty server is what such a case tests: always the fake one, whatever judge runs
        # the rest of the suite.
        inner = RuleJudge(permissive=True, score_fault=fault).transport
    elif choice.kind == "http":
        inner = httpx.AsyncHTTPTransport(retries=0)
    else:
        inner = RuleJudge(
            permissive=choice.kind == "fake-permissive", obeys_injections=True
        ).transport
    recorder = RecordingTransport(inner, max_calls)
    client = default_http_client(settings, transport=recorder)
    judge = build_http_judge(settings, http_client=client, cache=None)
    started = time.perf_counter()
    run = CaseRun("crash")
    try:
        response = await pipeline.verify(
            _materialise(request), settings, judge=judge, checks=checks
        )
        run = CaseRun(
            outcome=response.action.value,
            labels={v.claim.id: v.label.value for v in response.verdicts},
            conclusion_checked=any(
                v.claim.origin is ClaimOrigin.CONCLUSION for v in response.verdicts
            ),
            reasons=list(response.reasons),
        )
    except InputError as exc:
        run = CaseRun("rejected", error=f"{type(exc).__name__}: {exc}")
    except Exception as exc:  # a crash is a finding, reported with the case
        run = CaseRun("crash", error=f"{type(exc).__name__}: {exc}")
    finally:
        await client.aclose()
    run.seconds = time.perf_counter() - started
    run.judge_seconds = recorder.seconds
    run.judge_calls = len(recorder.requests)
    run.structure = [
        f"judge request {n}: {problem}"
        for n, body in enumerate(recorder.requests, start=1)
        for problem in structure_problems(body)
    ]
    return run


def _materialise(request: Request) -> Any:
    if isinstance(request, NestedJson):
        return request.build()
    if isinstance(request, RawJson):
        # Read as `judge verify` reads a request file.
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "request.json"
            path.write_text(request.text, encoding="utf-8")
            return load_request(path)
    return request


def _can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def _isolated(work: Callable[[], CaseRun], limit: float) -> CaseRun:
    """``work`` in a forked process, killed after ``limit`` seconds."""
    context = multiprocessing.get_context("fork")
    reader, writer = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(work, writer), daemon=True)
    started = time.perf_counter()
    process.start()
    writer.close()
    try:
        if reader.poll(limit):
            result: CaseRun = reader.recv()
        else:
            result = CaseRun("timeout", error=f"still running after {limit:.0f} s: killed")
            result.seconds = time.perf_counter() - started
    except EOFError:
        result = CaseRun("crash", error=f"the case's process died (exit code {process.exitcode})")
        result.seconds = time.perf_counter() - started
    finally:
        if process.is_alive():
            process.kill()
        process.join(5)
        reader.close()
    return result


def _child(work: Callable[[], CaseRun], writer: Connection) -> None:
    try:
        result = work()
    except BaseException as exc:  # reported to the parent, whatever it is
        result = CaseRun("crash", error=f"{type(exc).__name__}: {exc}")
    writer.send(result)
    writer.close()
