"""The multilingual value cases (tests/data/languages/*.jsonl) are well formed.

The cases are what ``benchmarks/gates/languages.py`` measures the exact checks on; a malformed
one would quietly measure nothing. Each check below is a function returning the problems it
finds, so the tests at the end can show that each one does find a broken record.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

CASES_DIR = Path(__file__).resolve().parents[1] / "data" / "languages"
LANGUAGES = ("de", "fr", "es", "it", "pt", "ru", "zh", "ja", "nl")
REFERENCE_LANGUAGE = "en"
MIN_CASES = 20
MIN_CROSS_LANGUAGE = 4
EXPECTATIONS = frozenset({"flag", "clean"})
TEXT_FIELDS = ("id", "language", "evidence_language", "expect", "value_kind", "answer", "why")
CITATION_RE = re.compile(r"\[([^\[\]]+)\]")

Case = dict[str, Any]


def read_cases(path: Path) -> list[Case]:
    return [json.loads(line) for line in path.read_text("utf-8").split("\n") if line.strip()]


def cited_ids(answer: str) -> list[str]:
    return [part.strip() for group in CITATION_RE.findall(answer) for part in group.split(",")]


def field_problems(case: Case) -> list[str]:
    name = case.get("id", "?")
    problems = [
        f"{name}: {field} missing or empty"
        for field in TEXT_FIELDS
        if not isinstance(case.get(field), str) or not case[field].strip()
    ]
    evidence = case.get("evidence")
    if not isinstance(evidence, list) or not evidence:
        return [*problems, f"{name}: evidence missing or empty"]
    for passage in evidence:
        if not (isinstance(passage, dict) and passage.get("id") and passage.get("text")):
            problems.append(f"{name}: an evidence passage without id or text: {passage!r}")
    return problems


def expectation_problems(case: Case) -> list[str]:
    name = case.get("id", "?")
    if case.get("expect") not in EXPECTATIONS:
        return [f"{name}: expect {case.get('expect')!r} not in {sorted(EXPECTATIONS)}"]
    wrong = case.get("wrong_value")
    if case["expect"] == "flag" and not (isinstance(wrong, str) and wrong in case["answer"]):
        return [f"{name}: a flag case needs a wrong_value written in its answer"]
    if case["expect"] == "clean" and wrong is not None:
        return [f"{name}: a clean case has no wrong value"]
    return []


def citation_problems(case: Case) -> list[str]:
    name = case.get("id", "?")
    cited = cited_ids(case["answer"])
    if not cited:
        return [f"{name}: the answer cites nothing"]
    known = {passage["id"] for passage in case["evidence"]}
    return [
        f"{name}: cites {ident!r}, not in the evidence" for ident in cited if ident not in known
    ]


def language_problems(case: Case, file_language: str) -> list[str]:
    """A case belongs to its file's language: its answer or its evidence is in it."""
    name = case.get("id", "?")
    problems = []
    if not name.startswith(f"{file_language}-"):
        problems.append(f"{name}: id does not start with {file_language}-")
    pair = {case["language"], case["evidence_language"]}
    if file_language not in pair:
        problems.append(f"{name}: neither answer nor evidence is in {file_language}")
    return problems


def case_problems(case: Case, file_language: str) -> list[str]:
    problems = field_problems(case)
    if problems:
        return problems
    return [
        *expectation_problems(case),
        *citation_problems(case),
        *language_problems(case, file_language),
    ]


def file_problems(cases: list[Case], file_language: str) -> list[str]:
    problems = [p for case in cases for p in case_problems(case, file_language)]
    if problems:
        return problems
    if len(cases) < MIN_CASES:
        problems.append(f"{file_language}: {len(cases)} cases, fewer than {MIN_CASES}")
    expects = Counter(case["expect"] for case in cases)
    if min(expects["flag"], expects["clean"]) < len(cases) * 0.4:
        problems.append(f"{file_language}: flag and clean are not about half each: {expects}")
    if file_language != REFERENCE_LANGUAGE:
        problems.extend(cross_language_problems(cases, file_language))
    return problems


def cross_language_problems(cases: list[Case], file_language: str) -> list[str]:
    cross = [case for case in cases if case["language"] != case["evidence_language"]]
    problems = []
    if len(cross) < MIN_CROSS_LANGUAGE:
        problems.append(
            f"{file_language}: {len(cross)} cross-language cases, fewer than {MIN_CROSS_LANGUAGE}"
        )
    if {case["expect"] for case in cross} != EXPECTATIONS:
        problems.append(f"{file_language}: cross-language cases are not both flag and clean")
    return problems


def duplicate_ids(all_cases: list[Case]) -> list[str]:
    counts = Counter(case.get("id") for case in all_cases)
    return sorted(f"{name}: used {n} times" for name, n in counts.items() if n > 1)


# --- the committed files --------------------------------------------------------------------


def test_every_language_has_a_case_file() -> None:
    present = {path.stem for path in CASES_DIR.glob("*.jsonl")}
    assert {*LANGUAGES, REFERENCE_LANGUAGE} <= present


@pytest.mark.parametrize("language", [*LANGUAGES, REFERENCE_LANGUAGE])
def test_case_file_is_well_formed(language: str) -> None:
    cases = read_cases(CASES_DIR / f"{language}.jsonl")
    assert file_problems(cases, language) == []


def test_ids_are_unique_across_files() -> None:
    all_cases = [case for path in CASES_DIR.glob("*.jsonl") for case in read_cases(path)]
    assert duplicate_ids(all_cases) == []


# --- the checks find what they are for ------------------------------------------------------


def _good_case(**changes: Any) -> Case:
    case: Case = {
        "id": "de-900",
        "language": "de",
        "evidence_language": "de",
        "expect": "flag",
        "value_kind": "number",
        "evidence": [{"id": "S1", "text": "Die Frist beträgt 30 Tage."}],
        "answer": "Die Frist beträgt 60 Tage [S1].",
        "why": "30 -> 60",
        "wrong_value": "60 Tage",
    }
    case.update(changes)
    return case


def test_a_good_case_has_no_problem() -> None:
    assert case_problems(_good_case(), "de") == []


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"why": ""}, "why missing"),
        ({"evidence": []}, "evidence missing"),
        ({"expect": "pass"}, "expect 'pass'"),
        ({"wrong_value": "90 Tage"}, "needs a wrong_value"),
        ({"answer": "Die Frist beträgt 60 Tage [S2]."}, "cites 'S2'"),
        ({"answer": "Die Frist beträgt 60 Tage."}, "cites nothing"),
        ({"language": "fr", "evidence_language": "fr"}, "neither answer nor evidence"),
        ({"id": "fr-001"}, "does not start with de-"),
    ],
)
def test_a_broken_case_is_reported(changes: dict[str, Any], expected: str) -> None:
    problems = case_problems(_good_case(**changes), "de")
    assert any(expected in problem for problem in problems), problems


def test_a_clean_case_with_a_wrong_value_is_reported() -> None:
    problems = case_problems(_good_case(expect="clean"), "de")
    assert any("has no wrong value" in problem for problem in problems)


def test_too_few_cases_and_cross_language_cases_are_reported() -> None:
    cases = [_good_case(id=f"de-{n:03d}") for n in range(5)]
    problems = file_problems(cases, "de")
    assert any("fewer than 20" in problem for problem in problems)
    assert any("cross-language cases, fewer than 4" in problem for problem in problems)
    assert any("not about half each" in problem for problem in problems)


def test_a_repeated_id_is_reported() -> None:
    assert duplicate_ids([_good_case(), _good_case()]) == ["de-900: used 2 times"]


def test_square_brackets_in_a_citation_group_name_each_id() -> None:
    assert cited_ids("A [S1][S2] and B [S1, S3].") == ["S1", "S2", "S1", "S3"]
