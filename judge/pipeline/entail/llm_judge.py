"""The LLM judge: stage 5's questions (entailment, the contradiction probe, atomic facts, the
main conclusion) asked of a model over :class:`~judge.judges.client.ModelClient`.

The prompts are built here, from the templates in ``judge.prompts``; the client only sends them.
Every verdict and text call is looked up in the verdict cache first, keyed by the request's
ledger hash, the template hash and the decoding. No default label is ever returned: a call that
fails raises a :class:`~judge.errors.VerifierFault`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar, cast

import httpx
from pydantic import BaseModel

from judge.config import Settings
from judge.errors import ConfigError
from judge.judges.cache import VerdictCache, call_key, verdict_key
from judge.judges.client import JudgeUsage, ModelClient, build_model_client
from judge.judges.pool import EndpointPool
from judge.pipeline.claims.decompose import Conclusion, Facts, conclusion_prompt, decompose_prompt
from judge.pipeline.entail.score import LABEL_ONLY_NOTE, read_score
from judge.pipeline.entail.verdict import (
    DEFAULT_VARIANT,
    TOP_LOGPROBS,
    VARIANTS,
    PromptVariant,
    VerdictVariant,
    entail_prompt,
    premise_scope,
    verdict_model,
)
from judge.prompts.rendering import RenderedPrompt, ledger_nonce, new_nonce, new_nonce_key
from judge.schemas import Claim, JudgeTrace
from judge.schemas.judging import EntailmentResult, Premise

if TYPE_CHECKING:
    from judge.judges.completion import Completed

__all__ = ["HttpJudge", "JudgeUsage", "build_http_judge"]

M = TypeVar("M", bound=BaseModel)


class HttpJudge:
    """Judge and decomposer over a model client. Safe to call concurrently.

    Prompts fence their data with a nonce held by the judge that data cannot guess. It stays the
    same across the claims of one request, and across the requests on one evidence ledger (it is
    keyed on the ledger hash under a secret drawn per judge), so the evidence prefix of the
    prompt is byte-identical and the server's prefix cache reuses it. Take a view per request
    with :meth:`for_request`.
    """

    def __init__(
        self,
        client: ModelClient,
        variant: VerdictVariant,
        nonce_key: bytes,
        *,
        nonce: str,
        ledger_hash: str | None,
        root: bool,
    ) -> None:
        self.client = client
        self._variant = variant
        self._nonce_key = nonce_key
        self.nonce = nonce
        self.ledger_hash = ledger_hash
        self.usage = JudgeUsage()
        self._root = root

    @property
    def model_id(self) -> str:
        """The model id sent with every request; empty until discovered by :meth:`resolve_model`."""
        return self.client.model or ""

    @property
    def settings(self) -> Settings:
        return self.client.settings

    @property
    def pool(self) -> EndpointPool | None:
        """The endpoints this judge balances over (None with a client given by the caller)."""
        return self.client.pool

    def for_request(self, *, ledger_hash: str | None = None) -> HttpJudge:
        """A view for one request: the ledger's nonce (a fresh one without a ledger), the
        request's ledger hash in every cache key, its own usage counters; the model client,
        cache and model are shared."""
        nonce = ledger_nonce(self._nonce_key, ledger_hash) if ledger_hash else new_nonce()
        return HttpJudge(
            self.client,
            self._variant,
            self._nonce_key,
            nonce=nonce,
            ledger_hash=ledger_hash,
            root=False,
        )

    async def ping(self) -> list[str]:
        """The ids of the models the server serves, for readiness checks (no retries)."""
        return await self.client.ping()

    async def resolve_model(self) -> str:
        """The configured model id, or the one model the server lists (asked once)."""
        return await self.client.resolve_model()

    async def entail(
        self, claim: Claim, premise: Premise, question: str | None = None
    ) -> EntailmentResult:
        return await self._entail(claim, premise, question, self._variant)

    async def probe_contradiction(
        self, claim: Claim, premise: Premise, question: str | None = None
    ) -> EntailmentResult:
        """P(contradicted), which the yes/no question lacks. After a yes/no verdict it is asked
        as a follow-up turn of that conversation (the server reuses its cached evidence prefix);
        otherwise as the three-way label-only question."""
        variant: PromptVariant = "contradiction" if self._variant == "yes_no" else "label_only"
        return await self._entail(claim, premise, question, variant)

    async def _entail(
        self, claim: Claim, premise: Premise, question: str | None, variant: PromptVariant
    ) -> EntailmentResult:
        settings = self.client.settings
        question = question.strip() if question and question.strip() else None
        model = await self.resolve_model()
        prompt = entail_prompt(premise, claim.text, question, nonce=self.nonce, variant=variant)
        decoding = self._decoding(logprobs=settings.logprobs)
        cache = self.client.cache
        key: str | None = None
        if cache is not None:
            key = verdict_key(
                ledger_hash=self.ledger_hash,
                claim=claim.text,
                question=question,
                premise=premise,
                model=model,
                template_hash=prompt.template_hash,
                variant=variant,
                decoding=decoding,
            )
            hit = cache.get(key)
            if hit is not None:
                hit.trace = hit.trace.model_copy(update={"window": premise.window_index})
                return hit

        with premise_scope(premise):
            done = await self._complete(prompt, verdict_model(variant), model, decoding)
        verdict = done.parsed
        score = read_score(
            done.completion,
            verdict.label,
            variant,
            allow_label_only=settings.allow_label_only,
            requested=settings.logprobs,
        )
        trace = JudgeTrace(
            model=model,
            template=f"{prompt.template}:{variant}",
            template_hash=prompt.template_hash,
            calls=done.calls,
            prompt_tokens=done.prompt_tokens,
            completion_tokens=done.completion_tokens,
            window=premise.window_index,
            raw_label=verdict.label,
            latency_s=done.latency_s,
        )
        reason = verdict.reason.strip()
        if score.label_only:
            reason = f"{LABEL_ONLY_NOTE}; {reason}" if reason else LABEL_ONLY_NOTE
        result = EntailmentResult(
            label=verdict.label,
            reason=reason,
            p_supported=score.p_supported,
            p_contradicted=score.p_contradicted,
            evidence_quote=verdict.evidence_quote.strip() or None,
            evidence_ids=list(dict.fromkeys(verdict.evidence_ids)),
            trace=trace,
            extra=score.extra,
        )
        if cache is not None and key is not None:
            cache.put(key, result)
        return result

    async def decompose(
        self, sentence: str, context: str, question: str | None = None
    ) -> list[str]:
        """Atomic, decontextualised facts of ``sentence`` (1 to 8, each at most 300 characters).

        ``context`` is the answer text before the sentence, used to resolve references.
        """
        model = await self.resolve_model()
        prompt = decompose_prompt(sentence, context, question, nonce=self.nonce)
        inputs = {"sentence": sentence, "context": context, "question": question}
        return await self._cached_texts("decompose", inputs, prompt, model, Facts, _facts)

    async def main_conclusion(self, answer: str, question: str | None = None) -> str:
        """The answer's main conclusion, stated as one claim."""
        model = await self.resolve_model()
        prompt = conclusion_prompt(answer, question, nonce=self.nonce)
        inputs = {"answer": answer, "question": question}
        texts = await self._cached_texts(
            "conclusion", inputs, prompt, model, Conclusion, _conclusion
        )
        return texts[0]

    async def _cached_texts(
        self,
        kind: str,
        inputs: Mapping[str, str | None],
        prompt: RenderedPrompt,
        model: str,
        response_model: type[M],
        read: Callable[[M], list[str]],
    ) -> list[str]:
        """A text call served from the verdict cache when the same request made it before, so
        an identical request verified again makes no judge call at all."""
        decoding = self._decoding(logprobs=False)
        cache = self.client.cache
        key: str | None = None
        if cache is not None:
            key = call_key(
                kind=kind,
                ledger_hash=self.ledger_hash,
                inputs=inputs,
                model=model,
                template_hash=prompt.template_hash,
                decoding=decoding,
            )
            hit = cache.get_texts(key)
            if hit is not None:
                return hit
        done = await self._complete(prompt, response_model, model, decoding)
        texts = read(done.parsed)
        if cache is not None and key is not None:
            cache.put_texts(key, texts)
        return texts

    async def aclose(self) -> None:
        """Close the HTTP client if this judge created it (views never close it)."""
        if self._root and self.client.owns_client:
            await self.client.close()

    async def __aenter__(self) -> HttpJudge:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def _decoding(self, *, logprobs: bool) -> dict[str, Any]:
        return self.client.decoding(logprobs=logprobs, top_logprobs=TOP_LOGPROBS)

    async def _complete(
        self, prompt: RenderedPrompt, response_model: type[M], model: str, decoding: dict[str, Any]
    ) -> Completed[M]:
        return await self.client.complete(prompt, response_model, model, decoding, self.usage)


def _facts(parsed: Facts) -> list[str]:
    return list(parsed.facts)


def _conclusion(parsed: Conclusion) -> list[str]:
    return [parsed.conclusion]


def build_http_judge(
    settings: Settings,
    *,
    base_url: str | None = None,
    model: str | None = None,
    http_client: httpx.AsyncClient | None = None,
    cache: VerdictCache | None = None,
    variant: VerdictVariant | None = None,
) -> HttpJudge:
    """The LLM judge over ``base_url`` (default ``settings.base_url``).

    ``model`` defaults to ``settings.model``, else the one model the server lists. Without
    ``http_client`` one is built with explicit timeouts and the fail-fast pool transport (and is
    closed by :meth:`HttpJudge.aclose`); a given client is used as it is and left open.
    ``cache=None`` disables caching (see :meth:`VerdictCache.from_settings`). ``variant`` picks
    the verdict field order (``label_first`` by default, or ``settings.verdict_variant``).
    """
    chosen = variant or getattr(settings, "verdict_variant", None) or DEFAULT_VARIANT
    if chosen not in VARIANTS:
        raise ConfigError(f"unknown verdict variant {chosen!r}; use one of {', '.join(VARIANTS)}")
    client = build_model_client(
        settings, base_url=base_url, model=model, http_client=http_client, cache=cache
    )
    return HttpJudge(
        client,
        cast(VerdictVariant, chosen),
        new_nonce_key(),
        nonce=new_nonce(),
        ledger_hash=None,
        root=True,
    )
