"""Whether a generator endpoint constrains decoding, and through which field.

``generator_grammar`` decides: ``llamacpp`` or ``vllm`` are taken as said, ``off`` never
constrains, and ``auto`` (the default) takes the embedded server's backend when the generator
is the embedded server, and otherwise probes the endpoint. The probe is one chat completion
of at most four tokens whose only allowed reply is ``[7]``: a server that applies the
constraint answers exactly that, one that ignores the field answers something else (a greeting),
and one that does not know it answers HTTP 4xx. llama.cpp's ``grammar`` is tried first, then
vLLM's ``structured_outputs``. The caller keeps the result (one probe per generator client: per
process for ``judge answer``, per service for ``judge serve``).

A probe that cannot reach the server, or gets HTTP 5xx, decides nothing: the drafts go without
a grammar for now, and say so. Whatever was decided, every constrained reply is checked against
the grammar again (:meth:`judge.answer.grammar.CitationGrammar.matches`): a server that
ignored it is noted, never trusted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import openai

from judge.answer.grammar import Dialect
from judge.config import GeneratorGrammar

__all__ = ["PROBE_REPLY", "GrammarSupport", "detect_support", "probe_fields", "unsupported"]

# Where the support was learnt: the setting, the embedded server's backend, a probe, a reply
# that broke the grammar, nowhere.
Source = Literal["setting", "server", "probe", "check", "none"]
PROBE_REPLY = "[7]"
PROBE_MAX_TOKENS = 4
_PROBE_MESSAGES = [{"role": "user", "content": "Say hello."}]
_NAMES = {Dialect.LLAMACPP: "llama.cpp grammar", Dialect.VLLM: "vLLM structured outputs"}
_PROMPT_ONLY = "drafts follow the prompt's citation rule only"


@dataclass(frozen=True)
class GrammarSupport:
    """How drafts are constrained: ``dialect`` (None: not at all), how that was learnt, the
    note a response carries when they are not, and the probe calls it took."""

    dialect: Dialect | None
    source: Source
    note: str | None = None
    probe_calls: int = 0

    @property
    def constrained(self) -> bool:
        return self.dialect is not None


def unsupported(why: str, *, source: Source = "none") -> GrammarSupport:
    """No grammar, with the reason as the note."""
    return GrammarSupport(None, source, f"{why}: {_PROMPT_ONLY}")


def probe_fields(dialect: Dialect) -> dict[str, Any]:
    """The request fields that allow only :data:`PROBE_REPLY`."""
    if dialect is Dialect.LLAMACPP:
        return {"grammar": 'root ::= "[7]"\n'}
    return {"structured_outputs": {"regex": r"\[7\]"}}


async def detect_support(
    client: openai.AsyncOpenAI, model: str, setting: GeneratorGrammar
) -> GrammarSupport:
    """The support ``setting`` names, or what probing the endpoint finds."""
    if setting is GeneratorGrammar.OFF:
        why = "constrained decoding is off (generator_grammar = off)"
        return unsupported(why, source="setting")
    if setting is not GeneratorGrammar.AUTO:
        return GrammarSupport(Dialect(setting.value), "setting")
    findings: list[str] = []
    calls = 0
    undecided = False
    for dialect in Dialect:
        calls += 1
        applied, finding = await _probe(client, model, dialect)
        if applied:
            return GrammarSupport(dialect, "probe", probe_calls=calls)
        undecided = undecided or applied is None
        findings.append(f"{_NAMES[dialect]}: {finding}")
    what = (
        "the generator endpoint could not be probed for constrained decoding"
        if undecided
        else "the generator endpoint does not constrain decoding"
    )
    support = unsupported(f"{what} ({'; '.join(findings)})", source="probe")
    return GrammarSupport(None, "probe", support.note, calls)


async def _probe(
    client: openai.AsyncOpenAI, model: str, dialect: Dialect
) -> tuple[bool | None, str]:
    """(True, _) when the server kept to the probe's constraint; (False, why) when it ignored
    or refused it; (None, why) when the probe could not tell."""
    try:
        completion = await client.with_options(max_retries=0).chat.completions.create(
            model=model,
            messages=_PROBE_MESSAGES,  # type: ignore[arg-type]
            max_tokens=PROBE_MAX_TOKENS,
            temperature=0.0,
            extra_body=probe_fields(dialect),
        )
    except openai.APIStatusError as exc:
        if 400 <= exc.status_code < 500:
            return False, f"refused (HTTP {exc.status_code})"
        return None, f"HTTP {exc.status_code}"
    except openai.APIError as exc:  # refused, reset, timed out: nothing learnt
        return None, type(exc).__name__
    choices = completion.choices or []
    text = (choices[0].message.content or "").strip() if choices else ""
    if text == PROBE_REPLY:
        return True, "applied"
    return False, "ignored"
