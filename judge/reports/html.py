"""Self-contained HTML report of a verification: the answer with each claim highlighted by its
verdict, and, per claim, the passages it was checked against with the exact span marked.

All offsets are Python string indices (code points) and every slice is taken here, so the page's
script never re-counts characters (JavaScript counts UTF-16 units). Text from the request and
response reaches the page only escaped, or as JSON the script turns into text nodes.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

from jinja2 import Environment, StrictUndefined
from markupsafe import Markup

from judge.reports.html_template import PAGE, SCRIPT, style_sheet
from judge.schemas import (
    FAILING_LABELS,
    Action,
    CheckOutcome,
    CheckStatus,
    ClaimVerdict,
    Label,
    Passage,
    VerifyRequest,
    VerifyResponse,
)

Span = tuple[int, int]


@dataclass(frozen=True)
class Marker:
    """How a verdict, check status or action reads without colour: an icon, words and a tone
    (the colour family, see ``report_html_template.TONES``)."""

    icon: str
    text: str
    tone: str


LABEL_MARKERS: dict[Label, Marker] = {
    Label.SUPPORTED: Marker("✓", "supported", "ok"),
    Label.UNSUPPORTED: Marker("✗", "unsupported", "fail"),
    Label.CONTRADICTED: Marker("✗", "contradicted", "fail"),
    Label.UNCITED: Marker("!", "uncited", "mismatch"),
    Label.BAD_CITATION: Marker("✗", "bad citation", "fail"),
    Label.NUMBER_MISMATCH: Marker("!", "number mismatch", "mismatch"),
    Label.DATE_MISMATCH: Marker("!", "date mismatch", "mismatch"),
    Label.IDENTIFIER_MISMATCH: Marker("!", "identifier mismatch", "mismatch"),
    Label.QUOTE_MISMATCH: Marker("!", "quote mismatch", "mismatch"),
    Label.NAME_MISMATCH: Marker("!", "name mismatch", "mismatch"),
    Label.HEDGE_ADDED: Marker("!", "hedge added", "mismatch"),
    Label.NEEDS_REVIEW: Marker("?", "needs review", "review"),
    Label.UNVERIFIED: Marker("?", "unverified", "review"),
    Label.NOT_FACTUAL: Marker("–", "not factual", "neutral"),
    Label.VERIFIER_ERROR: Marker("⚠", "verifier error", "error"),
}

ACTION_MARKERS: dict[Action, Marker] = {
    Action.PASS: Marker("✓", "PASS", "ok"),
    Action.REPAIR: Marker("✎", "REPAIR", "mismatch"),
    Action.REGENERATE: Marker("↻", "REGENERATE", "review"),
    Action.BLOCK: Marker("✗", "BLOCK", "fail"),
}

CHECK_MARKERS: dict[CheckStatus, Marker] = {
    CheckStatus.PASSED: Marker("✓", "passed", "ok"),
    CheckStatus.FAILED: Marker("✗", "failed", "fail"),
    CheckStatus.NEEDS_REVIEW: Marker("?", "needs review", "review"),
    CheckStatus.SKIPPED: Marker("–", "skipped", "neutral"),
}

# Where claims overlap in the answer, the highlight takes the most severe tone among them.
_SEVERITY = ("neutral", "ok", "review", "mismatch", "fail", "error")

_SPAN_ROLE = {Label.SUPPORTED: "supporting span", Label.CONTRADICTED: "contradicting span"}


@dataclass(frozen=True)
class Piece:
    """A run of text between span boundaries, with the positions of the spans covering it."""

    start: int
    end: int
    covering: tuple[int, ...]
    edge: bool  # covered, and a span starts here right after another covered piece


def split_at_spans(length: int, spans: Sequence[Span]) -> list[Piece]:
    """Cut ``[0, length)`` at every span boundary. Spans must lie within the text; overlapping,
    nested, adjacent and repeated spans are all allowed."""
    bounds = sorted({0, length, *(x for span in spans for x in span)})
    pieces: list[Piece] = []
    previous_covered = False
    for a, b in pairwise(bounds):
        covering = tuple(k for k, (s, e) in enumerate(spans) if s <= a and b <= e)
        starts_here = any(s == a and e > s for s, e in spans)
        pieces.append(Piece(a, b, covering, bool(covering) and previous_covered and starts_here))
        previous_covered = bool(covering)
    return pieces


def render_report(request: VerifyRequest, response: VerifyResponse) -> str:
    """One verification as a self-contained HTML page."""
    record = _record("record-1", f"Request {response.request_id}", request, response)
    return _page("Grounding report", [record], index=False)


@dataclass(frozen=True)
class Grade:
    """A record's gold label next to what the verifier predicted (an evaluation run)."""

    gold: str
    predicted: str

    @property
    def marker(self) -> Marker:
        if self.gold == self.predicted:
            return Marker("✓", "agrees with the gold label", "ok")
        return Marker("✗", "disagrees with the gold label", "fail")


@dataclass(frozen=True)
class MetricsTable:
    title: str
    headers: list[str]
    rows: list[list[str]]


def render_run_report(
    items: list[tuple[VerifyRequest, VerifyResponse]],
    title: str,
    *,
    grades: Sequence[Grade | None] | None = None,
    metrics: Sequence[MetricsTable] = (),
) -> str:
    """A whole run (``judge eval``): the metrics, an index of every record's action (and gold
    label, when graded), then a section each."""
    records = [
        _record(f"record-{k}", f"{k}. {response.request_id}", request, response)
        for k, (request, response) in enumerate(items, start=1)
    ]
    if grades is not None:
        records = [dataclasses.replace(r, grade=g) for r, g in zip(records, grades, strict=True)]
    return _page(title, records, index=True, graded=grades is not None, metrics=metrics)


def write_report(path: Path, request: VerifyRequest, response: VerifyResponse) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_report(request, response), encoding="utf-8")


@dataclass(frozen=True)
class _Listed:
    badge: Markup
    text: str


@dataclass(frozen=True)
class _Record:
    anchor: str
    heading: str
    request_id: str
    action: Marker
    summary: str
    reasons: list[str]
    question: str | None
    answer_html: Markup | None
    spanless: list[_Listed]
    spanless_title: str
    gaps: list[str]
    repaired_answer: str | None
    ledger_hash: str
    judge_calls: int
    seconds: str
    failing: int
    total: int
    data: dict[str, Any]
    grade: Grade | None = None


def _record(anchor: str, heading: str, request: VerifyRequest, response: VerifyResponse) -> _Record:
    verdicts = response.verdicts
    answer = request.answer
    placed = {i: s for i, v in enumerate(verdicts) if (s := _answer_span(v, answer)) is not None}
    spanless = [
        _Listed(_badge(anchor, i, v, show_id=True), v.claim.text)
        for i, v in enumerate(verdicts)
        if i not in placed
    ]
    passages = {p.id: p for p in request.evidence}
    return _Record(
        anchor=anchor,
        heading=heading,
        request_id=response.request_id,
        action=ACTION_MARKERS[response.action],
        summary=_summary(response),
        reasons=list(response.reasons),
        question=request.question,
        answer_html=None if answer is None else _answer_markup(anchor, answer, verdicts, placed),
        spanless=spanless,
        spanless_title="Claims" if answer is None else "Claims without a place in the answer",
        gaps=_gaps(response, answer),
        repaired_answer=response.repaired_answer,
        ledger_hash=response.ledger_hash,
        judge_calls=response.judge_calls,
        seconds=f"{response.seconds:.2f} s",
        failing=sum(v.label in FAILING_LABELS for v in verdicts),
        total=len(verdicts),
        data={"claims": [_claim_data(v, passages) for v in verdicts]},
    )


def _answer_span(verdict: ClaimVerdict, answer: str | None) -> Span | None:
    """The claim's span clipped to the answer, or None when it has no visible place there."""
    span = verdict.claim.span
    if span is None or answer is None:
        return None
    start, end = min(span.start, len(answer)), min(span.end, len(answer))
    return (start, end) if start < end else None


def _answer_markup(
    anchor: str, answer: str, verdicts: Sequence[ClaimVerdict], placed: dict[int, Span]
) -> Markup:
    order = list(placed)
    spans = [placed[i] for i in order]
    # Claims sharing a span (a sentence's decomposed facts) get their badges side by side.
    groups: dict[Span, list[int]] = {}
    for i in order:
        groups.setdefault(placed[i], []).append(i)
    parts: list[Markup] = []
    for piece in split_at_spans(len(answer), spans):
        text = answer[piece.start : piece.end]
        ids = [order[k] for k in piece.covering]
        overlap = len({spans[k] for k in piece.covering}) > 1
        badges = [
            _badge(anchor, i, verdicts[i], len(groups[span]) > 1)
            # inner spans first, so each badge sits next to its own text
            for span in sorted((s for s in groups if s[1] == piece.end), reverse=True)
            for i in groups[span]
        ]
        if not badges:
            parts.append(_highlight(text, ids, verdicts, overlap))
            continue
        # Keep the last word and the badges on one line, so a badge never wraps away from the
        # claim it labels to the start of the next one. Trailing whitespace stays outside: the
        # no-wrap run would fold a line break of the answer into a space.
        word_end = len(text.rstrip())
        word_start = word_end - len(text[:word_end].split()[-1]) if word_end else 0
        if word_start:
            parts.append(_highlight(text[:word_start], ids, verdicts, overlap))
        word = _highlight(text[word_start:word_end], ids, verdicts, overlap) if word_end else ""
        parts.append(Markup('<span class="keep">{}{}</span>').format(word, Markup("").join(badges)))
        if word_end < len(text):
            parts.append(_highlight(text[word_end:], ids, verdicts, overlap))
    return Markup("").join(parts)


def _highlight(
    text: str, ids: list[int], verdicts: Sequence[ClaimVerdict], overlap: bool
) -> Markup:
    if not ids:
        return Markup.escape(text)
    classes = f"hl t-{_worst(verdicts[i].label for i in ids)}" + (" overlap" if overlap else "")
    return Markup('<span class="{}" data-claims="{}">{}</span>').format(
        classes, " ".join(map(str, ids)), text
    )


def _badge(anchor: str, index: int, verdict: ClaimVerdict, show_id: bool) -> Markup:
    marker = LABEL_MARKERS[verdict.label]
    claim_id = verdict.claim.id
    suffix = Markup(' <span class="badge-id">{}</span>').format(claim_id) if show_id else ""
    return Markup(
        '<button type="button" class="badge t-{}" data-claim="{}" aria-expanded="false"'
        ' aria-controls="{}-panel" aria-label="{}"><span aria-hidden="true">{}</span> {}{}</button>'
    ).format(
        marker.tone,
        index,
        anchor,
        f"{marker.text}, claim {claim_id}: show evidence",
        marker.icon,
        marker.text,
        suffix,
    )


def _worst(labels: Iterable[Label]) -> str:
    return max((LABEL_MARKERS[label].tone for label in labels), key=_SEVERITY.index)


def _summary(response: VerifyResponse) -> str:
    counts = Counter(v.label for v in response.verdicts)
    parts = [
        f"{counts[label]} {marker.icon} {marker.text}"
        for label, marker in LABEL_MARKERS.items()
        if counts[label]
    ]
    total = len(response.verdicts)
    text = f"{total} claim{'' if total == 1 else 's'}" + (": " + ", ".join(parts) if parts else "")
    if response.citation_stuffing:
        text += " · citation stuffing detected"
    for limit in response.limits_exceeded:
        text += f" · limit exceeded: {limit}"
    return text


def _gaps(response: VerifyResponse, answer: str | None) -> list[str]:
    gaps: list[str] = []
    if answer is not None:
        gaps.extend(
            f"sentence without a claim: “{answer[s.start : s.end]}”"
            for s in response.coverage.sentences_without_claims
        )
    if response.coverage.uncovered_words:
        gaps.append("words no claim covers: " + ", ".join(response.coverage.uncovered_words))
    return gaps


def _claim_data(verdict: ClaimVerdict, passages: dict[str, Passage]) -> dict[str, Any]:
    marker = LABEL_MARKERS[verdict.label]
    return {
        "id": verdict.claim.id,
        "text": verdict.claim.text,
        "icon": marker.icon,
        "labelText": marker.text,
        "tone": marker.tone,
        "role": _SPAN_ROLE.get(verdict.label, "span relied on"),
        "score": _score(verdict.score),
        "contradictionScore": _score(verdict.contradiction_score),
        "firstTierScore": _score(verdict.first_tier_score),
        "origin": verdict.claim.origin.value,
        "judge": _judge_text(verdict),
        "citations": list(verdict.claim.citations),
        "reason": verdict.reason,
        "error": verdict.error,
        "checks": [_check_data(c) for c in verdict.checks],
        "evidence": _evidence_data(verdict, passages),
    }


def _judge_text(verdict: ClaimVerdict) -> str | None:
    trace = verdict.judge
    if trace is None:
        return None
    calls = f"{trace.calls} call{'' if trace.calls == 1 else 's'}"
    return f"{trace.model}, {calls}" + (", cached" if trace.cached else "")


def _score(value: float | None) -> str | None:
    return None if value is None else f"{value:.2f}"


def _check_data(outcome: CheckOutcome) -> dict[str, Any]:
    marker = CHECK_MARKERS[outcome.status]
    return {
        "check": outcome.check,
        "icon": marker.icon,
        "status": marker.text,
        "tone": marker.tone,
        "label": "" if outcome.label is None else LABEL_MARKERS[outcome.label].text,
        "detail": outcome.detail,
        "missing": list(outcome.missing),
        "derivations": list(outcome.derivations),
        "span": _finding_span(outcome),
    }


def _finding_span(outcome: CheckOutcome) -> str:
    """Where a finding stands: the claim's offsets and the evidence passage's, as the
    response gives them ("claim [24:37], S1 [41:54] '$35.1 billion'")."""
    parts = []
    if outcome.claim_span is not None:
        parts.append(f"claim [{outcome.claim_span.start}:{outcome.claim_span.end}]")
    if (span := outcome.evidence_span) is not None:
        parts.append(f"{span.passage_id or 'evidence'} [{span.start}:{span.end}] {span.text!r}")
    return ", ".join(parts)


def _evidence_data(verdict: ClaimVerdict, passages: dict[str, Passage]) -> list[dict[str, Any]]:
    """The passages a verdict relies on, each cut into pieces with its spans marked; cited
    passages without a located span follow, unmarked."""
    by_passage: dict[str, list[tuple[int, int, str]]] = {}
    for ev in verdict.evidence:
        by_passage.setdefault(ev.passage_id, []).append((ev.start, ev.end, ev.text))
    for cited in verdict.claim.citations:
        by_passage.setdefault(cited, [])
    out: list[dict[str, Any]] = []
    for passage_id, recorded in by_passage.items():
        passage = passages.get(passage_id)
        if passage is None:
            out.append(
                {
                    "passageId": passage_id,
                    "source": "",
                    "found": False,
                    "spans": [[s, e] for s, e, _ in recorded],
                    "segments": [],
                    "notes": [f"passage {passage_id} is not in the evidence given"],
                }
            )
            continue
        out.append(_passage_data(passage, recorded))
    return out


def _passage_data(passage: Passage, recorded: list[tuple[int, int, str]]) -> dict[str, Any]:
    text = passage.text
    spans: list[Span] = []
    notes: list[str] = []
    for start, end, quoted in recorded:
        clipped = (min(start, len(text)), min(end, len(text)))
        if end > len(text):
            notes.append(f"span [{start}:{end}] runs past the end of the passage ({len(text)})")
        elif start == end:
            notes.append(f"span [{start}:{end}] is empty")
        elif quoted and text[start:end] != quoted:
            notes.append(f"span [{start}:{end}] differs from the text the verdict quoted: {quoted}")
        spans.append(clipped)
    segments = [
        {"text": text[p.start : p.end], "spans": list(p.covering), "edge": p.edge}
        for p in split_at_spans(len(text), spans)
    ]
    return {
        "passageId": passage.id,
        "source": passage.source,
        "found": True,
        "spans": [[s, e] for s, e, _ in recorded],
        "segments": segments,
        "notes": notes,
    }


_ENV = Environment(autoescape=True, undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
_TEMPLATE = _ENV.from_string(PAGE)
_STYLE = style_sheet()


def _page(
    title: str,
    records: list[_Record],
    index: bool,
    graded: bool = False,
    metrics: Sequence[MetricsTable] = (),
) -> str:
    data = {"records": {r.anchor: r.data for r in records}}
    return _TEMPLATE.render(
        title=title,
        index=index,
        graded=graded,
        metrics=list(metrics),
        records=records,
        csp=content_security_policy(_STYLE, SCRIPT),
        style=Markup(_STYLE),
        script=Markup(SCRIPT),
        data_json=Markup(script_json(data)),
    )


def script_json(value: Any) -> str:
    """JSON safe inside a ``<script>`` element: ``<``, ``>`` and ``&`` as \\u escapes, so no
    ``</script>`` or ``<!--`` in the data can end or alter the element."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def content_security_policy(style: str, script: str) -> str:
    """Only the inline style sheet and script run (by hash); nothing loads from anywhere."""
    return (
        f"default-src 'none'; style-src '{_sha256(style)}'; script-src '{_sha256(script)}'; "
        "img-src 'none'; base-uri 'none'; form-action 'none'"
    )


def _sha256(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")
