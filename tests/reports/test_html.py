import base64
import hashlib
import json
import re
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

from judge.reports.html import (
    ACTION_MARKERS,
    CHECK_MARKERS,
    LABEL_MARKERS,
    Piece,
    render_report,
    render_run_report,
    script_json,
    split_at_spans,
    write_report,
)
from judge.reports.html_template import BADGE_TEXT_COLOUR, TEXT_COLOUR, TONES
from judge.schemas import (
    Action,
    CharSpan,
    CheckOutcome,
    CheckStatus,
    Claim,
    ClaimOrigin,
    ClaimVerdict,
    CoverageReport,
    EvidenceSpan,
    JudgeTrace,
    Label,
    VerifyRequest,
    VerifyResponse,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HASH = "sha256:" + "0" * 64


class Tags(HTMLParser):
    """Every start tag with its attributes, and the raw text inside each <script>/<style>."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.raw: dict[str, list[str]] = {"script": [], "style": []}
        self._open: str | None = None
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag in self.raw:
            self._open = tag
            self.raw[tag].append("")

    def handle_endtag(self, tag: str) -> None:
        self._open = None

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self.raw[self._open][-1] += data


def request(answer: str, passages: dict[str, str], question: str | None = None) -> VerifyRequest:
    evidence = [{"id": pid, "text": text} for pid, text in passages.items()]
    return VerifyRequest.model_validate(
        {"evidence": evidence, "answer": answer, "question": question}
    )


def verdict(
    claim_id: str,
    label: Label,
    span: tuple[int, int] | None = None,
    evidence: list[EvidenceSpan] | None = None,
    citations: tuple[str, ...] = (),
    origin: ClaimOrigin = ClaimOrigin.SENTENCE,
    text: str = "a claim",
) -> ClaimVerdict:
    return ClaimVerdict(
        claim=Claim(
            id=claim_id,
            text=text,
            span=None if span is None else CharSpan(start=span[0], end=span[1]),
            citations=citations,
            origin=origin,
        ),
        label=label,
        evidence=evidence or [],
    )


def response(
    *verdicts: ClaimVerdict, action: Action = Action.BLOCK, **extra: Any
) -> VerifyResponse:
    return VerifyResponse(
        request_id="req-1", action=action, ledger_hash=HASH, verdicts=list(verdicts), **extra
    )


def where(text: str, part: str) -> tuple[int, int]:
    start = text.index(part)
    return start, start + len(part)


def data(html: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html)
    assert found is not None
    loaded: dict[str, Any] = json.loads(found.group(1))
    return loaded


def highlights(html: str) -> list[tuple[str, str, str]]:
    """(classes, data-claims, text) of every answer highlight, in page order."""
    pattern = r'<span class="(hl[^"]*)" data-claims="([^"]*)">([^<]*)</span>'
    return [(c, ids, unescape(t)) for c, ids, t in re.findall(pattern, html)]


def highlighted_text(html: str, claim: int) -> str:
    return "".join(t for _, ids, t in highlights(html) if str(claim) in ids.split())


def badges(html: str) -> list[tuple[str, str]]:
    """(data-claim, visible text) of every verdict badge, in page order."""
    found = re.findall(r'<button[^>]*data-claim="(\d+)"[^>]*>(.*?)</button>', html)
    return [(i, unescape(re.sub(r"<[^>]+>", "", inner))) for i, inner in found]


def answer_text(html: str) -> str:
    """The answer as a reader sees it, without the verdict badges."""
    found = re.search(r'<p class="answer">(.*?)</p>', html, re.S)
    assert found is not None
    without_badges = re.sub(r"<button.*?</button>", "", found.group(1))
    return unescape(re.sub(r"<[^>]+>", "", without_badges))


def marked(passage: dict[str, Any]) -> str:
    return "".join(s["text"] for s in passage["segments"] if s["spans"])


# Escaping


PAYLOADS = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(2)>',
    "'><svg onload=alert(3)>",
    "</script><!--",
]


def test_request_and_response_text_is_escaped_everywhere() -> None:
    hostile = " ".join(PAYLOADS)
    answer = f"Refunds take {hostile} days [S1]."
    passage_id = "<script>alert(1)</script>"
    passage = f"Refunds take 30 days. {hostile}"
    req = VerifyRequest.model_validate(
        {
            "evidence": [{"id": passage_id, "text": passage, "source": hostile}],
            "answer": answer,
            "question": hostile,
        }
    )
    start = passage.index(hostile)
    claim = ClaimVerdict(
        claim=Claim(id=hostile, text=hostile, span=CharSpan(start=0, end=len(answer))),
        label=Label.CONTRADICTED,
        reason=hostile,
        evidence=[EvidenceSpan(passage_id=passage_id, start=start, end=len(passage), text=hostile)],
        checks=[CheckOutcome(check=hostile, status=CheckStatus.FAILED, detail=hostile)],
    )
    resp = VerifyResponse(
        request_id=hostile,
        action=Action.BLOCK,
        reasons=[hostile],
        ledger_hash=HASH,
        verdicts=[claim],
        repaired_answer=hostile,
    )
    html = render_report(req, resp)

    for payload in PAYLOADS:
        assert payload not in html
    for payload in PAYLOADS[:3]:
        assert str(escape(payload)) in html
    assert answer_text(html) == answer

    tags = Tags(html)
    names = [name for name, _ in tags.tags]
    assert "img" not in names and "svg" not in names
    assert names.count("script") == 2
    assert not [a for _, attrs in tags.tags for a in attrs if a.startswith("on")]

    # The JSON block carries the hostile text intact, with no '<' that could close the element.
    block = tags.raw["script"][0]
    assert "<" not in block and ">" not in block
    claims = data(html)["records"]["record-1"]["claims"]
    assert claims[0]["reason"] == hostile
    assert claims[0]["evidence"][0]["passageId"] == passage_id
    assert marked(claims[0]["evidence"][0]) == hostile


def test_script_json_cannot_end_its_element() -> None:
    value = {"text": "</script><!-- & </SCRIPT >", "n": [1, 2]}
    text = script_json(value)
    assert not set("<>&") & set(text)
    assert json.loads(text) == value


def test_page_loads_nothing_and_admits_only_its_own_style_and_script() -> None:
    html = render_report(*refund_case())
    tags = Tags(html)
    assert not [a for _, attrs in tags.tags for a in attrs if a in {"src", "srcset", "action"}]
    hrefs = [attrs["href"] for name, attrs in tags.tags if "href" in attrs]
    assert all(h is not None and h.startswith("#") for h in hrefs)
    csp = next(
        a["content"] for n, a in tags.tags if a.get("http-equiv") == "Content-Security-Policy"
    )
    assert csp is not None and "default-src 'none'" in csp
    for kind in ("style", "script"):
        body = tags.raw[kind][-1]
        digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
        assert f"{kind}-src 'sha256-{digest}'" in csp


# Verdict labels, colours


def test_every_label_status_and_action_reads_without_colour() -> None:
    assert set(LABEL_MARKERS) == set(Label)
    assert set(CHECK_MARKERS) == set(CheckStatus)
    assert set(ACTION_MARKERS) == set(Action)
    texts = [m.text for m in LABEL_MARKERS.values()]
    assert len(set(texts)) == len(texts)
    for marker in [*LABEL_MARKERS.values(), *CHECK_MARKERS.values(), *ACTION_MARKERS.values()]:
        assert marker.icon and not marker.icon.isalnum()
        assert re.fullmatch(r"[A-Za-z ]+", marker.text)
        assert marker.tone in TONES


def test_every_label_badge_shows_its_icon_and_words() -> None:
    labels = list(Label)
    answer = " ".join(f"Fact {k}." for k in range(len(labels)))
    verdicts = [
        verdict(f"c{k}", label, span=where(answer, f"Fact {k}.")) for k, label in enumerate(labels)
    ]
    html = render_report(request(answer, {"S1": "evidence"}), response(*verdicts))
    shown = dict(badges(html))
    for k, label in enumerate(labels):
        marker = LABEL_MARKERS[label]
        assert shown[str(k)].strip() == f"{marker.icon} {marker.text}"
    for k, label in enumerate(labels):
        aria = re.search(rf'data-claim="{k}"[^>]*aria-label="([^"]*)"', html)
        assert aria is not None and aria.group(1).startswith(LABEL_MARKERS[label].text)


def contrast(a: str, b: str) -> float:
    def luminance(colour: str) -> float:
        rgb = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("name", sorted(TONES))
def test_tone_colours_meet_wcag_aa(name: str) -> None:
    tone = TONES[name]
    assert contrast(BADGE_TEXT_COLOUR, tone.strong) >= 4.5  # badge text
    assert contrast(TEXT_COLOUR, tone.tint) >= 4.5  # highlighted answer and passage text
    assert contrast(tone.strong, tone.tint) >= 3.0  # underline against its highlight


def test_contrast_helper_is_calibrated() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") < 4.5


# Offsets


def test_claim_highlight_covers_exactly_its_span() -> None:
    # Astral and combining characters before the spans: offsets are code points, not UTF-16.
    answer = "Re\u0301sume\u0301 👍🏽 fine. The fee is 30 € 💶 [S1]. Ends here."
    first, second = (
        where(answer, "Re\u0301sume\u0301 👍🏽 fine."),
        where(answer, "The fee is 30 € 💶 [S1]."),
    )
    html = render_report(
        request(answer, {"S1": "The fee is 30 €."}),
        response(
            verdict("c1", Label.NOT_FACTUAL, span=first),
            verdict("c2", Label.SUPPORTED, span=second, citations=("S1",)),
        ),
    )
    assert highlighted_text(html, 0) == answer[first[0] : first[1]]
    assert highlighted_text(html, 1) == answer[second[0] : second[1]]
    assert answer_text(html) == answer
    assert [i for i, _ in badges(html)] == ["0", "1"]
    # Each badge is kept on one line with the last word of its claim.
    assert re.search(r'<span class="keep"><span [^>]*>\[S1\]\.</span><button', html)


def test_line_breaks_of_the_answer_stay_out_of_the_no_wrap_runs() -> None:
    answer = "First line [S1].\n\nSecond line [S1].\n   \nThird"
    first = where(answer, "First line [S1].\n\n")
    second = where(answer, "Second line [S1].\n   \n")
    html = render_report(
        request(answer, {"S1": "x"}),
        response(
            verdict("c1", Label.SUPPORTED, span=first),
            verdict("c2", Label.SUPPORTED, span=second),
        ),
    )
    assert answer_text(html) == answer
    for claim, (start, end) in enumerate([first, second]):
        assert highlighted_text(html, claim) == answer[start:end]
    kept = re.findall(r'<span class="keep">(.*?)<button', html)
    assert [unescape(re.sub(r"<[^>]+>", "", k)) for k in kept] == ["[S1].", "[S1]."]


def test_evidence_marks_cover_exactly_their_offsets() -> None:
    passage = "Intro 🧾 text. Customers may return items within 30 days 📦. Tail."
    span = where(passage, "return items within 30 days 📦")
    answer = "Returns within 30 days [S1]."
    html = render_report(
        request(answer, {"S1": passage}),
        response(
            verdict(
                "c1",
                Label.SUPPORTED,
                span=(0, len(answer)),
                citations=("S1",),
                evidence=[
                    EvidenceSpan(
                        passage_id="S1",
                        start=span[0],
                        end=span[1],
                        text=passage[span[0] : span[1]],
                    )
                ],
            ),
            action=Action.PASS,
        ),
    )
    (shown,) = data(html)["records"]["record-1"]["claims"][0]["evidence"]
    assert marked(shown) == passage[span[0] : span[1]]
    assert "".join(s["text"] for s in shown["segments"]) == passage
    assert shown["spans"] == [list(span)]
    assert shown["notes"] == []


def test_claim_data_carries_scores_and_the_judge() -> None:
    answer = "Refunds take 30 days [S1]."
    claim = verdict("c1", Label.SUPPORTED, span=(0, len(answer)), citations=("S1",))
    claim.score, claim.contradiction_score = 0.912, 0.04
    claim.judge = JudgeTrace(model="qwen", template="t", template_hash="h", calls=2, cached=True)
    html = render_report(request(answer, {"S1": "Refunds take 30 days."}), response(claim))
    (shown,) = data(html)["records"]["record-1"]["claims"]
    assert (shown["score"], shown["contradictionScore"]) == ("0.91", "0.04")
    assert shown["judge"] == "qwen, 2 calls, cached"
    assert (shown["labelText"], shown["icon"], shown["tone"]) == ("supported", "✓", "ok")
    assert shown["role"] == "supporting span"


def test_split_at_overlapping_adjacent_and_repeated_spans() -> None:
    assert split_at_spans(20, [(0, 10), (5, 20)]) == [
        Piece(0, 5, (0,), False),
        Piece(5, 10, (0, 1), True),
        Piece(10, 20, (1,), False),
    ]
    assert split_at_spans(12, [(0, 5), (5, 10)]) == [
        Piece(0, 5, (0,), False),
        Piece(5, 10, (1,), True),
        Piece(10, 12, (), False),
    ]
    assert split_at_spans(10, [(2, 8), (2, 8)]) == [
        Piece(0, 2, (), False),
        Piece(2, 8, (0, 1), False),
        Piece(8, 10, (), False),
    ]
    assert split_at_spans(6, [(3, 3)]) == [Piece(0, 3, (), False), Piece(3, 6, (), False)]
    assert split_at_spans(0, []) == []


def test_overlapping_claim_spans_render_each_claim_exactly() -> None:
    answer = "Alpha beta gamma delta epsilon."
    outer, inner = where(answer, "Alpha beta gamma delta"), where(answer, "gamma delta epsilon.")
    html = render_report(
        request(answer, {"S1": "x"}),
        response(
            verdict("c1", Label.SUPPORTED, span=outer),
            verdict("c2", Label.CONTRADICTED, span=inner),
        ),
    )
    assert highlighted_text(html, 0) == "Alpha beta gamma delta"
    assert highlighted_text(html, 1) == "gamma delta epsilon."
    assert answer_text(html) == answer
    shared = [(c, t) for c, ids, t in highlights(html) if ids == "0 1"]
    assert "".join(t for _, t in shared) == "gamma delta"
    assert all("overlap" in c and "t-fail" in c for c, _ in shared)
    assert [i for i, _ in badges(html)] == ["0", "1"]


def test_adjacent_claim_spans_stay_separate() -> None:
    answer = "One fact.Two fact."
    first, second = (0, 9), (9, len(answer))
    html = render_report(
        request(answer, {"S1": "x"}),
        response(
            verdict("c1", Label.SUPPORTED, span=first),
            verdict("c2", Label.UNSUPPORTED, span=second),
        ),
    )
    assert highlighted_text(html, 0) == "One fact."
    assert highlighted_text(html, 1) == "Two fact."
    assert not [c for c, _, _ in highlights(html) if "overlap" in c]
    assert answer_text(html) == answer


def test_adjacent_and_overlapping_evidence_spans_in_one_passage() -> None:
    passage = "0123456789abcdefghij"
    spans = [(2, 6), (6, 10), (8, 14)]
    html = render_report(
        request("Claim [S1].", {"S1": passage}),
        response(
            verdict(
                "c1",
                Label.SUPPORTED,
                span=(0, 11),
                evidence=[
                    EvidenceSpan(passage_id="S1", start=s, end=e, text=passage[s:e])
                    for s, e in spans
                ],
            )
        ),
    )
    (shown,) = data(html)["records"]["record-1"]["claims"][0]["evidence"]
    pieces = [(s["text"], s["spans"], s["edge"]) for s in shown["segments"]]
    assert pieces == [
        ("01", [], False),
        ("2345", [0], False),
        ("67", [1], True),
        ("89", [1, 2], True),
        ("abcd", [2], False),
        ("efghij", [], False),
    ]
    for k, (s, e) in enumerate(spans):
        assert "".join(t for t, covering, _ in pieces if k in covering) == passage[s:e]


def test_decomposed_facts_share_their_sentence_highlight() -> None:
    answer = "Opened items get 14 days and a cash refund [S1]."
    sentence = (0, len(answer))
    html = render_report(
        request(answer, {"S1": "Opened items: 14 days, store credit only."}),
        response(
            verdict("c1.1", Label.SUPPORTED, span=sentence, origin=ClaimOrigin.DECOMPOSED),
            verdict("c1.2", Label.CONTRADICTED, span=sentence, origin=ClaimOrigin.DECOMPOSED),
        ),
    )
    parts = highlights(html)
    assert {ids for _, ids, _ in parts} == {"0 1"}
    assert "".join(t for _, _, t in parts) == answer
    assert all("t-fail" in c and "overlap" not in c for c, _, _ in parts)
    assert [(i, t.strip()) for i, t in badges(html)] == [
        ("0", "✓ supported c1.1"),
        ("1", "✗ contradicted c1.2"),
    ]


# Claims without spans


def test_structured_claims_without_spans_are_listed() -> None:
    req = VerifyRequest.model_validate_json((EXAMPLES / "structured_claims.json").read_text())
    assert req.claims is not None
    verdicts = [
        verdict(
            f"c{k}",
            label,
            citations=tuple(c.cited_ids),
            origin=ClaimOrigin.STRUCTURED,
            text=c.text,
        )
        for k, (c, label) in enumerate(
            zip(req.claims, [Label.SUPPORTED, Label.NUMBER_MISMATCH], strict=True), start=1
        )
    ]
    html = render_report(req, response(*verdicts, action=Action.REGENERATE))
    assert '<p class="answer">' not in html
    assert "<h3>Claims</h3>" in html
    for c in req.claims:
        assert f'<span class="claim-text">{escape(c.text)}</span>' in html
    assert [t.strip() for _, t in badges(html)] == ["✓ supported c1", "! number mismatch c2"]
    claims = data(html)["records"]["record-1"]["claims"]
    (cited,) = claims[1]["evidence"]
    assert cited["passageId"] == "kb-12" and cited["found"] and cited["spans"] == []
    assert "".join(s["text"] for s in cited["segments"]) == req.evidence[0].text
    assert marked(cited) == ""


def test_spanless_claims_are_listed_beside_the_answer() -> None:
    answer = "Refunds take 30 days [S1]."
    html = render_report(
        request(answer, {"S1": "Refunds take 30 days."}),
        response(
            verdict("c1", Label.SUPPORTED, span=(0, len(answer))),
            verdict("conclusion", Label.UNSUPPORTED, origin=ClaimOrigin.CONCLUSION, text="Fast."),
            verdict("c9", Label.UNVERIFIED, span=(500, 600), text="Out of range."),
        ),
    )
    assert "Claims without a place in the answer" in html
    assert '<span class="claim-text">Fast.</span>' in html
    assert '<span class="claim-text">Out of range.</span>' in html
    assert answer_text(html) == answer


# Evidence problems, run report, files


def test_evidence_problems_are_noted() -> None:
    passage = "Refunds take 30 days."
    html = render_report(
        request("Refunds take 30 days [S1] [S9].", {"S1": passage}),
        response(
            verdict(
                "c1",
                Label.SUPPORTED,
                span=(0, 10),
                citations=("S1", "S9"),
                evidence=[
                    EvidenceSpan(passage_id="S1", start=0, end=7, text="Refunds"),
                    EvidenceSpan(passage_id="S1", start=8, end=12, text="give"),
                    EvidenceSpan(passage_id="S1", start=13, end=90, text=passage[13:]),
                ],
            )
        ),
    )
    s1, s9 = data(html)["records"]["record-1"]["claims"][0]["evidence"]
    assert s1["spans"] == [[0, 7], [8, 12], [13, 90]]
    assert marked(s1) == "Refunds" + "take" + passage[13:]
    assert len(s1["notes"]) == 2
    assert "differs from the text the verdict quoted: give" in s1["notes"][0]
    assert "runs past the end of the passage" in s1["notes"][1]
    assert not s9["found"] and s9["notes"] == ["passage S9 is not in the evidence given"]


def test_banner_states_action_reasons_and_counts() -> None:
    answer = "A [S1]. B [S1]."
    html = render_report(
        request(answer, {"S1": "A."}),
        response(
            verdict("c1", Label.SUPPORTED, span=(0, 7)),
            verdict("c2", Label.NUMBER_MISMATCH, span=(8, 15)),
            reasons=["c2 has a number mismatch"],
            citation_stuffing=True,
        ),
    )
    banner = re.search(r'<section class="banner t-fail".*?</section>', html, re.S)
    assert banner is not None
    text = unescape(re.sub(r"<[^>]+>", " ", banner.group(0)))
    assert "✗ BLOCK" in " ".join(text.split())
    assert "2 claims: 1 ✓ supported, 1 ! number mismatch" in text
    assert "citation stuffing detected" in text
    assert "c2 has a number mismatch" in text


def refund_case() -> tuple[VerifyRequest, VerifyResponse]:
    req = VerifyRequest.model_validate_json((EXAMPLES / "refund_policy.json").read_text())
    assert req.answer is not None
    first = where(req.answer, "You can return an unopened item within 60 days")
    return req, response(
        verdict("c1", Label.NUMBER_MISMATCH, span=first, citations=("S1",)),
        reasons=["c1 has a number mismatch"],
        coverage=CoverageReport(sentences_without_claims=[CharSpan(start=first[1], end=90)]),
    )


def test_run_report_indexes_every_record() -> None:
    first = refund_case()
    second = (
        request("Fine [S1].", {"S1": "Fine."}),
        response(verdict("c1", Label.SUPPORTED, span=(0, 10)), action=Action.PASS),
    )
    html = render_run_report([first, second], title="Run <2026>")
    assert "<title>Run &lt;2026&gt;</title>" in html
    rows = re.findall(r'<a href="#(record-\d)">.*?</a></td>\s*<td>(.*?)</td>', html, re.S)
    actions = [(anchor, unescape(re.sub(r"<[^>]+>|\s+", "", cell))) for anchor, cell in rows]
    assert actions == [("record-1", "✗BLOCK"), ("record-2", "✓PASS")]
    ids = [a["id"] for _, a in Tags(html).tags if "id" in a]
    assert len(ids) == len(set(ids))
    assert {"record-1", "record-2", "record-1-panel", "record-2-panel"} <= set(ids)
    assert set(data(html)["records"]) == {"record-1", "record-2"}
    assert 'aria-controls="record-2-panel"' in html


def test_empty_run_report_says_so() -> None:
    html = render_run_report([], title="Empty run")
    assert "No records." in html
    assert data(html) == {"records": {}}


def test_write_report_creates_a_utf8_file(tmp_path: Path) -> None:
    req, resp = refund_case()
    path = tmp_path / "out" / "report.html"
    write_report(path, req, resp)
    text = path.read_text(encoding="utf-8")
    assert text == render_report(req, resp)
    assert text.startswith("<!DOCTYPE html>")
    assert "sentence without a claim" in text


def test_a_check_shows_its_derivations_and_the_spans_of_its_finding() -> None:
    answer = "The margin widened by 2.4 percentage points [S1]."
    claim = verdict("c1", Label.SUPPORTED, span=(0, len(answer)), citations=("S1",))
    claim.checks = [
        CheckOutcome(
            check="arithmetic",
            status=CheckStatus.PASSED,
            detail="computed",
            derivations=("2.4 percentage points = 18.5% − 16.1%",),
        ),
        CheckOutcome(
            check="value_frames",
            status=CheckStatus.FAILED,
            label=Label.CONTRADICTED,
            claim_span=CharSpan(start=22, end=43),
            evidence_span=EvidenceSpan(passage_id="S1", start=33, end=38, text="16.1%"),
        ),
    ]
    html = render_report(
        request(answer, {"S1": "The margin improved from 16.1% to 18.5%."}), response(claim)
    )
    (shown,) = data(html)["records"]["record-1"]["claims"]
    computed, framed = shown["checks"]
    assert computed["derivations"] == ["2.4 percentage points = 18.5% − 16.1%"]
    assert framed["span"] == "claim [22:43], S1 [33:38] '16.1%'"
