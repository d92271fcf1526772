"""The injection screen: a claim whose judge prompt would carry text addressed to the judge is
sent to review, unjudged.

What reaches the judge for one claim is its cited passages, the claim, the question and, for
answer text, the sentence the claim comes from; each is scanned (judge.reading.injection) and every
suspect span is named in the verdict. Passages are scanned once per request, whatever the
number of claims citing them; a passage's source is scanned with its text, as reports show it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from judge.pipeline.align import Alignment
from judge.reading.injection import Finding, find_injections
from judge.schemas import (
    CheckOutcome,
    CheckStatus,
    Claim,
    ClaimVerdict,
    EvidenceLedger,
    EvidenceSpan,
    Label,
)

CHECK_NAME = "injection"
_SNIPPET = 60
_LISTED = 4


@dataclass(frozen=True)
class Located:
    """A finding and where it is: a passage's text or source, the claim, the question."""

    where: str
    finding: Finding
    passage_id: str | None = None  # set for findings in a passage's text

    def describe(self) -> str:
        text = " ".join(self.finding.text.split())
        if len(text) > _SNIPPET:
            text = text[: _SNIPPET - 1] + "…"
        span = f"{self.finding.start}-{self.finding.end}"
        return f"{self.finding.kind.value} {text!r} in {self.where} at {span}"


@dataclass
class InjectionScreen:
    """Scans what one request puts in front of the judge; one instance per request."""

    ledger: EvidenceLedger
    question: str | None = None
    answer: str | None = None
    _passages: dict[str, list[Located]] = field(default_factory=dict)
    _question: list[Located] | None = None

    def verdict(self, alignment: Alignment) -> ClaimVerdict | None:
        """A ``needs_review`` verdict naming every suspect span, or None when there is none."""
        claim = alignment.claim
        found = [
            *self._in_claim(claim),
            *self._in_question(),
            *(item for pid in alignment.passage_ids for item in self._in_passage(pid)),
        ]
        if not found:
            return None
        listed = "; ".join(item.describe() for item in found[:_LISTED])
        more = f"; and {len(found) - _LISTED} more" if len(found) > _LISTED else ""
        detail = f"text addressed to the judge: {listed}{more}"
        status, label = CheckStatus.NEEDS_REVIEW, Label.NEEDS_REVIEW
        outcome = CheckOutcome(check=CHECK_NAME, status=status, label=label, detail=detail)
        spans = [
            EvidenceSpan(
                passage_id=item.passage_id,
                start=item.finding.start,
                end=item.finding.end,
                text=item.finding.text,
            )
            for item in found
            if item.passage_id is not None
        ]
        return ClaimVerdict(
            claim=claim, label=Label.NEEDS_REVIEW, reason=detail, evidence=spans, checks=[outcome]
        )

    def _in_claim(self, claim: Claim) -> list[Located]:
        found = [Located("the claim", f) for f in find_injections(claim.text)]
        if self.answer is not None and claim.span is not None:
            start = claim.span.start
            sentence = self.answer[start : claim.span.end]
            found += [
                Located("the answer", _shifted(f, start, self.answer))
                for f in find_injections(sentence)
            ]
        return _distinct(found)

    def _in_question(self) -> list[Located]:
        if self._question is None:
            found = find_injections(self.question or "")
            self._question = [Located("the question", f) for f in found]
        return self._question

    def _in_passage(self, passage_id: str) -> list[Located]:
        if passage_id not in self._passages:
            passage = self.ledger.get(passage_id)
            found: list[Located] = []
            if passage is not None:
                found = [
                    Located(f"passage {passage_id}", f, passage_id)
                    for f in find_injections(passage.text)
                ] + [
                    Located(f"the source of passage {passage_id}", f)
                    for f in find_injections(passage.source)
                ]
            self._passages[passage_id] = found
        return self._passages[passage_id]


def _shifted(finding: Finding, offset: int, text: str) -> Finding:
    start, end = finding.start + offset, finding.end + offset
    return Finding(finding.kind, start, end, text[start:end])


def _distinct(found: Sequence[Located]) -> list[Located]:
    """The claim's text usually repeats its answer sentence: name each suspect text once."""
    seen: set[str] = set()
    kept: list[Located] = []
    for item in found:
        key = " ".join(item.finding.text.split()).casefold()
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept
