"""Each claim and passage in its language; the gate on the languages the judge was measured
on; word checks skipped, with the reason, where a language has no word lists."""

from __future__ import annotations

from typing import Any

from judge.config import OtherLanguages
from judge.pipeline.checks.runner import pre_judge
from judge.pipeline.runner import verify
from judge.schemas import Action, CheckStatus, Label
from tests.support.fake_judge import FakeJudgeServer, fake_settings, fenced

GERMAN: dict[str, Any] = {
    "evidence": [
        {
            "id": "S1",
            "text": "Ungeöffnete Artikel können innerhalb von 30 Tagen zurückgegeben werden.",
        },
        {"id": "S2", "text": "Refunds are paid to the original payment method."},
    ],
    "answer": (
        "Ungeöffnete Artikel können innerhalb von 30 Tagen zurückgegeben werden [S1]. "
        "Die Erstattung erfolgt auf das ursprüngliche Zahlungsmittel [S2]."
    ),
}


def judged_claims(fake: FakeJudgeServer) -> list[str]:
    return [fenced(r).get("CLAIM", "") for r in fake.requests if "CLAIM" in fenced(r)]


async def test_a_claim_in_a_language_the_judge_was_not_measured_on_is_unverified() -> None:
    fake = FakeJudgeServer()
    settings = fake_settings(check_conclusion=False)
    response = await verify(GERMAN, settings, judge=fake.judge(settings))
    assert [v.label for v in response.verdicts] == [Label.UNVERIFIED, Label.UNVERIFIED]
    assert all("'de'" in v.reason and "judge_languages: en" in v.reason for v in response.verdicts)
    assert judged_claims(fake) == []  # the judge never saw them
    assert response.action is Action.BLOCK
    assert response.warnings == []


async def test_a_wrong_value_in_another_language_is_still_caught_before_the_gate() -> None:
    fake = FakeJudgeServer()
    settings = fake_settings(check_conclusion=False)
    wrong = {**GERMAN, "answer": GERMAN["answer"].replace("30 Tagen", "60 Tagen", 1)}
    response = await verify(wrong, settings, judge=fake.judge(settings))
    assert response.verdicts[0].label is Label.NUMBER_MISMATCH
    assert "30 Tagen" in response.verdicts[0].reason


async def test_with_other_languages_judged_the_response_warns() -> None:
    fake = FakeJudgeServer()
    settings = fake_settings(check_conclusion=False, other_languages=OtherLanguages.JUDGE)
    response = await verify(GERMAN, settings, judge=fake.judge(settings))
    assert len(judged_claims(fake)) == 2
    assert all(v.judge is not None for v in response.verdicts)
    (warning,) = response.warnings
    assert "de" in warning and "measured only on en" in warning


async def test_a_language_added_to_judge_languages_is_judged_without_a_warning() -> None:
    fake = FakeJudgeServer()
    settings = fake_settings(check_conclusion=False, judge_languages=["en", "de"])
    response = await verify(GERMAN, settings, judge=fake.judge(settings))
    assert len(judged_claims(fake)) == 2
    assert response.warnings == []


async def test_each_claim_and_passage_has_its_language() -> None:
    settings = fake_settings(check_conclusion=False)
    request: dict[str, Any] = {
        **GERMAN,
        "answer": "Ungeöffnete Artikel können innerhalb von 30 Tagen zurückgegeben werden [S1]. "
        "30 Tage [S1].",
    }
    response = await verify(request, settings)
    assert response.passage_languages == {"S1": "de", "S2": "en"}
    # "30 Tage" is too short to tell: it takes the answer's language.
    assert [v.language for v in response.verdicts] == ["de", "de"]


def _outcomes(claim: str, evidence: str) -> dict[str, CheckStatus]:
    from judge.pipeline.align import Alignment, AlignmentStatus
    from judge.pipeline.checks import default_checks
    from judge.pipeline.ledger import freeze_ledger
    from judge.schemas import Claim, Passage

    ledger = freeze_ledger([Passage(id="S1", text=evidence)], fake_settings())
    alignment = Alignment(
        claim=Claim(id="c1", text=claim, citations=("S1",)),
        status=AlignmentStatus.CITED,
        passage_ids=("S1",),
    )
    _, outcomes = pre_judge(alignment, ledger, default_checks())
    return {outcome.check: outcome.status for outcome in outcomes}


def test_word_checks_are_skipped_on_a_language_without_word_lists() -> None:
    statuses = _outcomes(
        "Der Versand ist nicht kostenlos.", "Der Versand innerhalb Deutschlands ist kostenlos."
    )
    assert statuses["polarity"] is CheckStatus.SKIPPED
    assert statuses["hedges"] is CheckStatus.SKIPPED


def test_word_checks_read_english() -> None:
    statuses = _outcomes("Shipping is not free.", "Shipping within Germany is free.")
    assert statuses.get("polarity") is not CheckStatus.SKIPPED
    assert CheckStatus.SKIPPED not in statuses.values()
