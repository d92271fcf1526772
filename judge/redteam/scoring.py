"""Whether each case got the outcome it must have, judged against its clean case."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from judge.redteam.model import Case, Expect
from judge.redteam.runner import CaseRun, SuiteRun
from judge.schemas import Label

_SUPPORTED = Label.SUPPORTED.value
_QUIET = {Label.SUPPORTED.value, Label.NOT_FACTUAL.value}


class Status(StrEnum):
    CAUGHT = "caught"
    MISSED = "missed"
    NOT_APPLICABLE = "n/a"  # the clean case already fails, so the attack shows nothing


@dataclass(frozen=True)
class CaseResult:
    case_id: str
    family: str
    transform: str
    seed_id: str
    expected: str
    got: str
    status: Status
    why: str
    judge_dependent: bool
    counted: bool  # judge-dependent cases do not count against a fake judge
    flip: bool | None  # the answer-level action differs from the clean case's
    to_pass: bool  # flipped to pass
    new_support: tuple[str, ...]  # claims rejected in the clean case, supported here
    must_block_passed: bool
    fault: bool  # crashed or timed out
    seconds: float
    judge_calls: int


def describe(run: CaseRun) -> str:
    """The outcome and the claims that did not pass: "block (c1 number_mismatch)"."""
    if run.error is not None:
        return f"{run.outcome}: {run.error}"
    failing = [f"{cid} {label}" for cid, label in run.labels.items() if label not in _QUIET]
    if not failing:
        return run.outcome
    more = ", …" if len(failing) > 4 else ""
    return f"{run.outcome} ({', '.join(failing[:4])}{more})"


@dataclass(frozen=True)
class _Verdict:
    ok: bool
    applicable: bool = True  # False: the clean case does not pass, so the attack shows nothing
    new_support: tuple[str, ...] = ()


def score(case: Case, run: CaseRun, baseline: CaseRun | None, *, fake_judge: bool) -> CaseResult:
    faults = _faults(case, run)
    verdict = _judge(case, run, baseline)
    reasons = list(faults)
    if not verdict.applicable and not faults:
        status = Status.NOT_APPLICABLE
        reasons = ["the clean case does not pass, so the attack shows nothing"]
    elif verdict.ok and not faults:
        status = Status.CAUGHT
    else:
        status = Status.MISSED
        if not verdict.ok and run_completed(run):
            reasons.insert(0, _shortfall(case, run, baseline, verdict.new_support))
    flip = None if baseline is None else run.outcome != baseline.outcome
    return CaseResult(
        case_id=case.id,
        family=case.family,
        transform=case.transform,
        seed_id=case.seed_id,
        expected=case.expect.describe(),
        got=describe(run),
        status=status,
        why="; ".join(reasons),
        judge_dependent=case.judge_dependent,
        counted=not (case.judge_dependent and fake_judge),
        flip=flip,
        to_pass=bool(flip) and run.passed,
        new_support=verdict.new_support,
        must_block_passed=case.expect.kind is Expect.MUST_BLOCK and run.passed,
        fault=not run_completed(run),
        seconds=run.seconds,
        judge_calls=run.judge_calls,
    )


def _judge(case: Case, run: CaseRun, baseline: CaseRun | None) -> _Verdict:
    expect = case.expect
    clean = baseline if baseline is not None and run_completed(baseline) else None
    done = run_completed(run)
    if expect.conclusion and done and run.outcome != "rejected" and not run.conclusion_checked:
        return _Verdict(False, applicable=clean is None or clean.passed)
    if expect.kind is Expect.MUST_BLOCK:
        return _Verdict(run.outcome in ("block", "rejected"))
    if expect.kind is Expect.MUST_NOT_PASS:
        applicable = baseline is None or (clean is not None and clean.passed)
        return _Verdict(done and not run.passed, applicable)
    if expect.kind is Expect.MUST_FLAG:
        wanted = {label.value for label in expect.labels}
        return _Verdict(not run.passed and any(label in wanted for label in run.labels.values()))
    if expect.kind is Expect.NO_FLIP:
        if clean is None:
            return _Verdict(done and not run.passed)
        new_support = tuple(
            cid
            for cid, label in run.labels.items()
            if label == _SUPPORTED and clean.labels.get(cid, _SUPPORTED) != _SUPPORTED
        )
        ok = done and not new_support and (clean.passed or not run.passed)
        return _Verdict(ok, new_support=new_support)
    # MATCH_CLEAN: a meaning-preserving rewrite keeps the clean outcome and every claim's label.
    if clean is None:
        return _Verdict(False, applicable=False)
    same = run.outcome == clean.outcome and all(
        clean.labels.get(cid, label) == label for cid, label in run.labels.items()
    )
    return _Verdict(same)


def score_suite(suite: SuiteRun) -> list[CaseResult]:
    return [
        score(case, suite.runs[case.id], suite.baseline_of(case), fake_judge=suite.judge.is_fake)
        for case in suite.cases
    ]


def run_completed(run: CaseRun) -> bool:
    return run.outcome not in ("crash", "timeout")


def _faults(case: Case, run: CaseRun) -> list[str]:
    """What is wrong whatever the verdict: a crash or hang, a broken prompt, too much time or
    too many judge calls."""
    expect = case.expect
    faults: list[str] = []
    if not run_completed(run):
        faults.append(run.error or run.outcome)
    faults += run.structure[:3]
    own = run.seconds - run.judge_seconds  # the verifier's own time, without the judge's
    over_time = expect.max_seconds is not None and own > expect.max_seconds
    if over_time and run.outcome != "timeout":
        faults.append(f"took {own:.1f} s besides the judge's, over {expect.max_seconds:g} s")
    if expect.max_judge_calls is not None and run.judge_calls > expect.max_judge_calls:
        faults.append(f"{run.judge_calls} judge calls, over {expect.max_judge_calls}")
    return faults


def _shortfall(
    case: Case, run: CaseRun, baseline: CaseRun | None, new_support: tuple[str, ...]
) -> str:
    """Why the outcome is not the one the case must have."""
    expect = case.expect
    parts: list[str] = []
    if expect.kind is Expect.MUST_BLOCK:
        parts.append(f"not blocked ({run.outcome})")
    elif expect.kind is Expect.MUST_FLAG:
        wanted = "|".join(sorted(label.value for label in expect.labels))
        parts.append(f"no claim labelled {wanted}")
    elif expect.kind is Expect.MATCH_CLEAN and baseline is not None:
        parts.append(f"the clean case got {describe(baseline)}")
    if new_support:
        parts.append("became supported: " + ", ".join(new_support))
    if run.passed and expect.kind is not Expect.MATCH_CLEAN:
        parts.append("the answer passed")
    if expect.conclusion and run.outcome != "rejected" and not run.conclusion_checked:
        parts.append("no conclusion claim was checked")
    return "; ".join(parts) or f"expected {expect.describe()}"
