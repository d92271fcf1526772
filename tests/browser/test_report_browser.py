"""The HTML report in a real headless Chromium: clicking a claim shows its evidence with the
exact span marked, the keyboard works, nothing loads from the network and injected markup in
the answer or evidence never runs."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from judge.reports.html import render_run_report, write_report
from judge.schemas import (
    Action,
    CharSpan,
    CheckOutcome,
    CheckStatus,
    Claim,
    ClaimOrigin,
    ClaimVerdict,
    EvidenceSpan,
    Label,
    VerifyRequest,
    VerifyResponse,
)

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no chromium binary on PATH (apt-get install chromium)"
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert CHROMIUM is not None
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


class Opened:
    """A report page, with every dialog and every non-file request it attempted."""

    def __init__(self, browser: Browser, path: Path) -> None:
        self.dialogs: list[str] = []
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.page: Page = browser.new_page(viewport={"width": 1360, "height": 900})
        self.page.on("dialog", self._dialog)
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.on("request", self._request)
        self.page.goto(path.as_uri())

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def _request(self, request: Any) -> None:
        if not request.url.startswith("file://"):
            self.requests.append(request.url)


def _span(text: str, part: str) -> tuple[int, int]:
    start = text.index(part)
    return start, start + len(part)


def _refund_case() -> tuple[VerifyRequest, VerifyResponse]:
    request = VerifyRequest.model_validate(
        json.loads((ROOT / "examples" / "refund_policy.json").read_text(encoding="utf-8"))
    )
    assert request.answer is not None
    answer = request.answer
    s1, s2 = (p.text for p in request.evidence)
    sentences = [
        "You can return an unopened item within 60 days of delivery for a full refund [S1].",
        "Opened items can be returned within 14 days for store credit [S1].",
        "Refunds go back to your original payment method within 5 to 7 business days after "
        "the warehouse receives the item [S2].",
        "Shipping fees are refunded as well [S2].",
    ]

    def claim(k: int, cite: str) -> Claim:
        start, end = _span(answer, sentences[k])
        return Claim(
            id=f"c{k + 1}",
            text=sentences[k].replace(f" [{cite}]", ""),
            span=CharSpan(start=start, end=end),
            sentence_index=k,
            citations=(cite,),
        )

    def evidence(passage_id: str, text: str, part: str) -> EvidenceSpan:
        start, end = _span(text, part)
        return EvidenceSpan(passage_id=passage_id, start=start, end=end, text=part)

    s1_return = (
        "Customers may return any unopened item within 30 days of delivery for a full refund."
    )
    s1_opened = (
        "Opened items can be returned within 14 days of delivery and receive store credit only."
    )
    s2_refund = (
        "Refunds are issued to the original payment method within 5 to 7 business days after "
        "the returned item is received at our warehouse."
    )
    s2_fees = "Shipping fees are non-refundable, except when the item arrived damaged."
    verdicts = [
        ClaimVerdict(
            claim=claim(0, "S1"),
            label=Label.NUMBER_MISMATCH,
            reason="the answer says 60 days; the cited passage says 30 days",
            evidence=[evidence("S1", s1, s1_return)],
            checks=[
                CheckOutcome(
                    check="numbers",
                    status=CheckStatus.FAILED,
                    label=Label.NUMBER_MISMATCH,
                    detail="a number of the claim is absent from the cited passage",
                    missing=("60",),
                )
            ],
        ),
        ClaimVerdict(
            claim=claim(1, "S1"),
            label=Label.SUPPORTED,
            score=0.97,
            contradiction_score=0.01,
            reason="S1 allows returns of opened items within 14 days for store credit",
            evidence=[evidence("S1", s1, s1_opened)],
            checks=[CheckOutcome(check="numbers", status=CheckStatus.PASSED)],
        ),
        ClaimVerdict(
            claim=claim(2, "S2"),
            label=Label.SUPPORTED,
            score=0.94,
            contradiction_score=0.02,
            reason="S2 gives the same method and 5 to 7 business days",
            evidence=[evidence("S2", s2, s2_refund)],
            checks=[CheckOutcome(check="numbers", status=CheckStatus.PASSED)],
        ),
        ClaimVerdict(
            claim=claim(3, "S2"),
            label=Label.CONTRADICTED,
            score=0.03,
            contradiction_score=0.95,
            reason="S2 says shipping fees are non-refundable unless the item arrived damaged",
            evidence=[evidence("S2", s2, s2_fees)],
        ),
    ]
    response = VerifyResponse(
        request_id="refund-policy-demo",
        action=Action.BLOCK,
        reasons=[
            "c4 is contradicted by its evidence (S2)",
            "c1 has a number mismatch: 60 is not in S1",
        ],
        ledger_hash="sha256:" + "0" * 64,
        verdicts=verdicts,
        judge_calls=3,
        seconds=1.42,
    )
    return request, response


def _passage_text(request: VerifyRequest, passage_id: str) -> str:
    texts: list[str] = [p.text for p in request.evidence if p.id == passage_id]
    return texts[0]


def test_clicking_a_claim_shows_its_exact_evidence_span(browser: Browser, tmp_path: Path) -> None:
    request, response = _refund_case()
    path = tmp_path / "report.html"
    write_report(path, request, response)
    opened = Opened(browser, path)
    page = opened.page

    banner = page.locator(".banner .action")
    assert "BLOCK" in banner.inner_text()
    panel_body = page.locator(".panel-body")
    assert not panel_body.is_visible()

    # The sentence is highlighted exactly by its span; click the highlight itself.
    highlight = page.locator('.hl[data-claims="3"]')
    claim_span = response.verdicts[3].claim.span
    assert claim_span is not None and request.answer is not None
    whole = request.answer[claim_span.start : claim_span.end]
    assert "".join(highlight.all_inner_texts()) == whole
    highlight.first.click()
    assert panel_body.is_visible()
    card = panel_body.locator("article.card")
    assert card.count() == 1
    assert "✗ contradicted" in card.inner_text()
    assert "non-refundable" in card.locator(".reason").inner_text()
    contradicting = response.verdicts[3].evidence[0]
    marks = card.locator("mark")
    assert marks.count() == 1
    s2 = _passage_text(request, "S2")
    assert marks.first.inner_text() == s2[contradicting.start : contradicting.end]
    # The whole passage is shown around the mark, character for character.
    assert card.locator(".passage-text").inner_text() == s2
    assert page.locator('button.badge[data-claim="3"]').get_attribute("aria-expanded") == "true"

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "report-refund-policy.png"), full_page=True)

    # Keyboard: focus the first claim's verdict label and press Enter.
    badge = page.locator('button.badge[data-claim="0"]')
    assert "! number mismatch" in badge.inner_text()
    badge.focus()
    page.keyboard.press("Enter")
    card = panel_body.locator("article.card")
    assert "! number mismatch" in card.locator("h4").first.inner_text()
    assert card.locator(".checks code").all_inner_texts() == ["numbers", "60"]
    span = response.verdicts[0].evidence[0]
    assert card.locator("mark").inner_text() == _passage_text(request, "S1")[span.start : span.end]
    assert page.locator('button.badge[data-claim="3"]').get_attribute("aria-expanded") == "false"

    # Escape closes the panel and returns focus to the label that opened it.
    page.keyboard.press("Escape")
    assert not panel_body.is_visible()
    assert page.evaluate("document.activeElement.dataset.claim") == "0"

    assert opened.errors == []
    assert opened.dialogs == []
    assert opened.requests == []


PAYLOADS = ["<script>alert(1)</script>", '"><img src=x onerror="window.pwned=1;alert(2)">']


def test_injected_markup_is_shown_as_text_and_never_runs(browser: Browser, tmp_path: Path) -> None:
    answer = f"Refunds take {PAYLOADS[0]} days {PAYLOADS[1]} [S1]."
    passage = f"Refunds take 30 days. {PAYLOADS[0]} {PAYLOADS[1]} </script><!-- end"
    request = VerifyRequest.model_validate(
        {"evidence": [{"id": "S1", "source": PAYLOADS[1], "text": passage}], "answer": answer}
    )
    span_start = passage.index(PAYLOADS[0])
    verdict = ClaimVerdict(
        claim=Claim(
            id="c1",
            text=answer,
            span=CharSpan(start=0, end=len(answer)),
            citations=("S1",),
        ),
        label=Label.UNSUPPORTED,
        reason=PAYLOADS[1],
        evidence=[
            EvidenceSpan(
                passage_id="S1", start=span_start, end=len(passage), text=passage[span_start:]
            )
        ],
        checks=[CheckOutcome(check=PAYLOADS[0], status=CheckStatus.FAILED, detail=PAYLOADS[1])],
    )
    response = VerifyResponse(
        request_id=PAYLOADS[1],
        action=Action.BLOCK,
        reasons=[PAYLOADS[0]],
        ledger_hash="sha256:" + "0" * 64,
        verdicts=[verdict],
    )
    path = tmp_path / "injection.html"
    write_report(path, request, response)
    opened = Opened(browser, path)
    page = opened.page
    page.locator("button.badge").click()
    assert page.locator(".panel-body").is_visible()

    assert page.locator(".answer").inner_text().startswith(f"Refunds take {PAYLOADS[0]} days")
    assert page.locator(".panel-body mark").inner_text() == passage[span_start:]
    assert PAYLOADS[1] in page.locator(".panel-body .reason").inner_text()
    assert page.locator("img").count() == 0
    assert page.locator("script").count() == 2
    assert page.evaluate("window.pwned") is None
    assert opened.dialogs == []
    assert opened.requests == []
    assert opened.errors == []


def _structured_case() -> tuple[VerifyRequest, VerifyResponse]:
    request = VerifyRequest.model_validate(
        json.loads((ROOT / "examples" / "structured_claims.json").read_text(encoding="utf-8"))
    )
    assert request.claims is not None
    text = request.evidence[0].text
    uptime = "Enterprise plans include a 99.9% monthly uptime commitment."
    urgent = "Support tickets marked urgent receive a first response within 1 hour"
    labels = [Label.SUPPORTED, Label.NUMBER_MISMATCH]
    verdicts = [
        ClaimVerdict(
            claim=Claim(
                id=f"c{k}",
                text=c.text,
                citations=tuple(c.cited_ids),
                origin=ClaimOrigin.STRUCTURED,
            ),
            label=label,
            evidence=[EvidenceSpan(passage_id="kb-12", start=s, end=e, text=text[s:e])],
        )
        for k, (c, label, (s, e)) in enumerate(
            zip(request.claims, labels, [_span(text, uptime), _span(text, urgent)], strict=True),
            start=1,
        )
    ]
    response = VerifyResponse(
        request_id="structured-demo",
        action=Action.REGENERATE,
        reasons=["c2 has a number mismatch: 4 is not in kb-12"],
        ledger_hash="sha256:" + "1" * 64,
        verdicts=verdicts,
    )
    return request, response


def _decomposed_case() -> tuple[VerifyRequest, VerifyResponse]:
    passage = "Opened items can be returned within 14 days of delivery for store credit only."
    answer = "Opened items can be returned within 14 days for a cash refund [S1]. Easy."
    request = VerifyRequest.model_validate(
        {"evidence": [{"id": "S1", "text": passage}], "answer": answer}
    )
    start, end = _span(
        answer, "Opened items can be returned within 14 days for a cash refund [S1]."
    )
    sentence = CharSpan(start=start, end=end)

    def fact(k: int, text: str, label: Label, part: str) -> ClaimVerdict:
        s, e = _span(passage, part)
        return ClaimVerdict(
            claim=Claim(
                id=f"c1.{k}",
                text=text,
                span=sentence,
                citations=("S1",),
                origin=ClaimOrigin.DECOMPOSED,
                parent_id="c1",
            ),
            label=label,
            evidence=[EvidenceSpan(passage_id="S1", start=s, end=e, text=passage[s:e])],
        )

    verdicts = [
        fact(1, "Opened items can be returned within 14 days.", Label.SUPPORTED, "within 14 days"),
        fact(2, "Opened items get a cash refund.", Label.CONTRADICTED, "store credit only"),
    ]
    response = VerifyResponse(
        request_id="decomposed-demo",
        action=Action.REPAIR,
        reasons=["c1.2 is contradicted by S1"],
        ledger_hash="sha256:" + "2" * 64,
        verdicts=verdicts,
    )
    return request, response


def test_run_report_keeps_each_record_to_its_own_panel(browser: Browser, tmp_path: Path) -> None:
    items = [_refund_case(), _structured_case(), _decomposed_case()]
    path = tmp_path / "run.html"
    path.write_text(render_run_report(items, title="Evaluation run"), encoding="utf-8")
    opened = Opened(browser, path)
    page = opened.page
    index = page.locator("table.index tbody tr")
    assert index.count() == 3
    assert [" ".join(t.split()) for t in index.locator("td:nth-child(3)").all_inner_texts()] == [
        "✗ BLOCK",
        "↻ REGENERATE",
        "✎ REPAIR",
    ]

    index.nth(1).locator("a").click()
    second = page.locator("#record-2")
    second.locator('button.badge[data-claim="1"]').click()
    assert second.locator(".panel-body").is_visible()
    assert not page.locator("#record-1 .panel-body").is_visible()
    text = items[1][0].evidence[0].text
    span = items[1][1].verdicts[1].evidence[0]
    assert second.locator(".panel-body mark").inner_text() == text[span.start : span.end]

    # The decomposed facts share their sentence: clicking it shows both, each with its mark.
    third = page.locator("#record-3")
    third.locator(".hl").first.click()
    cards = third.locator(".panel-body article.card")
    assert cards.count() == 2
    passage = items[2][0].evidence[0].text
    for k in range(2):
        ev = items[2][1].verdicts[k].evidence[0]
        assert cards.nth(k).locator("mark").inner_text() == passage[ev.start : ev.end]
    assert third.locator("button.badge").all_inner_texts() == [
        "✓ supported c1.1",
        "✗ contradicted c1.2",
    ]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "report-run.png"), full_page=True)

    assert opened.errors == []
    assert opened.requests == []
