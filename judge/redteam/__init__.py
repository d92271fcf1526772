"""Red-teaming the verifier: a versioned suite of adversarial cases built from clean seeds by
named transformations, run through the full pipeline, scored against the outcome each must
have, and reported per attack family. ``judge redteam`` is the command line."""

from judge.redteam.model import Case, Expect, Expectation, Seed, Sentence
from judge.redteam.report import Report, build_report
from judge.redteam.runner import CaseRun, JudgeChoice, SuiteRun, run_suite
from judge.redteam.scoring import CaseResult, Status, score_suite
from judge.redteam.suite import FAMILIES, SUITE_VERSION, build_suite, default_seeds, sample, select

__all__ = [
    "FAMILIES",
    "SUITE_VERSION",
    "Case",
    "CaseResult",
    "CaseRun",
    "Expect",
    "Expectation",
    "JudgeChoice",
    "Report",
    "Seed",
    "Sentence",
    "Status",
    "SuiteRun",
    "build_report",
    "build_suite",
    "default_seeds",
    "run_suite",
    "sample",
    "score_suite",
    "select",
]
