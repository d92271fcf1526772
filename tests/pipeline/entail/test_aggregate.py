"""Judging one claim over its evidence windows through the HTTP judge."""

from __future__ import annotations

from typing import Any

import pytest

from judge.errors import JudgeUnavailable
from judge.pipeline.entail.aggregate import (
    judge_over_views,
    judge_over_windows,
    judge_sentences,
    probe_judgement,
)
from judge.pipeline.entail.windows import SourceSpan, build_premises
from judge.schemas import Claim, Label, Passage
from judge.schemas.judging import Premise
from tests.support.fake_judge import (
    FakeJudgeServer,
    fake_settings,
    fenced,
    http_error,
    rule_based_judge,
    verdict_response,
)

FILLER = " ".join(f"Section {i} describes the packaging rules for region {i}." for i in range(60))
KEY_FACT = "Express orders ship within 2 business days."
LONG = Passage(id="L1", text=f"{FILLER} {KEY_FACT} {FILLER}")
CLAIM = Claim(id="c1", text="Express orders ship within 2 business days.", citations=("L1",))


def _windows() -> list[Any]:
    premises = build_premises([LONG], window_tokens=200, overlap_tokens=30)
    assert len(premises) > 3
    return premises


async def test_supported_in_one_window_is_supported_with_exact_span() -> None:
    premises = _windows()
    fake = FakeJudgeServer()
    judgement = await judge_over_windows(fake.judge(), CLAIM, premises, None, 0.5, 0.5)
    assert judgement.label is Label.SUPPORTED
    window = premises[judgement.window]
    assert KEY_FACT in window.text
    assert judgement.trace.window == judgement.window
    assert judgement.trace.calls == len(premises) == len(fake.requests)
    assert judgement.p_supported == pytest.approx(0.9)
    (span,) = judgement.evidence
    assert span.passage_id == "L1"
    assert LONG.text[span.start : span.end] == KEY_FACT == span.text


async def test_contradiction_in_any_window_wins_and_stops() -> None:
    premises = _windows()
    calls = {"n": 0}

    def script(request: dict[str, Any]) -> Any:
        calls["n"] += 1
        evidence = fenced(request)["EVIDENCE"]
        if "region 5." in evidence:
            quote = "Section 5 describes the packaging rules for region 5."
            return verdict_response(
                "contradicted",
                quote=quote,
                ids=["L1"],
                scores={"supported": 0.1, "unsupported": 0.1, "contradicted": 0.8},
            )
        return rule_based_judge(request)

    judge = FakeJudgeServer(script).judge()
    judgement = await judge_over_windows(judge, CLAIM, premises, None, 0.5, 0.5)
    assert judgement.label is Label.CONTRADICTED
    assert judgement.window == 0
    assert calls["n"] == 1
    assert judgement.p_contradicted == pytest.approx(0.8)
    (span,) = judgement.evidence
    assert LONG.text[span.start : span.end] == span.text


async def test_unsupported_everywhere_is_unsupported() -> None:
    claim = Claim(id="c2", text="Gift cards never expire.", citations=("L1",))
    premises = _windows()
    judgement = await judge_over_windows(FakeJudgeServer().judge(), claim, premises, None, 0.5, 0.5)
    assert judgement.label is Label.UNSUPPORTED
    assert judgement.evidence == []
    assert len(judgement.results) == len(premises)


async def test_a_fault_in_any_window_propagates() -> None:
    premises = _windows()
    fake = FakeJudgeServer([verdict_response("unsupported"), http_error(500)])
    with pytest.raises(JudgeUnavailable):
        await judge_over_windows(fake.judge(), CLAIM, premises, None, 0.5, 0.5)


async def test_multi_passage_claim_points_into_the_right_passage() -> None:
    s1 = Passage(id="S1", text="Opened items can be returned within 14 days.")
    s2 = Passage(id="S2", text="Shipping fees are refunded only when the item arrived damaged.")
    premises = build_premises([s1, s2], window_tokens=700, overlap_tokens=50)
    assert len(premises) == 1 and premises[0].passage_ids == ["S1", "S2"]
    claim = Claim(
        id="c3",
        text="Shipping fees are refunded only when the item arrived damaged.",
        citations=("S1", "S2"),
    )
    judgement = await judge_over_windows(FakeJudgeServer().judge(), claim, premises, "q", 0.5, 0.5)
    assert judgement.label is Label.SUPPORTED
    (span,) = judgement.evidence
    assert span.passage_id == "S2"
    assert (span.start, span.end) == (0, len(s2.text))


async def test_no_premise_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        await judge_over_windows(FakeJudgeServer().judge(), CLAIM, [], None, 0.5, 0.5)


def _yes_no_script(probe_label: str, probe_contra: float) -> Any:
    """A yes/no judge that answers "no" everywhere and a probe that answers ``probe_label``."""

    def script(request: dict[str, Any]) -> Any:
        name = request["response_format"]["json_schema"]["name"]
        if name == "VerdictYesNo":
            return verdict_response(
                "unsupported", variant="yes_no", scores={"supported": 0.2, "unsupported": 0.8}
            )
        assert name == "VerdictContradiction"
        scores = {"unsupported": 1.0 - probe_contra, "contradicted": probe_contra}
        return verdict_response(probe_label, variant="contradiction", scores=scores)

    return script


async def test_probe_splits_a_yes_no_unsupported_into_contradicted() -> None:
    premises = build_premises([LONG], window_tokens=700, overlap_tokens=0)
    fake = FakeJudgeServer(_yes_no_script("contradicted", 0.7))
    judge = fake.judge(fake_settings(verdict_variant="yes_no"))
    unprobed = await judge_over_windows(judge, CLAIM, premises, None, 0.5, 0.5)
    # Judging leaves the probe to the caller: it names what to ask, and asks nothing.
    assert unprobed.label is Label.UNSUPPORTED and unprobed.probe_target is not None
    assert len(fake.requests) == len(premises)
    judgement = await probe_judgement(unprobed, judge, None, 0.5)
    assert judgement.probe_target is None
    assert judgement.label is Label.CONTRADICTED
    assert judgement.p_supported == pytest.approx(0.2)  # the yes/no judge's, not the probe's
    assert judgement.p_contradicted == pytest.approx(0.7)
    names = [r["response_format"]["json_schema"]["name"] for r in fake.requests]
    assert names == ["VerdictYesNo"] * len(premises) + ["VerdictContradiction"]
    assert judgement.trace.calls == len(premises) + 1


async def test_probe_below_t_contra_leaves_the_claim_unsupported_after_every_window() -> None:
    premises = _windows()
    fake = FakeJudgeServer(_yes_no_script("contradicted", 0.4))
    judge = fake.judge(fake_settings(verdict_variant="yes_no"))
    judgement = await probe_judgement(
        await judge_over_windows(judge, CLAIM, premises, None, 0.5, 0.5), judge, None, 0.5
    )
    assert judgement.label is Label.UNSUPPORTED
    assert judgement.trace.calls == 2 * len(premises)


async def test_no_probe_for_supported_claims_or_judges_that_can_contradict() -> None:
    premises = _windows()
    fake = FakeJudgeServer()  # three-way label_first verdicts with P(contradicted)
    judge = fake.judge()
    claim = Claim(id="c2", text="Gift cards never expire.", citations=("L1",))
    judgement = await probe_judgement(
        await judge_over_windows(judge, claim, premises, None, 0.5, 0.5), judge, None, 0.5
    )
    assert judgement.label is Label.UNSUPPORTED
    assert len(fake.requests) == len(premises)  # it could have said contradicted: no probe

    fake = FakeJudgeServer()
    judge = fake.judge(fake_settings(verdict_variant="yes_no"))
    judgement = await probe_judgement(
        await judge_over_windows(judge, CLAIM, premises, None, 0.5, 0.5), judge, None, 0.5
    )
    assert judgement.label is Label.SUPPORTED
    names = {r["response_format"]["json_schema"]["name"] for r in fake.requests}
    assert names == {"VerdictYesNo"}


def _views() -> list[list[Any]]:
    """A selected view (the key sentence alone) and the whole passage in windows."""
    start = LONG.text.index(KEY_FACT)
    selected = build_premises(
        [LONG],
        [SourceSpan("L1", start, start + len(KEY_FACT))],
        window_tokens=200,
        overlap_tokens=0,
    )
    return [selected, build_premises([LONG], window_tokens=700, overlap_tokens=0)]


def _by_view(selected: float, whole: float) -> Any:
    """A yes/no judge whose P(yes) depends on the view it is shown."""

    def script(request: dict[str, Any]) -> Any:
        if request["response_format"]["json_schema"]["name"] != "VerdictYesNo":
            return verdict_response(
                "unsupported",
                variant="contradiction",
                scores={"unsupported": 0.9, "contradicted": 0.1},
            )
        p = whole if "Section" in fenced(request)["EVIDENCE"] else selected
        label = "supported" if p >= 0.5 else "unsupported"
        scores = {"supported": p, "unsupported": 1.0 - p}
        return verdict_response(label, variant="yes_no", scores=scores)

    return script


async def test_two_views_are_scored_by_their_mean() -> None:
    views = _views()
    fake = FakeJudgeServer(_by_view(selected=0.3, whole=0.8))
    judge = fake.judge(fake_settings(verdict_variant="yes_no"))
    judgement = await probe_judgement(
        await judge_over_views(judge, CLAIM, views, None, 0.5, 0.5), judge, None, 0.5
    )
    assert judgement.label is Label.SUPPORTED
    assert judgement.p_supported == pytest.approx(0.55)
    assert judgement.trace.calls == len(views[0]) + len(views[1]) == len(fake.requests)
    assert judgement.view == 1  # the whole-passage view is the one that found support

    fake = FakeJudgeServer(_by_view(selected=0.3, whole=0.6))
    judge = fake.judge(fake_settings(verdict_variant="yes_no"))
    judgement = await probe_judgement(
        await judge_over_views(judge, CLAIM, views, None, 0.5, 0.5), judge, None, 0.5
    )
    assert judgement.label is Label.UNSUPPORTED
    assert judgement.p_supported == pytest.approx(0.45)
    # The probe asks once, on the first (selected) view.
    names = [r["response_format"]["json_schema"]["name"] for r in fake.requests]
    assert names.count("VerdictContradiction") == len(views[0])
    assert judgement.trace.calls == len(fake.requests)
    assert judgement.p_contradicted == pytest.approx(0.1)


async def test_contradiction_in_the_first_view_ends_the_claim() -> None:
    views = _views()
    contradicted = verdict_response(
        "contradicted",
        quote=KEY_FACT,
        ids=["L1"],
        scores={"supported": 0.1, "unsupported": 0.1, "contradicted": 0.8},
    )
    fake = FakeJudgeServer([contradicted])
    judgement = await judge_over_views(fake.judge(), CLAIM, views, None, 0.5, 0.5)
    assert judgement.label is Label.CONTRADICTED
    assert len(fake.requests) == 1 and judgement.view == 0


def _by_claim(scores: dict[str, float]) -> Any:
    """A yes/no judge whose P(yes) depends on the claim it is asked about."""

    def script(request: dict[str, Any]) -> Any:
        p = scores[fenced(request)["CLAIM"]]
        label = "supported" if p >= 0.5 else "unsupported"
        return verdict_response(
            label, variant="yes_no", scores={"supported": p, "unsupported": 1.0 - p}
        )

    return script


FIRST, SECOND = "Express orders ship within 2 business days.", "They ship free."


def _two_sentence_claim() -> tuple[Claim, list[Premise], list[tuple[Claim, list[Premise]]]]:
    """A claim of two sentences, its premises, and each sentence paired with them."""
    premises = build_premises([LONG], window_tokens=5000, overlap_tokens=0)
    claim = Claim(id="c9", text=f"{FIRST} {SECOND}", citations=("L1",))
    parts = [
        (claim.model_copy(update={"id": f"c9.s{n}", "text": t}), premises)
        for n, t in enumerate((FIRST, SECOND), start=1)
    ]
    return claim, premises, parts


async def test_a_claim_is_as_supported_as_its_weakest_sentence() -> None:
    claim, premises, parts = _two_sentence_claim()
    fake = FakeJudgeServer(_by_claim({claim.text: 0.8, FIRST: 0.9, SECOND: 0.2}))
    judge = fake.judge(fake_settings(verdict_variant="yes_no"))
    whole = await judge_over_windows(judge, claim, premises, None, 0.5, 0.5)
    assert whole.label is Label.SUPPORTED
    judged = await judge_sentences(judge, whole, parts, None, 0.5, 0.5)
    assert judged.label is Label.UNSUPPORTED
    assert judged.p_supported == pytest.approx(0.2)
    assert judged.trace.calls == 3 == len(fake.requests)

    fake = FakeJudgeServer(_by_claim({claim.text: 0.8, FIRST: 0.9, SECOND: 0.7}))
    judge = fake.judge(fake_settings(verdict_variant="yes_no"))
    whole = await judge_over_windows(judge, claim, premises, None, 0.5, 0.5)
    judged = await judge_sentences(judge, whole, parts, None, 0.5, 0.5)
    assert judged.label is Label.SUPPORTED and judged.p_supported == pytest.approx(0.7)


async def test_the_failing_sentence_of_a_supported_claim_gets_the_probe() -> None:
    claim, premises, parts = _two_sentence_claim()
    yes = {claim.text: 0.8, FIRST: 0.9, SECOND: 0.2}
    probed: list[str] = []

    def script(request: dict[str, Any]) -> Any:
        asked = fenced(request)["CLAIM"]
        if request["response_format"]["json_schema"]["name"] == "VerdictYesNo":
            return _by_claim(yes)(request)
        probed.append(asked)
        scores = {"unsupported": 0.3, "contradicted": 0.7}
        return verdict_response("contradicted", variant="contradiction", scores=scores)

    fake = FakeJudgeServer(script)
    judge = fake.judge(fake_settings(verdict_variant="yes_no"))
    whole = await probe_judgement(
        await judge_over_windows(judge, claim, premises, None, 0.5, 0.5), judge, None, 0.5
    )
    assert whole.label is Label.SUPPORTED and not probed
    judged = await probe_judgement(
        await judge_sentences(judge, whole, parts, None, 0.5, 0.5), judge, None, 0.5
    )
    assert probed == [SECOND]  # the weakest sentence, not the whole claim
    assert judged.label is Label.CONTRADICTED
    assert judged.p_supported == pytest.approx(0.2) and judged.p_contradicted == pytest.approx(0.7)
    assert judged.trace.calls == 4 == len(fake.requests)

    # Below t_contra the claim stays unsupported, with the probe's calls counted.
    fake = FakeJudgeServer(script)
    judge = fake.judge(fake_settings(verdict_variant="yes_no"))
    whole = await probe_judgement(
        await judge_over_windows(judge, claim, premises, None, 0.5, 0.5), judge, None, 0.5
    )
    judged = await probe_judgement(
        await judge_sentences(judge, whole, parts, None, 0.5, 0.8), judge, None, 0.8
    )
    assert judged.label is Label.UNSUPPORTED and judged.trace.calls == 4
