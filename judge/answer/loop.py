"""Grounded answers end to end: write a cited draft, verify it, repair or regenerate, fall back.

::

    draft ─ verify ─┬─ pass, and it addresses the question ─────────────────────▶ passed
                    ├─ pass, but it does not address the question ─▶ regenerate, keeping it
                    │    (returned if the regeneration does not verify, or with no budget left)
                    ├─ repair ─ re-verify, still answers the question? ─ yes ──▶ repaired
                    │                                  └─ no ─┐
                    ├─ regenerate ────────────────────────────┴─▶ regenerate, naming the failing
                    │                                             claims (at most
                    │                                             settings.max_regenerations)
                    └─ block (contradiction, failed exact check, verifier error) ─▶ fallback
    the refusal sentence, or nothing supported once the budget is spent ─────────▶ refused

Drafts are written under the citation grammar (:mod:`judge.answer.grammar`) when the generator
endpoint constrains decoding (:mod:`judge.answer.grammar_support`): every sentence ends with
citations of this request's passages, or the reply is the refusal sentence alone. Otherwise the
prompt's rule stands alone, and the result's ``drafting.note`` says so. A refusal sentence on
evidence that shares the question's words is asked again once (within the regeneration budget),
naming the passages that mention them: a small generator gives up on answers a passage states.

An answer is only ever returned when its text passed verification; everything else ends in the
configured fallback: a safe message, a partial answer (only verified sentences, re-verified,
plus the gap named) or an escalation marker. A generator or verifier fault fails closed the same
way. A refusal says which kind it is (``refusal``): no passage bears on the question, or the
drafts failed verification, named. Every step is written to the audit log under one answer id.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from judge.answer.constrain import ReplyConstraint, reply_constraint
from judge.answer.generator import ConstrainedGenerator, Generator, open_generator
from judge.answer.grammar import CitationGrammar, cites_every_sentence
from judge.answer.grammar_support import unsupported
from judge.answer.refusals import (
    WITHHELD,
    Refusal,
    RefusalKind,
    failures_named,
    generator_refusal,
)
from judge.answer.relevance import (
    REFUSAL_SENTENCE,
    AnswerCheck,
    check_answer,
    split_refusal,
)
from judge.answer.types import (
    ESCALATION_MARKER,
    ESCALATION_MESSAGE,
    SAFE_MESSAGE,
    AnswerOptions,
    AnswerResult,
    AnswerStep,
    Drafting,
    Fallback,
    Outcome,
    Progress,
    RepairStyle,
    Stage,
)
from judge.audit.log import AuditLog
from judge.config import Settings, load_settings
from judge.errors import InputError, VerifierFault
from judge.inputs.request import input_error_from
from judge.judges.binding import bind_request
from judge.pipeline.entail import connect
from judge.pipeline.ledger import freeze_ledger
from judge.pipeline.policy import apply_edits
from judge.pipeline.runner import verify
from judge.prompts.rendering import RenderedPrompt, neutralise, new_nonce, render
from judge.protocols import Judge
from judge.reading.answer import is_factual
from judge.reading.citations import parse_citations
from judge.schemas import (
    Action,
    CharSpan,
    EvidenceLedger,
    Label,
    Passage,
    RepairEdit,
    VerifyRequest,
    VerifyResponse,
)

GENERATE_TEMPLATE = "generate.j2"
REGENERATE_TEMPLATE = "regenerate.j2"
AUDIT_KIND = "answer_step"

__all__ = [
    "ESCALATION_MARKER",
    "ESCALATION_MESSAGE",
    "SAFE_MESSAGE",
    "AnswerOptions",
    "AnswerResult",
    "AnswerStep",
    "Drafting",
    "Fallback",
    "Outcome",
    "Progress",
    "RepairStyle",
    "answer",
    "answer_sync",
    "generate_prompt",
    "parse_passages",
    "regenerate_prompt",
]


async def answer(
    question: str,
    passages: Sequence[Passage | dict[str, Any]],
    settings: Settings | None = None,
    *,
    generator: Generator | None = None,
    judge: Judge | None = None,
    options: AnswerOptions | None = None,
    audit: AuditLog | None = None,
    progress: Progress | None = None,
) -> AnswerResult:
    """Answer ``question`` from ``passages`` with a verified, cited answer, or fall back.

    Without ``judge`` the judge is opened from ``settings`` (the embedded local server when no
    endpoint is set); without ``generator`` the generator is opened on
    ``options.generator_base_url``, else on the same endpoint. Raises ``InputError`` for a bad
    question or evidence and ``ConfigError`` for a bad configuration; faults of the generator
    or the judge never raise: they block the answer.
    """
    settings = settings or load_settings()
    options = options or AnswerOptions()
    if not question.strip():
        raise InputError("the question must not be empty", field="question")
    ledger = freeze_ledger(parse_passages(passages), settings)
    run = _Run(question.strip(), ledger, settings, options, audit, progress)
    async with contextlib.AsyncExitStack() as stack:
        try:
            if judge is None:
                run.say("opening the judge")
                judge = await stack.enter_async_context(connect.open_judge(settings))
            if generator is None:
                generator = await stack.enter_async_context(
                    open_generator(
                        settings,
                        base_url=options.generator_base_url,
                        model=options.generator_model,
                        max_tokens=options.max_tokens,
                        temperature=options.temperature,
                    )
                )
        except VerifierFault as exc:
            return await run.fail_to_open(exc)
        return await run.execute(generator, bind_request(judge, ledger.ledger_hash))


def answer_sync(
    question: str,
    passages: Sequence[Passage | dict[str, Any]],
    settings: Settings | None = None,
    **kwargs: Any,
) -> AnswerResult:
    """Blocking wrapper of :func:`answer`."""
    return asyncio.run(answer(question, passages, settings, **kwargs))


def parse_passages(data: Any) -> list[Passage]:
    """Passages from a JSON list of ``{id, text, source?}`` or an object with ``evidence``."""
    items = data.get("evidence") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise InputError("give a list of passages or an object with 'evidence'", field="evidence")
    passages: list[Passage] = []
    for index, item in enumerate(items):
        if isinstance(item, Passage):
            passages.append(item)
            continue
        try:
            passages.append(Passage.model_validate(item))
        except ValidationError as exc:
            error = input_error_from(exc)
            raise InputError(str(error), field=f"evidence[{index}]") from None
    return passages


def generate_prompt(
    question: str, ledger: EvidenceLedger, *, nonce: str, options: AnswerOptions
) -> RenderedPrompt:
    return render(
        GENERATE_TEMPLATE,
        nonce=nonce,
        fences=("EVIDENCE", "QUESTION"),
        **_prompt_variables(question, ledger, options),
    )


def regenerate_prompt(
    question: str,
    ledger: EvidenceLedger,
    previous: str,
    problems: Sequence[str],
    *,
    nonce: str,
    options: AnswerOptions,
) -> RenderedPrompt:
    return render(
        REGENERATE_TEMPLATE,
        nonce=nonce,
        fences=("EVIDENCE", "QUESTION", "PREVIOUS", "PROBLEMS"),
        previous=neutralise(previous),
        problems=[neutralise(" ".join(p.split())) for p in problems],
        **_prompt_variables(question, ledger, options),
    )


def passage_aliases(ledger: EvidenceLedger) -> dict[str, str]:
    """Short ids the generator cites (S1, S2, ...), mapped to the ledger's ids. Small models copy
    a plain numbered id far more reliably than ids such as "s36-38" or "doc7#3"."""
    return {f"S{number}": p.id for number, p in enumerate(ledger.passages, start=1)}


def resolve_aliases(text: str, aliases: dict[str, str]) -> str:
    """Rewrite the generator's citations of aliases into ledger ids; anything else stays as
    written (an unknown id then fails verification as a bad citation)."""
    out: list[str] = []
    last = 0
    for marker in parse_citations(text, known_ids=set(aliases), strict=False):
        out.append(text[last : marker.span.start])
        out.append("[" + ", ".join(aliases.get(i, i) for i in marker.ids) + "]")
        last = marker.span.end
    out.append(text[last:])
    return "".join(out)


def _prompt_variables(
    question: str, ledger: EvidenceLedger, options: AnswerOptions
) -> dict[str, Any]:
    aliases = passage_aliases(ledger)
    return {
        "passages": [
            {"id": alias, "text": neutralise(ledger.passages[number].text)}
            for number, alias in enumerate(aliases)
        ],
        "question": neutralise(question),
        "refusal": REFUSAL_SENTENCE,
        "max_sentences": options.max_sentences,
    }


@dataclass
class _Attempt:
    """How one candidate answer ended."""

    # unaddressed: verified, but not an answer to the question (judge/answer/relevance.py)
    kind: Literal["accept", "unaddressed", "retry", "block", "refuse"]
    text: str = ""  # the accepted answer
    repaired: bool = False
    # Named in the regeneration prompt; on a refusal, why it is worth asking again.
    problems: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    fault: str | None = None


class _Run:
    """The state of one answer: its steps, counters and what the fallbacks can use."""

    def __init__(
        self,
        question: str,
        ledger: EvidenceLedger,
        settings: Settings,
        options: AnswerOptions,
        audit: AuditLog | None,
        progress: Progress | None,
    ) -> None:
        self.question = question
        self.ledger = ledger
        self.settings = settings
        self.options = options
        self.audit = audit
        self.progress = progress
        self.answer_id = uuid.uuid4().hex
        self.nonce = new_nonce()
        self.started = time.perf_counter()
        self.steps: list[AnswerStep] = []
        self.generator_calls = 0
        self.judge_calls = 0
        self.supported_seen = False
        # The latest verified text with supported claims: the partial fallback's material.
        self.partial_source: tuple[str, VerifyResponse] | None = None
        # How each draft ended, in order: its failures by kind and count (what a refusal
        # names), or None for the refusal sentence.
        self.drafts: list[tuple[Stage, str | None]] = []
        self.judge: Judge | None = None
        self.aliases = passage_aliases(ledger)
        grammar = CitationGrammar.for_ids(list(self.aliases))
        self.constraint = ReplyConstraint(grammar, unsupported("no generator opened"))
        # What the next draft or regeneration step records about how it was written.
        self._written: tuple[bool, bool] | None = None
        # A draft that verified but did not address the question, while a better one is asked
        # for: returned if that one does not verify.
        self.kept: tuple[Outcome, str] | None = None

    def say(self, message: str) -> None:
        if self.progress is not None:
            self.progress(message)

    async def fail_to_open(self, exc: VerifierFault) -> AnswerResult:
        reason = f"cannot open the model endpoint: {type(exc).__name__}: {exc}"
        await self._step("draft", None, reasons=[reason])
        return await self._fallback([reason], fault=reason)

    async def execute(self, generator: Generator, judge: Judge) -> AnswerResult:
        self.judge = judge
        prompt = generate_prompt(self.question, self.ledger, nonce=self.nonce, options=self.options)
        stage: Stage = "draft"
        regenerations = 0
        earlier: list[str] = []  # why the earlier attempts failed, for the final reasons
        try:
            await self._learn_support(generator)
        except VerifierFault as exc:
            reason = f"{type(exc).__name__}: {exc}"
            await self._step(stage, None, reasons=[reason])
            return await self._fallback([reason], fault=reason)
        while True:
            self.say("writing a draft answer" if stage == "draft" else "regenerating the answer")
            self.generator_calls += 1
            try:
                text = await self._write(generator, prompt)
            except VerifierFault as exc:
                reason = f"{type(exc).__name__}: {exc}"
                await self._step(stage, None, reasons=[reason])
                if self.kept is not None:
                    return await self._finish_kept(self.kept, [*earlier, reason])
                return await self._fallback([*earlier, reason], fault=reason)
            attempt = await self._attempt(resolve_aliases(text, self.aliases), stage)
            reasons = [*earlier, *attempt.reasons]
            spent = regenerations >= self.settings.max_regenerations
            if attempt.kind == "accept" or (attempt.kind == "unaddressed" and spent):
                return await self._finish(_outcome(stage, attempt), attempt.text, reasons)
            if attempt.kind == "unaddressed":
                self.kept = (_outcome(stage, attempt), attempt.text)
            elif self.kept is not None and (attempt.kind in ("refuse", "block") or spent):
                # A later draft failed; the earlier one verified, and stands.
                return await self._finish_kept(self.kept, reasons)
            if attempt.kind == "refuse" and (not attempt.problems or spent):
                return await self._refuse(reasons)
            if attempt.kind == "block":
                return await self._fallback(reasons, fault=attempt.fault)
            if spent:
                spent_reason = f"regeneration budget spent ({self.settings.max_regenerations})"
                if not self.supported_seen:
                    return await self._refuse([*reasons, spent_reason])
                return await self._fallback([*reasons, spent_reason])
            regenerations += 1
            earlier = [*earlier, *(f"{stage}: {r}" for r in attempt.reasons)]
            prompt = regenerate_prompt(
                self.question,
                self.ledger,
                text,
                attempt.problems,
                nonce=self.nonce,
                options=self.options,
            )
            stage = "regeneration"

    async def _learn_support(self, generator: Generator) -> None:
        self.constraint = await reply_constraint(
            generator, list(self.aliases), self.settings, max_sentences=self.options.max_sentences
        )

    async def _write(self, generator: Generator, prompt: RenderedPrompt) -> str:
        """One draft, under the grammar when the endpoint takes one. A reply outside the grammar
        it was sent is still verified as any draft is, and the grammar is no longer trusted."""
        fields = self.constraint.extra_body
        if fields is None or not isinstance(generator, ConstrainedGenerator):
            text = (await generator.generate(prompt)).text
        else:
            text = (await generator.generate(prompt, extra_body=fields)).text
            self.constraint = self.constraint.checked(generator, text)
        self._written = (fields is not None, cites_every_sentence(text, self.aliases))
        return text

    async def _attempt(self, text: str, stage: Stage) -> _Attempt:
        refused, rest = split_refusal(text)
        if refused and not is_factual(rest):
            reason = "the generator found no answer in the evidence"
            self.drafts.append((stage, None))
            await self._step(stage, text, reasons=[reason])
            return _Attempt("refuse", reasons=[reason], problems=self._ask_again())
        notes = []
        if refused:
            text = rest  # the refusal sentence is not a claim; the rest is checked as usual
            notes.append("the refusal sentence was dropped: the rest of the text is checked")
        self.say(f"verifying the {stage}")
        response = await self._verify(text, stage, notes=notes)
        if isinstance(response, _Attempt):
            return response
        blocked = _blocked(response)
        if blocked is not None:
            return blocked
        if response.action is Action.PASS:
            supported = _supported(response)
            if not supported:
                problem = "the answer states nothing the evidence supports"
                return _Attempt("retry", problems=[problem], reasons=[problem])
            check = check_answer(self.question, supported)
            if check.answers:
                return _Attempt("accept", text=text)
            missing = ", ".join(check.missing) or "the question"
            problem = (
                f"the answer verified but does not address the question: it leaves out {missing}. "
                "State what the passages say about it, each sentence with its citation."
            )
            reason = f"verified, but it does not address the question ({check.reason})"
            return _Attempt("unaddressed", text=text, problems=[problem], reasons=[reason])
        if response.action is Action.REPAIR and response.repaired_answer:
            return await self._repair(response)
        return _Attempt("retry", problems=_problems(response), reasons=list(response.reasons))

    async def _repair(self, draft: VerifyResponse) -> _Attempt:
        """Re-verify the repaired text; accept it only if it passes and still answers."""
        repaired = draft.repaired_answer or ""
        self.say("verifying the repaired answer")
        response = await self._verify(repaired, "repair", check_answer_too=True)
        if isinstance(response, _Attempt):
            return response
        blocked = _blocked(response)
        if blocked is not None:
            return blocked
        problems = _problems(draft)
        if response.action is not Action.PASS:
            reasons = ["the repaired answer did not verify", *response.reasons]
            return _Attempt("retry", problems=problems + _problems(response), reasons=reasons)
        check = check_answer(self.question, _supported(response))
        if not check.answers:
            missing = ", ".join(check.missing) or "the question"
            problems.append(f"without those statements the answer no longer addresses: {missing}")
            reasons = [f"repaired answer rejected: it no longer answers ({check.reason})"]
            return _Attempt("retry", problems=problems, reasons=reasons)
        text = repaired
        hedge = _hedge_line(draft)
        if self.options.repair_style is RepairStyle.HEDGE and hedge:
            text = f"{repaired}\n\n{hedge}"
        reasons = [f"repaired: removed {', '.join(draft.failing_claims)}"]
        return _Attempt("accept", text=text, repaired=True, reasons=reasons)

    async def _verify(
        self,
        text: str,
        stage: Stage,
        *,
        check_answer_too: bool = False,
        notes: Sequence[str] = (),
    ) -> VerifyResponse | _Attempt:
        request = VerifyRequest(
            evidence=list(self.ledger.passages), answer=text, question=self.question
        )
        try:
            response = await verify(request, self.settings, judge=self.judge)
        except InputError as exc:
            # The ledger was checked up front, so this is the generated text: a malformed
            # citation, most likely. The model gets another try with the problem named.
            problem = f"the answer could not be read: {exc}"
            self._note_failure(stage, "the text could not be read (a malformed citation)")
            await self._step(stage, text, reasons=[*notes, problem])
            return _Attempt("retry", problems=[problem], reasons=[problem])
        self.judge_calls += response.judge_calls
        supported = _supported(response)
        named = failures_named(response.verdicts)
        if named:
            self._note_failure(stage, named)
        elif not supported and response.action is Action.PASS:
            self._note_failure(stage, "it states nothing the evidence supports")
        if supported:
            self.supported_seen = True
            self.partial_source = (text, response)
        check = check_answer(self.question, supported) if check_answer_too else None
        await self._step(stage, text, response, reasons=notes, check=check)
        return response

    def _note_failure(self, stage: Stage, what: str) -> None:
        if stage in ("draft", "regeneration"):
            self.drafts.append((stage, what))

    def _ask_again(self) -> list[str]:
        """Why a refusal sentence is worth a second try: the evidence, read word by word,
        addresses the question. Names the passages that mention its words; [] when it does not
        (then the refusal stands at once)."""
        passages = self.ledger.passages
        if not check_answer(self.question, [p.text for p in passages]).answers:
            return []
        mentions = []
        for alias, passage in zip(self.aliases, passages, strict=True):
            words = check_answer(self.question, [passage.text]).addressed
            if words:
                mentions.append(f"{alias} mentions {', '.join(words[:6])}")
        return [
            f'"{REFUSAL_SENTENCE}": the evidence may hold the answer ({"; ".join(mentions)}). '
            "Answer from those passages, citing them; give that sentence alone only if they do "
            "not answer the question."
        ]

    async def _finish_kept(self, kept: tuple[Outcome, str], reasons: list[str]) -> AnswerResult:
        outcome, text = kept
        why = "the earlier verified answer is returned, though it does not address the question"
        return await self._finish(outcome, text, [*reasons, why])

    async def _refuse(self, reasons: list[str]) -> AnswerResult:
        """A refusal that says which kind it is (:meth:`_refusal`)."""
        refusal = self._refusal()
        if self.options.fallback is Fallback.ESCALATE:
            text = f"{ESCALATION_MESSAGE} {refusal.text}".strip()
            return await self._finish(
                Outcome.REFUSED,
                text,
                reasons,
                fallback=Fallback.ESCALATE,
                escalated=True,
                refusal=refusal.kind,
            )
        return await self._finish(
            Outcome.REFUSED,
            refusal.text,
            reasons,
            fallback=self.options.fallback,
            refusal=refusal.kind,
        )

    def _refusal(self) -> Refusal:
        """No passage bears on the question (no passage shares its words, or every draft was
        the refusal sentence), or the drafts failed verification, each failure named."""
        failed = [f"{stage}: {what}" for stage, what in self.drafts if what is not None]
        refused = [stage for stage, what in self.drafts if what is None]
        if refused and not failed:
            return generator_refusal(self.question, self.ledger.passages, asked=len(refused))
        named = f" ({'; '.join(failed)})" if failed else ""
        failures = "; ".join(failed)
        kind = RefusalKind.FAILED_VERIFICATION
        if not refused:
            text = f"{WITHHELD}: every draft failed verification against the evidence{named}."
            return Refusal(kind, text)
        if self.drafts[-1][1] is None:
            return Refusal(
                kind,
                f"{WITHHELD}: the draft failed verification against the evidence ({failures}), "
                "and the regenerated answer said the evidence does not contain the answer.",
            )
        return Refusal(
            kind,
            f"{WITHHELD}: the draft said the evidence does not contain the answer, and the "
            f"regenerated answer failed verification against the evidence ({failures}).",
        )

    async def _fallback(self, reasons: list[str], *, fault: str | None = None) -> AnswerResult:
        fallback = self.options.fallback
        if fallback is Fallback.ESCALATE:
            return await self._finish(
                Outcome.BLOCKED,
                ESCALATION_MESSAGE,
                reasons,
                fallback=fallback,
                escalated=True,
                fault=fault,
            )
        if fallback is Fallback.PARTIAL:
            partial = await self._partial()
            if partial is not None:
                return await self._finish(
                    Outcome.BLOCKED, partial, reasons, fallback=fallback, fault=fault
                )
            reasons = [*reasons, "no partial answer verified: safe message returned"]
        return await self._finish(
            Outcome.BLOCKED, self.options.safe_message, reasons, fallback=fallback, fault=fault
        )

    async def _partial(self) -> str | None:
        """The verified sentences of the latest checked text, re-verified, plus the gap."""
        if self.partial_source is None or self.judge is None:
            return None
        text, response = self.partial_source
        body = _supported_only(text, response)
        if not is_factual(body):
            return None
        self.say("verifying the partial answer")
        checked = await self._verify(body, "partial", check_answer_too=True)
        if isinstance(checked, _Attempt) or checked.action is not Action.PASS:
            return None
        supported = _supported(checked)
        if not supported:
            return None
        missing = check_answer(self.question, supported).missing
        gap = _gap_line(missing) if missing else "Other parts of the answer could not be verified."
        return f"{body}\n\n{gap}"

    async def _finish(
        self,
        outcome: Outcome,
        text: str,
        reasons: list[str],
        *,
        fallback: Fallback | None = None,
        escalated: bool = False,
        fault: str | None = None,
        refusal: RefusalKind | None = None,
    ) -> AnswerResult:
        await self._step("final", text, reasons=reasons, outcome=outcome)
        return AnswerResult(
            answer_id=self.answer_id,
            question=self.question,
            text=text,
            outcome=outcome,
            escalated=escalated,
            fallback=fallback,
            reasons=reasons,
            fault=fault,
            refusal=refusal,
            drafting=self.constraint.drafting(),
            ledger_hash=self.ledger.ledger_hash,
            ledger_ids=self.ledger.ids,
            steps=self.steps,
            generator_calls=self.generator_calls,
            judge_calls=self.judge_calls,
            seconds=round(time.perf_counter() - self.started, 4),
        )

    async def _step(
        self,
        stage: Stage,
        text: str | None,
        response: VerifyResponse | None = None,
        *,
        reasons: Sequence[str] = (),
        check: AnswerCheck | None = None,
        outcome: Outcome | None = None,
    ) -> None:
        verdicts = response.verdicts if response is not None else []
        written = self._written if stage in ("draft", "regeneration") else None
        self._written = None if written is not None else self._written
        labels: dict[str, int] = {}
        for verdict in verdicts:
            labels[verdict.label.value] = labels.get(verdict.label.value, 0) + 1
        step = AnswerStep(
            index=len(self.steps),
            stage=stage,
            text=text,
            action=response.action if response is not None else None,
            labels=labels,
            supported=[v.claim.id for v in verdicts if v.label is Label.SUPPORTED],
            failing=list(response.failing_claims) if response is not None else [],
            reasons=[*(response.reasons if response is not None else []), *reasons],
            request_id=response.request_id if response is not None else None,
            answers_question=check.answers if check is not None else None,
            missing=list(check.missing) if check is not None else [],
            constrained=written[0] if written is not None else None,
            cites_every_sentence=written[1] if written is not None else None,
        )
        self.steps.append(step)
        if self.audit is None:
            return
        # A verification is logged with its request (evidence and text) so it can be replayed;
        # other steps carry their text in ``extra`` and name the ledger by ids and hash only.
        request = None
        if response is not None and text is not None:
            request = VerifyRequest(
                evidence=list(self.ledger.passages), answer=text, question=self.question
            )
        extra = {
            "answer_id": self.answer_id,
            "question": self.question,
            "ledger_hash": self.ledger.ledger_hash,
            "ledger_ids": self.ledger.ids,
            "step": step.model_dump(mode="json", exclude={"text"} if request else None),
            "outcome": outcome.value if outcome is not None else None,
        }
        await asyncio.to_thread(self.audit.record, request, response, kind=AUDIT_KIND, extra=extra)


def _outcome(stage: Stage, attempt: _Attempt) -> Outcome:
    if stage == "regeneration":
        return Outcome.REGENERATED
    return Outcome.REPAIRED if attempt.repaired else Outcome.PASSED


def _blocked(response: VerifyResponse) -> _Attempt | None:
    """A block, with the verifier fault when one caused it."""
    errors = [v for v in response.verdicts if v.label is Label.VERIFIER_ERROR]
    if errors:
        fault = errors[0].error or errors[0].reason or "verifier error"
        return _Attempt("block", reasons=list(response.reasons), fault=fault)
    if response.action is Action.BLOCK:
        return _Attempt("block", reasons=list(response.reasons))
    return None


def _supported(response: VerifyResponse) -> list[str]:
    return [v.claim.text for v in response.verdicts if v.label is Label.SUPPORTED]


def _problems(response: VerifyResponse) -> list[str]:
    """Each failing claim, quoted, with its label and reason: what the regeneration must fix."""
    problems = [
        f'"{v.claim.text}" ({v.label.value}): {v.reason or v.error or "no reason given"}'
        for v in response.verdicts
        if v.label not in (Label.SUPPORTED, Label.NOT_FACTUAL)
    ]
    if response.coverage.uncovered_words:
        words = ", ".join(response.coverage.uncovered_words[:10])
        problems.append(f"words that no checkable statement covers: {words}")
    return problems or list(response.reasons)


def _supported_only(text: str, response: VerifyResponse) -> str:
    """``text`` with every claim that is not supported cut out by its span."""
    spans = [
        v.claim.span
        for v in response.verdicts
        if v.claim.span is not None and v.label not in (Label.SUPPORTED, Label.NOT_FACTUAL)
    ]
    spans += list(response.coverage.sentences_without_claims)
    return apply_edits(text, [RepairEdit(span=s, claim_ids=[]) for s in _merge(spans)])


def _merge(spans: Sequence[CharSpan]) -> list[CharSpan]:
    merged: list[CharSpan] = []
    for span in sorted(spans, key=lambda s: (s.start, s.end)):
        if merged and span.start <= merged[-1].end:
            merged[-1] = CharSpan(start=merged[-1].start, end=max(merged[-1].end, span.end))
        else:
            merged.append(span)
    return merged


def _gap_line(missing: Sequence[str]) -> str:
    # What the verified text leaves out: the evidence may hold it, the drafts did not verify it.
    return f"The verified answer does not address: {', '.join(missing)}." if missing else ""


def _hedge_line(draft: VerifyResponse) -> str:
    removed = [
        v.claim.text
        for v in draft.verdicts
        if v.claim.id in draft.failing_claims and v.claim.span is not None
    ]
    quoted = "; ".join(f'"{text.rstrip(".!?")}"' for text in dict.fromkeys(removed))
    return f"The evidence does not confirm: {quoted}." if quoted else ""
