"""Support scores from the label token's logprobs, and the thresholded decision."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from openai.types.chat import ChatCompletionTokenLogprob

from judge.errors import JudgeOutputInvalid
from judge.pipeline.entail.score import LABEL_ONLY_EXTRA, decide_label
from judge.pipeline.entail.verdict import (
    YES_NO_LABELS,
    label_distribution,
    label_value_offset,
)
from judge.pipeline.entail.windows import build_premises
from judge.pipeline.runner import verify
from judge.schemas import Action, Claim, JudgeTrace, Label, Passage
from judge.schemas.judging import EntailmentResult
from tests.support.fake_judge import (
    FakeJudgeServer,
    chat_completion,
    fake_settings,
    logprob_content,
    verdict_json,
    verdict_response,
)

EVIDENCE = "Opened items can be returned within 14 days of delivery and receive store credit only."
PREMISE = build_premises([Passage(id="S1", text=EVIDENCE)], window_tokens=700, overlap_tokens=0)[0]
CLAIM = Claim(id="c", text="Opened items can be returned within 14 days.", citations=("S1",))


def _tokens(entries: list[dict[str, Any]]) -> list[ChatCompletionTokenLogprob]:
    return [ChatCompletionTokenLogprob.model_validate(e) for e in entries]


async def test_scores_flow_through_the_client_with_hand_computed_values() -> None:
    content = verdict_json("supported", quote=EVIDENCE, ids=["S1"])
    alternatives = {"supported": 0.6, "sup": 0.1, "un": 0.2, "contr": 0.05, "{": 0.05}
    logprobs = logprob_content(content, alternatives, chosen="supported")
    fake = FakeJudgeServer([chat_completion(content, logprobs=logprobs)])
    result = await fake.judge().entail(CLAIM, PREMISE)
    # Mapped mass 0.95 ("{" starts no label): 0.7 supported, 0.2 unsupported, 0.05 contradicted.
    assert result.p_supported == pytest.approx(0.7 / 0.95)
    assert result.p_contradicted == pytest.approx(0.05 / 0.95)
    assert result.extra["p_unsupported"] == pytest.approx(0.2 / 0.95)


def test_token_that_also_opens_the_string() -> None:
    # Compact JSON, the value's token carries the opening quote: '"sup'.
    content = json.dumps(
        {"label": "supported", "reason": "r", "evidence_quote": "", "evidence_ids": []},
        separators=(",", ":"),
    )
    alternatives = {'"sup': 0.5, '"un': 0.3, '"contr': 0.1, '" ': 0.1}
    tokens = _tokens(logprob_content(content, alternatives, chosen="sup", lead='"'))
    assert any(t.token == '"sup' for t in tokens)
    dist = label_distribution(tokens, "supported")
    assert dist is not None
    assert dist["supported"] == pytest.approx(0.5 / 0.9)
    assert dist["unsupported"] == pytest.approx(0.3 / 0.9)
    assert dist["contradicted"] == pytest.approx(0.1 / 0.9)


def test_whole_label_with_closing_quote_and_longer_words() -> None:
    content = verdict_json("unsupported")
    alternatives = {'unsupported"': 0.5, "supportedly": 0.3, "contradicted": 0.2}
    tokens = _tokens(logprob_content(content, alternatives, chosen='unsupported"'))
    dist = label_distribution(tokens, "unsupported")
    assert dist is not None
    # "supportedly" is no label; 'unsupported"' closes the string on a whole label.
    assert dist["unsupported"] == pytest.approx(0.5 / 0.7)
    assert dist["contradicted"] == pytest.approx(0.2 / 0.7)
    assert dist["supported"] == 0.0


def test_quote_first_finds_the_real_label_key_not_one_inside_the_quote() -> None:
    quote = 'He wrote {"label": "contradicted"} on the form.'
    content = verdict_json("supported", quote=quote, variant="quote_first")
    assert label_value_offset(content) == content.rindex('"label": "') + len('"label": "')
    tokens = _tokens(logprob_content(content, {"supported": 0.8, "contr": 0.2}, chosen="supported"))
    dist = label_distribution(tokens, "supported")
    assert dist is not None and dist["supported"] == pytest.approx(0.8)


def test_sampled_token_disagreeing_with_the_label_gives_no_score() -> None:
    content = verdict_json("supported")
    tokens = _tokens(logprob_content(content, {"supported": 0.9}, chosen="supported"))
    assert label_distribution(tokens, "contradicted") is None


def test_no_label_key_gives_no_score() -> None:
    tokens = _tokens([{"token": '{"verdict": "yes"}', "logprob": 0.0, "top_logprobs": []}])
    assert label_distribution(tokens, "supported") is None
    assert label_value_offset('{"label": ') is None
    assert label_value_offset('{"a": {"label": "x"}}') is None


async def test_missing_logprobs_are_a_verifier_fault_not_a_label_decision() -> None:
    fake = FakeJudgeServer(
        [verdict_response("supported", quote=EVIDENCE, ids=["S1"], scored=False)]
    )
    with pytest.raises(JudgeOutputInvalid, match="no readable score"):
        await fake.judge().entail(CLAIM, PREMISE)


def _result(label: str, p_sup: float | None, p_con: float | None) -> EntailmentResult:
    trace = JudgeTrace(model="m", template="t", template_hash="sha256:" + "0" * 64)
    return EntailmentResult(label, "r", p_sup, p_con, None, [], trace)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("label", "p_sup", "p_con", "t_entail", "t_contra", "expected"),
    [
        ("supported", 0.8, 0.1, 0.5, 0.5, Label.SUPPORTED),
        ("supported", 0.6, 0.1, 0.7, 0.5, Label.UNSUPPORTED),  # under the entail threshold
        ("unsupported", 0.45, 0.1, 0.4, 0.5, Label.SUPPORTED),  # calibrated threshold decides
        ("contradicted", 0.1, 0.8, 0.5, 0.5, Label.CONTRADICTED),
        ("contradicted", 0.3, 0.4, 0.5, 0.5, Label.UNSUPPORTED),  # under the contra threshold
        ("supported", 0.55, 0.45, 0.5, 0.4, Label.CONTRADICTED),  # contradiction wins
    ],
)
def test_decide(
    label: str,
    p_sup: float | None,
    p_con: float | None,
    t_entail: float,
    t_contra: float,
    expected: Label,
) -> None:
    assert decide_label(_result(label, p_sup, p_con), t_entail, t_contra) is expected


@pytest.mark.parametrize("label", ["supported", "contradicted", "unsupported"])
def test_decide_refuses_a_result_without_a_score(label: str) -> None:
    with pytest.raises(JudgeOutputInvalid, match="no score"):
        decide_label(_result(label, None, None), 0.0, 0.0)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -0.1, 1.5])
def test_decide_refuses_a_score_out_of_range(bad: float) -> None:
    with pytest.raises(JudgeOutputInvalid, match="not in"):
        decide_label(_result("supported", bad, 0.1), 0.5, 0.5)
    with pytest.raises(JudgeOutputInvalid, match="not in"):
        decide_label(_result("supported", 0.9, bad), 0.5, 0.5)


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("supported", Label.SUPPORTED),
        ("contradicted", Label.CONTRADICTED),
        ("unsupported", Label.UNSUPPORTED),
    ],
)
def test_decide_lets_the_label_decide_an_opted_in_label_only_result(
    label: str, expected: Label
) -> None:
    result = _result(label, None, None)
    result.extra[LABEL_ONLY_EXTRA] = 1.0
    assert decide_label(result, 0.99, 0.99) is expected


async def test_yes_no_scores_are_the_answer_token_probability_with_no_contradiction() -> None:
    settings = fake_settings(verdict_variant="yes_no")
    content = verdict_json("supported", variant="yes_no")
    assert json.loads(content) == {"answer": "yes"}
    alternatives = {"yes": 0.6, "y": 0.1, "no": 0.2, "{": 0.1}
    logprobs = logprob_content(content, alternatives, chosen="yes", key="answer")
    fake = FakeJudgeServer([chat_completion(content, logprobs=logprobs)])
    result = await fake.judge(settings).entail(CLAIM, PREMISE)
    request = fake.requests[0]
    assert request["response_format"]["json_schema"]["name"] == "VerdictYesNo"
    assert "consistent with the document" in request["messages"][1]["content"]
    assert result.label == "supported"
    # Mapped mass 0.9 ("{" starts no answer): 0.7 yes, 0.2 no.
    assert result.p_supported == pytest.approx(0.7 / 0.9)
    assert result.extra["p_unsupported"] == pytest.approx(0.2 / 0.9)
    assert result.p_contradicted is None  # the question cannot say "contradicted"


def test_yes_no_prefixes_map_to_answers_and_labels_elsewhere_are_ignored() -> None:
    content = json.dumps({"answer": "no"})
    # "supported" is no answer of this schema; "n" and "no" both start "no".
    alternatives = {"n": 0.3, "no": 0.3, "yes": 0.2, "supported": 0.2}
    tokens = _tokens(logprob_content(content, alternatives, chosen="no", key="answer"))
    dist = label_distribution(tokens, "unsupported", key="answer", values=YES_NO_LABELS)
    assert dist is not None
    assert dist["unsupported"] == pytest.approx(0.6 / 0.8)
    assert dist["supported"] == pytest.approx(0.2 / 0.8)
    assert dist["contradicted"] == 0.0
    # Read with the three-label vocabulary, the same tokens give no score.
    assert label_distribution(tokens, "unsupported") is None


class _ScorelessJudge:
    """A judge (not the HTTP one) whose results carry no score: a cached entry from before,
    or another implementation of the protocol."""

    model_id = "scoreless"

    async def entail(
        self, claim: Claim, premise: object, question: str | None = None
    ) -> EntailmentResult:
        return _result("supported", None, None)


async def test_a_scoreless_result_from_any_judge_is_a_verifier_error() -> None:
    request = {
        "evidence": [{"id": "S1", "text": EVIDENCE}],
        "answer": "Opened items can be returned within 14 days [S1].",
    }
    response = await verify(request, fake_settings(), judge=_ScorelessJudge())
    assert response.action is Action.BLOCK
    assert [v.label for v in response.verdicts] == [Label.VERIFIER_ERROR]
