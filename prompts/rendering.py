"""Judge prompts: strict, sandboxed Jinja templates shipped in ``judge.prompts``.

Each template file holds a ``system`` block and a ``user`` block; both are rendered with the
same variables. Untrusted text (evidence, claim, question, answer) is only ever passed as a
variable, never rendered as template source, and is neutralised first so it cannot forge the
per-request fences that mark it as data.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from jinja2 import StrictUndefined, TemplateError
from jinja2.loaders import FunctionLoader
from jinja2.sandbox import SandboxedEnvironment

from judge.errors import ConfigError, VerifierFault
from judge.schemas.ledger import content_hash

PROMPTS_PACKAGE = "judge.prompts"

# Character substitutions are one code point for one code point, so every offset into the
# neutralised text is also an offset into the original text.
_ANGLE_RUN = re.compile(r"<{2,}|>{2,}")
# Special-token syntax: "<|im_start|>" and DeepSeek's full-width "<｜…｜>".
_SPECIAL_OPEN = re.compile(r"<[|｜]")
_SPECIAL_CLOSE = re.compile(r"[|｜]>")
# Chat-template markers of common model families, which servers parse as special tokens when
# they occur in a message: llama.cpp and Hugging Face tokenizers split every added token out of
# the rendered prompt, user text included (benchmarks/INJECTION.md). Qwen2.5's "<tool_call>"
# and "</tool_call>" are such tokens; so are reasoning models' "<think>" tags.
_ROLE_TAG = re.compile(
    r"</?s>|</?(?:start|end)_of_turn>|\[/?INST\]"
    r"|</?(?:tool_call|tool_response|think|bos|eos|pad|unk|mask|sep|cls)>",
    re.IGNORECASE,
)
_LOOKALIKE = str.maketrans({"<": "‹", ">": "›", "[": "［", "]": "］"})


def neutralise(text: str) -> str:
    """Defuse fence-like and role-tag-like sequences in untrusted text, keeping its length.

    ``<<<``/``>>>`` runs (the fence syntax), ``<|``/``|>`` (special-token syntax) and the
    chat-template markers above get look-alike characters, so no data can open or close a fence
    or a chat turn, whatever nonce it guesses, and no server reads a control token in it.
    """

    def swap(match: re.Match[str]) -> str:
        return match.group(0).translate(_LOOKALIKE)

    for pattern in (_ANGLE_RUN, _SPECIAL_OPEN, _SPECIAL_CLOSE, _ROLE_TAG):
        text = pattern.sub(swap, text)
    return text


def new_nonce() -> str:
    """A random fence nonce: 96 bits, so data cannot guess it."""
    return secrets.token_hex(12)


def new_nonce_key() -> bytes:
    """A secret for :func:`ledger_nonce`, drawn once per judge (per process)."""
    return secrets.token_bytes(32)


def ledger_nonce(key: bytes, ledger_hash: str) -> str:
    """The fence nonce of every request on one evidence ledger: 96 bits of an HMAC under a
    secret key, so data can no more guess it than a random one. Requests on the same evidence
    (a regenerated or repaired answer, another question on the same documents) then send the
    same evidence prefix, which the server's prefix cache reuses, and identical requests send
    identical prompts."""
    return hmac.new(key, ledger_hash.encode(), hashlib.sha256).hexdigest()[:24]


def fence(kind: str, nonce: str) -> tuple[str, str]:
    """The opening and closing markers of one fenced block."""
    return f"<<<{kind}-{nonce}>>>", f"<<<END-{kind}-{nonce}>>>"


@dataclass(frozen=True)
class Template:
    name: str
    source: str
    hash: str


@dataclass(frozen=True)
class RenderedPrompt:
    """The two messages of one judge call and the template that produced them."""

    template: str
    template_hash: str
    system: str
    user: str
    nonce: str
    # Later turns of the same conversation, (role, content), after the user message: a
    # follow-up question that reuses the first exchange's cached prefix.
    turns: tuple[tuple[str, str], ...] = ()

    def messages(self) -> list[dict[str, str]]:
        return [
            {"role": "system", "content": self.system},
            {"role": "user", "content": self.user},
            *({"role": role, "content": content} for role, content in self.turns),
        ]

    def followed_by(self, template: str, turns: tuple[tuple[str, str], ...]) -> RenderedPrompt:
        """This prompt continued by ``turns`` from ``template``; its hash covers both."""
        followup = load_template(template)
        return RenderedPrompt(
            template=template,
            template_hash=content_hash(self.template_hash + followup.hash),
            system=self.system,
            user=self.user,
            nonce=self.nonce,
            turns=self.turns + turns,
        )


def _read_source(name: str) -> str:
    if "/" in name or "\\" in name or not name.endswith(".j2"):
        raise ConfigError(f"invalid template name {name!r}")
    try:
        return resources.files(PROMPTS_PACKAGE).joinpath(name).read_text(encoding="utf-8")
    except (OSError, ModuleNotFoundError) as exc:
        raise ConfigError(f"template {name!r} not found in {PROMPTS_PACKAGE}: {exc}") from exc


@lru_cache(maxsize=1)
def _environment() -> SandboxedEnvironment:
    return SandboxedEnvironment(
        loader=FunctionLoader(_read_source),
        undefined=StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )


@cache
def load_template(name: str) -> Template:
    """The template's source and its content hash (``sha256:…``), recorded in every verdict."""
    source = _read_source(name)
    return Template(name=name, source=source, hash=content_hash(source))


def render_block(name: str, block: str) -> str:
    """A block of template ``name`` that takes no variables (no data), rendered."""
    env = _environment()
    try:
        compiled = env.get_template(name)
        return "".join(compiled.blocks[block](compiled.new_context({}))).strip()
    except KeyError as exc:
        raise ConfigError(f"template {name!r} lacks block {exc}") from exc
    except TemplateError as exc:
        raise ConfigError(f"template {name!r} failed to render: {exc}") from exc


def render(name: str, *, nonce: str, fences: tuple[str, ...], **variables: Any) -> RenderedPrompt:
    """Render the ``system`` and ``user`` blocks of template ``name``.

    ``fences`` names the fenced blocks the user message must contain; each opening and closing
    marker must occur exactly once there, else the prompt is refused.
    """
    template = load_template(name)
    env = _environment()
    try:
        compiled = env.get_template(name)
        context = compiled.new_context({"nonce": nonce, **variables})
        system = "".join(compiled.blocks["system"](context)).strip()
        context = compiled.new_context({"nonce": nonce, **variables})
        user = "".join(compiled.blocks["user"](context)).strip()
    except KeyError as exc:
        raise ConfigError(f"template {name!r} lacks block {exc}") from exc
    except TemplateError as exc:
        raise ConfigError(f"template {name!r} failed to render: {exc}") from exc
    for kind in fences:
        for marker in fence(kind, nonce):
            if user.count(marker) != 1:
                raise VerifierFault(f"prompt fence {kind} is not intact in template {name!r}")
    return RenderedPrompt(
        template=name, template_hash=template.hash, system=system, user=user, nonce=nonce
    )
