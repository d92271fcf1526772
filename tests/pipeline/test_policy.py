from typing import Any

from judge.config import Settings
from judge.pipeline.policy import PolicyDecision, PolicyInput, apply_edits, decide
from judge.pipeline.screens.answer import AnswerScreens, screen_answer
from judge.schemas import (
    Action,
    CharSpan,
    Claim,
    ClaimOrigin,
    ClaimVerdict,
    CoverageReport,
    Label,
    RepairEdit,
)

ANSWER = (
    "Unopened items can be returned within 30 days [S1]. "
    "Opened items get store credit [S1]. "
    "Refunds take 5 to 7 business days [S2]. "
    "Shipping is free on every order [S2]."
)


def _sentence_spans(text: str) -> list[CharSpan]:
    spans, start = [], 0
    for part in text.split(". "):
        end = start + len(part) + (1 if not part.endswith(".") else 0)
        spans.append(CharSpan(start=start, end=min(end, len(text))))
        start = end + 1
    return spans


SPANS = _sentence_spans(ANSWER)


def verdicts(*labels: Label) -> list[ClaimVerdict]:
    return [
        ClaimVerdict(
            claim=Claim(id=f"c{i + 1}", text=ANSWER[s.start : s.end], span=s),
            label=label,
        )
        for i, (label, s) in enumerate(zip(labels, SPANS, strict=False))
    ]


def run(*labels: Label, **kwargs: Any) -> PolicyDecision:
    return decide(PolicyInput(verdicts=verdicts(*labels), answer=ANSWER, **kwargs))


def test_all_supported_passes() -> None:
    decision = run(*[Label.SUPPORTED] * 4)
    assert decision.action is Action.PASS
    assert decision.failing_claims == []


def test_non_factual_claims_do_not_block_a_pass() -> None:
    assert (
        run(Label.SUPPORTED, Label.NOT_FACTUAL, Label.SUPPORTED, Label.SUPPORTED).action
        is Action.PASS
    )


def test_answer_with_no_factual_claim_passes_with_reason() -> None:
    decision = run(Label.NOT_FACTUAL)
    assert decision.action is Action.PASS
    assert decision.reasons == ["no factual claims to verify"]


def test_each_blocking_label_blocks() -> None:
    for label in (
        Label.CONTRADICTED,
        Label.NUMBER_MISMATCH,
        Label.DATE_MISMATCH,
        Label.IDENTIFIER_MISMATCH,
        Label.QUOTE_MISMATCH,
        Label.BAD_CITATION,
        Label.NEEDS_REVIEW,
        Label.UNVERIFIED,
        Label.VERIFIER_ERROR,
    ):
        decision = run(Label.SUPPORTED, Label.SUPPORTED, Label.SUPPORTED, label)
        assert decision.action is Action.BLOCK, label
        assert decision.failing_claims == ["c4"]


def test_one_unsupported_sentence_is_repaired_by_removing_its_span() -> None:
    decision = run(Label.SUPPORTED, Label.SUPPORTED, Label.SUPPORTED, Label.UNSUPPORTED)
    assert decision.action is Action.REPAIR
    assert decision.repaired_answer is not None
    assert "Shipping" not in decision.repaired_answer
    assert "Refunds take 5 to 7 business days [S2]." in decision.repaired_answer
    assert [e.claim_ids for e in decision.repair_edits] == [["c4"]]
    assert decision.repair_edits[0].span == SPANS[3]


def test_uncited_and_hedged_claims_are_repairable() -> None:
    decision = run(Label.SUPPORTED, Label.UNCITED, Label.SUPPORTED, Label.HEDGE_ADDED)
    assert decision.action is Action.REPAIR
    assert decision.failing_claims == ["c2", "c4"]


def test_repair_that_keeps_too_little_regenerates() -> None:
    decision = run(Label.UNSUPPORTED, Label.UNSUPPORTED, Label.UNSUPPORTED, Label.SUPPORTED)
    assert decision.action is Action.REGENERATE
    assert decision.failing_claims == ["c1", "c2", "c3"]
    assert decision.repaired_answer is None


def test_nothing_supported_left_regenerates_even_with_low_threshold() -> None:
    decision = decide(
        PolicyInput(
            verdicts=verdicts(Label.UNSUPPORTED, Label.NOT_FACTUAL),
            answer=ANSWER,
            repair_min_kept_ratio=0.0,
        )
    )
    assert decision.action is Action.REGENERATE


def test_failed_conclusion_cannot_be_repaired() -> None:
    items = verdicts(Label.SUPPORTED, Label.SUPPORTED)
    items.append(
        ClaimVerdict(
            claim=Claim(id="conclusion", text="x", origin=ClaimOrigin.CONCLUSION),
            label=Label.UNSUPPORTED,
        )
    )
    decision = decide(PolicyInput(verdicts=items, answer=ANSWER))
    assert decision.action is Action.REGENERATE


def test_citation_stuffing_blocks_even_when_all_supported() -> None:
    decision = run(*[Label.SUPPORTED] * 4, screens=AnswerScreens(citation_stuffing=True))
    assert decision.action is Action.BLOCK
    assert any("stuffing" in r for r in decision.reasons)


def test_markup_that_hides_text_blocks_even_where_no_claim_holds_it() -> None:
    # Every claim supported, but a comment outside them hides words from the reader.
    hidden = ANSWER + " <!-- and -->"
    items = verdicts(*[Label.SUPPORTED] * 4)
    screens = screen_answer(hidden, [v.claim for v in items], ["S1"], Settings())
    decision = decide(PolicyInput(verdicts=items, answer=hidden, screens=screens))
    assert decision.action is Action.BLOCK
    assert decision.reasons == [
        f"markup hides text from a reader of the rendered answer: an HTML comment '<!--' at "
        f"{len(ANSWER) + 1}-{len(ANSWER) + 5}"
    ]
    shown = ANSWER + " **and**"
    screens = screen_answer(shown, [v.claim for v in items], ["S1"], Settings())
    assert decide(PolicyInput(verdicts=items, answer=shown, screens=screens)).action is Action.PASS


def test_exceeded_limit_blocks_with_reason() -> None:
    decision = decide(PolicyInput(verdicts=[], answer=ANSWER, limits_exceeded=["answer: too long"]))
    assert decision.action is Action.BLOCK
    assert decision.reasons == ["limit: answer: too long"]


def test_sentence_without_claim_prevents_pass() -> None:
    gap = CoverageReport(sentences_without_claims=[SPANS[3]])
    decision = run(Label.SUPPORTED, Label.SUPPORTED, Label.SUPPORTED, coverage=gap)
    assert decision.action is Action.REPAIR
    assert "Shipping" not in (decision.repaired_answer or "")


def test_uncovered_words_prevent_pass() -> None:
    gap = CoverageReport(uncovered_words=["shipping"])
    decision = run(*[Label.SUPPORTED] * 4, coverage=gap)
    assert decision.action is Action.REGENERATE


def test_structured_claims_without_answer_text_regenerate() -> None:
    items = [
        ClaimVerdict(
            claim=Claim(id="c1", text="a", origin=ClaimOrigin.STRUCTURED), label=Label.SUPPORTED
        ),
        ClaimVerdict(
            claim=Claim(id="c2", text="b", origin=ClaimOrigin.STRUCTURED), label=Label.UNSUPPORTED
        ),
    ]
    assert decide(PolicyInput(verdicts=items, answer=None)).action is Action.REGENERATE


def test_apply_edits_tidies_whitespace() -> None:
    text = "A is true [S1]. B is false [S2]. C is true [S1]."
    edits = [RepairEdit(span=CharSpan(start=16, end=32), claim_ids=["c2"])]
    assert apply_edits(text, edits) == "A is true [S1]. C is true [S1]."
