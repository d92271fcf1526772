"""Run labelled records through the verifier and write one prediction per record.

Claim records: the claim is checked against all of the record's passages, which are its cited
evidence. Such a claim cites many passages by construction, so two guards meant for answers are
lifted for these records only (see :func:`claim_settings`): the per-claim citation cap and the
citation-stuffing check. Answer records go through the whole pipeline unchanged except for the
``search`` citation policy, since their answers carry no inline citations; an answer is
predicted faithful only if the action is ``pass``.

Every fault fails closed: a record whose verification errs is predicted not supported (or
hallucinated) and its ``error`` says why, so errors are counted, never dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from judge.config import CitationPolicy, Settings
from judge.errors import JudgeError
from judge.eval.records import EvalRecord, PredictionWriter, resume_predictions
from judge.inputs.request import input_error_from
from judge.pipeline.entail.connect import judge_for_run
from judge.pipeline.runner import verify
from judge.protocols import Judge
from judge.schemas import (
    Action,
    CheckStatus,
    ClaimVerdict,
    Finding,
    Label,
    StructuredClaim,
    VerifyRequest,
    VerifyResponse,
)


@dataclass(frozen=True)
class EvalRun:
    total: int  # records considered (after --limit)
    skipped: int  # already in the predictions file
    written: int
    errors: int  # predictions written in this run that carry an error


def claim_settings(settings: Settings) -> Settings:
    """Settings for claim records: the claim cites every passage of its record, so the
    per-claim citation cap is raised to the ledger's size limit and stuffing detection is off."""
    return settings.model_copy(
        update={
            "max_citations_per_claim": max(settings.max_citations_per_claim, settings.max_passages),
            "detect_stuffing": False,
        }
    )


def answer_settings(settings: Settings) -> Settings:
    """Settings for answer records: their answers cite nothing, so claims align by search."""
    return settings.model_copy(update={"citation_policy": CitationPolicy.SEARCH})


def build_request(record: EvalRecord) -> VerifyRequest:
    """The verifier's input for a record: its evidence and its claim or answer, nothing else."""
    evidence = list(record.evidence)
    if record.kind == "claim":
        claim = StructuredClaim(text=record.text, chunk_ids=[p.id for p in record.evidence])
        return VerifyRequest(evidence=evidence, claims=[claim])
    return VerifyRequest(evidence=evidence, answer=record.text)


async def evaluate(
    records: Sequence[EvalRecord],
    out: Path,
    settings: Settings,
    *,
    judge: Judge | None = None,
    use_judge: bool = True,
    concurrency: int = 1,
    retry_errors: bool = False,
    progress: bool = True,
) -> EvalRun:
    """Verify every record not yet in ``out`` and append its prediction as soon as it is done.

    Records already in ``out`` are skipped, so an interrupted run resumes where it stopped; with
    ``retry_errors`` the predictions that ended in an error are removed and run again. The judge
    is opened once for the whole run; if it cannot be opened the run stops with the fault
    rather than writing a wall of errors."""
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    done = {p["id"] for p in resume_predictions(out, drop_errors=retry_errors)}
    pending = [r for r in records if r.id not in done]
    if not pending:  # nothing to do: don't start a judge for it
        return EvalRun(len(records), len(records), 0, 0)
    per_kind = {"claim": claim_settings(settings), "answer": answer_settings(settings)}
    semaphore = asyncio.Semaphore(concurrency)
    errors = 0

    async with judge_for_run(settings, judge, use_judge=use_judge, stand_in=False) as shared:
        with PredictionWriter(out) as writer, _progress(progress, len(pending)) as advance:

            async def run(record: EvalRecord) -> None:
                nonlocal errors
                async with semaphore:
                    prediction = await evaluate_record(
                        record, per_kind[record.kind], judge=shared, use_judge=use_judge
                    )
                writer.write(prediction)
                errors += prediction["error"] is not None
                advance()

            # A task group: an unexpected fault in one record cancels the others before the
            # judge and the file are closed under them.
            async with asyncio.TaskGroup() as group:
                for record in pending:
                    group.create_task(run(record))
    return EvalRun(len(records), len(records) - len(pending), len(pending), errors)


async def evaluate_record(
    record: EvalRecord, settings: Settings, *, judge: Judge | None, use_judge: bool
) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        request = build_request(record)
    except ValidationError as exc:
        return failed_prediction(record, f"InputError: {input_error_from(exc)}", _since(started))
    try:
        response = await verify(request, settings, judge=judge if use_judge else None)
    except JudgeError as exc:
        return failed_prediction(record, f"{type(exc).__name__}: {exc}", _since(started))
    return prediction_from_response(record, response, _since(started))


def prediction_from_response(
    record: EvalRecord, response: VerifyResponse, seconds: float
) -> dict[str, Any]:
    factual = [v for v in response.verdicts if v.label is not Label.NOT_FACTUAL]
    error = _response_error(response)
    if record.kind == "claim":
        verdict = response.verdicts[0] if response.verdicts else None
        predicted = "unsupported" if verdict is None or error else claim_label(verdict)
        score = verdict.score if verdict else None
        contradiction = verdict.contradiction_score if verdict else None
        by_checks = verdict is not None and decided_by_checks(verdict)
    else:
        predicted = "faithful" if response.action is Action.PASS and not error else "hallucinated"
        # The answer is as supported as its weakest claim; no score when any claim lacks one.
        scores = [v.score for v in factual]
        contras = [v.contradiction_score for v in factual]
        score = min(s for s in scores if s is not None) if _all_set(scores) else None
        contradiction = max(c for c in contras if c is not None) if _all_set(contras) else None
        by_checks = response.judge_calls == 0 and any(decided_by_checks(v) for v in factual)
    traces = [v.judge for v in response.verdicts if v.judge is not None]
    return {
        **_identity(record),
        "predicted": predicted,
        "score": score,
        "contradiction_score": contradiction,
        "action": response.action.value,
        "calibration_hash": response.calibration_hash,  # None: the configured defaults
        "verdicts": [v.model_dump(mode="json") for v in response.verdicts],
        "claims": len(factual),
        # Sentences without a claim and words no claim covers: they fail an answer on their own.
        "coverage_gaps": len(response.coverage.sentences_without_claims)
        + len(response.coverage.uncovered_words),
        "claims_by_checks": sum(1 for v in factual if decided_by_checks(v)),
        "judge_calls": response.judge_calls,
        "cached_verdicts": sum(1 for t in traces if t.cached),
        "prompt_tokens": sum(t.prompt_tokens for t in traces),
        "completion_tokens": sum(t.completion_tokens for t in traces),
        "decided_by_checks": by_checks,
        "seconds": round(seconds, 4),
        "error": error,
    }


def failed_prediction(record: EvalRecord, error: str, seconds: float) -> dict[str, Any]:
    return {
        **_identity(record),
        "predicted": "unsupported" if record.kind == "claim" else "hallucinated",
        "score": None,
        "contradiction_score": None,
        "action": None,
        "calibration_hash": None,
        "verdicts": [],
        "claims": 0,
        "claims_by_checks": 0,
        "judge_calls": 0,
        "cached_verdicts": 0,
        "prompt_tokens": 0,
        "completion_tokens": 0,
        "decided_by_checks": False,
        "seconds": round(seconds, 4),
        "error": error,
    }


def claim_label(verdict: ClaimVerdict) -> str:
    """The three-label view: an exact check that finds the evidence stating another value,
    name or polarity in the claim's place reports a contradiction, whatever its own label."""
    if verdict.label is Label.SUPPORTED:
        return "supported"
    if verdict.label is Label.CONTRADICTED or verdict.finding is Finding.CONFLICT:
        return "contradicted"
    return "unsupported"


def decided_by_checks(verdict: ClaimVerdict) -> bool:
    """A deterministic check failed the claim before any model saw it."""
    failed = (CheckStatus.FAILED, CheckStatus.NEEDS_REVIEW)
    return verdict.judge is None and any(c.status in failed for c in verdict.checks)


def _response_error(response: VerifyResponse) -> str | None:
    if response.limits_exceeded:
        return "limit exceeded: " + "; ".join(response.limits_exceeded)
    for verdict in response.verdicts:
        if verdict.label is Label.VERIFIER_ERROR:
            return f"verifier_error: {verdict.error or verdict.reason}"
    if not response.verdicts:
        return "no verdict"
    return None


def _identity(record: EvalRecord) -> dict[str, Any]:
    return {
        "id": record.id,
        "dataset": record.dataset,
        "kind": record.kind,
        "gold": record.gold,
        "numeric": record.numeric,
    }


def _all_set(values: Sequence[float | None]) -> bool:
    return bool(values) and all(v is not None for v in values)


def _since(started: float) -> float:
    return time.perf_counter() - started


class _SecondsPerRecord(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("-- s/record" if not speed else f"{1 / speed:.1f} s/record", style="cyan")


@contextlib.contextmanager
def _progress(enabled: bool, total: int) -> Iterator[Callable[[], None]]:
    if not enabled:
        yield lambda: None
        return
    bar = Progress(
        TextColumn("eval"),
        BarColumn(),
        MofNCompleteColumn(),
        _SecondsPerRecord(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
    )
    task = bar.add_task("eval", total=total)
    with bar:
        yield lambda: bar.advance(task)
