"""Configuration: defaults, a TOML or JSON config file, `JUDGE_*` variables, CLI flags."""

from __future__ import annotations

import difflib
import os
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from judge.inputs import strict_json
from judge.state import cache_directory, default_state_dir

# The steepest correction of the support score for the evidence length a setting may ask.
MAX_LENGTH_SLOPE = 3.0


class CitationPolicy(StrEnum):
    STRICT = "strict"  # an uncited factual claim fails as `uncited`
    SEARCH = "search"  # an uncited claim is aligned to the most similar passages


class GeneratorGrammar(StrEnum):
    """How drafts are constrained to cite every sentence (judge/answer/grammar.py)."""

    AUTO = "auto"  # probe the generator endpoint once per process and endpoint
    LLAMACPP = "llamacpp"  # llama.cpp's server: a GBNF "grammar" field
    VLLM = "vllm"  # vLLM: "structured_outputs" with a regular expression
    OFF = "off"  # the prompt's citation rule only


class OtherLanguages(StrEnum):
    """What becomes of a claim in a language the judge was not measured on."""

    UNVERIFIED = "unverified"
    JUDGE = "judge"


class EvidenceMode(StrEnum):
    SELECTED = "selected"  # the claim's best-matching evidence sentences (BM25) and neighbours
    WHOLE = "whole"  # the whole cited passages, in token windows
    BOTH = "both"  # both, one call each; the support score is the mean of the two
    # The whole passages when they fit in one token window, else the selected sentences: one
    # call per claim, and no support lost to a window boundary.
    AUTO = "auto"


class ConclusionPolicy(StrEnum):
    # An answer to a question: its parts can each be supported while the answer they add up to
    # (often left implicit) is not. That is what the main conclusion is judged for.
    QUESTION = "question"
    ALWAYS = "always"  # also for summaries and reports, whose sentences are already its claims
    NEVER = "never"


class ProbePolicy(StrEnum):
    # The probe only tells block (contradicted) from repair (unsupported): once an answer is
    # blocked for another reason, asking it changes no action, only a claim's label.
    UNLESS_BLOCKED = "unless_blocked"
    ALWAYS = "always"
    # The default: on the embedded 1.5B judge the probe's P(contradicted) ranks no better than
    # chance, and blocked faithful summaries more often than hallucinated ones
    # (benchmarks/history/accuracy-rounds-2026-11-29-to-12-03.md, fourth round).
    # A stronger judge earns it back.
    NEVER = "never"


class Extractor(StrEnum):
    SENTENCE = "sentence"  # one claim per sentence, no model call
    LLM = "llm"  # FActScore-style decomposition into atomic facts


# Settings read under an old name. stream_flush_chars cut a long run at its last blank and
# released it piece by piece; the limit stays, the run is now held and checked whole.
RENAMED = {"stream_flush_chars": "stream_max_sentence_chars"}


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="JUDGE_", extra="ignore")

    # Judge endpoint. No base_url means: start and use the embedded local judge. Several
    # replicas: a comma-separated list (or a TOML array), balanced by judge/judges/pool.py.
    base_url: str | None = None
    model: str | None = None
    api_key: str = "not-needed"
    timeout_s: float = Field(default=120.0, gt=0)
    connect_timeout_s: float = Field(default=5.0, gt=0)
    reasks: int = Field(default=1, ge=0, le=3, description="re-asks on invalid output only")
    http_retries: int = Field(default=1, ge=0, le=3, description="openai client retries on 5xx")
    max_tokens: int = Field(default=256, ge=16, le=4096)
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    logprobs: bool = True
    allow_label_only: bool = Field(
        default=False,
        description=(
            "accept verdicts without a readable score (servers without logprobs): the judge's "
            "label decides and each such verdict says so; off, a score-less verdict is an error"
        ),
    )
    concurrency: int = Field(default=2, ge=1, le=256)
    verdict_variant: str = Field(
        default="yes_no",
        description=(
            "judge output: yes_no (binary score, fastest) | label_only (three-way score) "
            "| label_first | quote_first (with reason and quoted evidence)"
        ),
    )
    judge_claim_sentences: bool = Field(
        default=True,
        description=(
            "also judge each sentence of a multi-sentence claim on the whole passages; the "
            "claim is as supported as its weakest sentence"
        ),
    )
    contradiction_probe: ProbePolicy = Field(
        default=ProbePolicy.NEVER,
        description=(
            "with the yes_no variant, ask claims it finds unsupported whether the evidence "
            "makes them false, so contradictions block apart from repairable gaps: never (the "
            "default: no better than chance on the embedded judge) | unless_blocked (in answer "
            "order, until the answer is blocked by another claim or a contradiction found; "
            "claims left unprobed stay unsupported) | always; true and false mean always and "
            "never"
        ),
    )

    # Pipeline.
    extractor: Extractor = Extractor.SENTENCE
    decompose_fallback: bool = Field(
        default=True, description="on a failed decomposition, judge the whole sentence (reported)"
    )
    check_conclusion: ConclusionPolicy = Field(
        default=ConclusionPolicy.QUESTION,
        description="once every claim passes, judge the answer's main conclusion too: "
        "question (only for an answer to a question) | always | never; true and false mean "
        "always and never",
    )
    citation_policy: CitationPolicy = CitationPolicy.STRICT
    judge_languages: list[str] = Field(
        default_factory=lambda: ["en"],
        description=(
            "the languages (ISO 639-1) the judge and its thresholds were measured on; a claim "
            "in another language that passes the exact checks is not judged as if it were"
        ),
    )
    other_languages: OtherLanguages = Field(
        default=OtherLanguages.UNVERIFIED,
        description=(
            "a claim in a language outside judge_languages: unverified (the default: it "
            "blocks, nothing is released on a judge not measured on it) | judge (judged, "
            "with a warning in the response)"
        ),
    )
    search_top_k: int = Field(default=2, ge=1, le=20)
    search_cover_k: int = Field(
        default=2,
        ge=0,
        le=20,
        description="under the search policy, the exact checks also read up to this many more "
        "passages, each holding claim words the most similar ones lack (the judge does not)",
    )
    search_whole_evidence: bool = Field(
        default=False,
        description="under the search policy, judge an uncited claim against the whole evidence "
        "when it fits one window (else against its search_top_k most similar passages)",
    )
    max_citations_per_claim: int = Field(default=4, ge=1)
    stuffing_min_passages: int = Field(default=3, ge=2)
    detect_stuffing: bool = True
    detect_injection: bool = Field(
        default=True,
        description="send claims whose evidence, text or question address the judge to review",
    )
    max_answer_chars: int = Field(default=20_000, ge=1)
    max_claims: int = Field(default=200, ge=1)
    max_passages: int = Field(default=500, ge=1)
    max_passage_chars: int = Field(default=200_000, ge=1)
    # Whole passages up to about 1,500 words go to the judge in one window: support split by a
    # window boundary is lost (benchmarks/history/accuracy-rounds-2026-11-29-to-12-03.md, step 15).
    window_tokens: int = Field(default=2000, ge=64)
    window_overlap_tokens: int = Field(default=100, ge=0)
    evidence_mode: EvidenceMode = Field(
        default=EvidenceMode.AUTO,
        description="what the judge sees: selected sentences, whole passages, both, or auto",
    )
    selection_top_sentences: int = Field(default=4, ge=1)
    selection_neighbours: int = Field(default=1, ge=0)

    # Decision thresholds on P(supported) and P(contradicted); see README "Thresholds".
    t_entail: float = Field(default=0.42, ge=0.0, le=1.0)
    # Off by default: 0.6 (with t_entail 0.35) scores better on the development claims judged
    # against their whole evidence, but worse on answers, whose claims are judged against the
    # short passages search finds, and it fails true claims on short passages
    # (benchmarks/history/accuracy-rounds-2026-11-29-to-12-03.md, eleventh round).
    length_slope: float = Field(
        default=0.0,
        ge=0.0,
        le=MAX_LENGTH_SLOPE,
        description="read P(supported) against the evidence length: log-odds moved by this "
        "times log(evidence characters / 1000), since the judge says yes more readily on short "
        "evidence (0: scores as read)",
    )
    # 0.44: the contradiction probe (a yes/no follow-up) at the operating point the three-way
    # probe had at 0.5 on the development claims
    # (benchmarks/history/accuracy-rounds-2026-11-29-to-12-03.md, third round).
    t_contra: float = Field(default=0.44, ge=0.0, le=1.0)
    t_answer: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="answer rule: the weakest judged claim's P(supported) an answer needs; "
        "below t_entail it tolerates borderline claims, above it is stricter (none: t_entail)",
    )
    calibration_file: Path | None = None

    # Policy.
    repair_min_kept_ratio: float = Field(default=0.5, ge=0.0, le=1.0)
    max_regenerations: int = Field(default=1, ge=0, le=3)

    # The generator behind the guard endpoint (`judge serve`, POST /v1/chat/completions).
    generator_base_url: str | None = None
    generator_model: str | None = Field(
        default=None, description="model id sent to the generator (default: the caller's)"
    )
    generator_api_key: str | None = Field(
        default=None, description="the generator's API key (default: api_key)"
    )
    generator_grammar: GeneratorGrammar = Field(
        default=GeneratorGrammar.AUTO,
        description="constrain drafts (judge answer, the guard endpoint) to cite every sentence "
        "or refuse: auto (probe the endpoint), llamacpp, vllm, or off (the prompt only)",
    )

    # Streams (`stream: true` on the guard endpoint, Verifier.verify_stream, `judge verify -`).
    stream_max_sentence_chars: int = Field(
        default=2000,
        ge=40,
        le=20_000,
        description="the longest sentence a stream verifies, and the longest run of text it "
        "holds back waiting for a sentence end: past it the stream stops (unreadable answer), "
        "none of the run released",
    )
    stream_max_pending_sentences: int = Field(
        default=8,
        ge=1,
        le=200,
        description="sentences cut and not yet sent to a stream's reader; past this the "
        "generator is not read until the reader catches up",
    )
    stream_send_timeout_s: float = Field(
        default=30.0,
        gt=0,
        description="a streaming client that takes no data for this long is treated as gone: "
        "the generator and pending judge calls are cancelled",
    )
    stream_first_text_timeout_s: float = Field(
        default=20.0,
        gt=0,
        description="seconds from a streamed request to the generator's first text "
        "(keep-alives and empty deltas are not text); past it: HTTP 502, the generator "
        "cancelled",
    )
    stream_text_gap_timeout_s: float = Field(
        default=15.0,
        gt=0,
        description="seconds from one text chunk of the generator to the next (keep-alives and "
        "empty deltas do not count); past it the stream ends as a generator fault",
    )
    stream_deadline_s: float = Field(
        default=300.0,
        gt=0,
        description="seconds from a streamed request to its last chunk, whatever is under way "
        "(generation, judge calls); past it the stream ends as a verifier error",
    )

    # State.
    state_dir: Path = Field(default_factory=default_state_dir)
    cache_enabled: bool = True
    # Record `judge verify` runs in the audit log too (the service always records).
    audit_cli: bool = False
    local_model: str = "qwen2.5-coder-1.5b-instruct-q4_k_m"
    local_idle_timeout_s: float = Field(
        default=900.0,
        ge=0.0,
        description="the embedded llama.cpp judge server stops itself once it has served no "
        "request for this long and no process holds it open (0: it runs until `judge local "
        "down`)",
    )

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, data: Any) -> Any:
        # A setting given under its old name (in code or a settings file) is the new one.
        if isinstance(data, dict) and any(old in data for old in RENAMED):
            data = dict(data)
            for old, new in RENAMED.items():
                if old in data:
                    data.setdefault(new, data.pop(old))
        return data

    @field_validator("check_conclusion", "contradiction_probe", mode="before")
    @classmethod
    def _policy_from_bool(cls, value: Any) -> Any:
        # Both settings were booleans before they had a third value; keep old configs working.
        if isinstance(value, str):
            value = {"true": True, "1": True, "false": False, "0": False}.get(
                value.strip().lower(), value
            )
        if isinstance(value, bool):
            return "always" if value else "never"
        return value

    @field_validator("base_url", mode="before")
    @classmethod
    def _join_base_urls(cls, value: Any) -> Any:
        from judge.settings_check import normalise_base_urls

        return normalise_base_urls(value)

    @property
    def base_urls(self) -> list[str]:
        """Every configured judge endpoint (one unless a pool is configured)."""
        return self.base_url.split(",") if self.base_url else []

    @property
    def cache_dir(self) -> Path:
        return cache_directory(self.state_dir)


def config_path(config_file: Path | None = None) -> Path | None:
    """The settings file a run reads: the one named, else ``JUDGE_CONFIG``, else none."""
    return config_file or (
        Path(os.environ["JUDGE_CONFIG"]) if "JUDGE_CONFIG" in os.environ else None
    )


def load_settings(config_file: Path | None = None, **overrides: Any) -> Settings:
    """Build settings: defaults < config file < environment < explicit overrides (CLI flags)."""
    return settings_with_sources(config_file, **overrides)[0]


def settings_with_sources(
    config_file: Path | None = None, **overrides: Any
) -> tuple[Settings, dict[str, str]]:
    """The settings ``load_settings`` builds, and where each one not left at its default came
    from: ``config file PATH``, ``JUDGE_NAME`` or ``the command line``."""
    file_values: dict[str, Any] = {}
    path = config_path(config_file)
    if path is not None:
        file_values = _read_config_file(path)
        _refuse_unknown(file_values, f"config file {path}")
    _refuse_unknown(overrides, "settings overrides")
    from judge.settings_check import environment_settings, refuse_unknown_environment, validated

    refuse_unknown_environment(Settings)
    from_env = environment_settings(Settings)
    given = {k: v for k, v in overrides.items() if v is not None}
    sources = {
        **dict.fromkeys(file_values, f"config file {path}"),
        **{k: f"JUDGE_{k.upper()}" for k in from_env},
        **dict.fromkeys(given, "the command line"),
    }
    settings = validated(Settings, {**file_values, **from_env, **given}, sources=sources)
    return settings, sources


def _refuse_unknown(values: dict[str, Any], where: str) -> None:
    """A misspelt or retired setting is an error, not a silently ignored key."""
    from judge.errors import ConfigError

    unknown = sorted(set(values) - set(Settings.model_fields) - set(RENAMED))
    if not unknown:
        return
    hints = []
    for key in unknown:
        close = difflib.get_close_matches(key, Settings.model_fields, n=1)
        hints.append(f"{key!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    raise ConfigError(f"unknown setting {', '.join(hints)} in {where}")


def _read_config_file(path: Path) -> dict[str, Any]:
    from judge.errors import ConfigError

    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from exc
    try:
        if path.suffix == ".toml":
            import tomllib

            data = tomllib.loads(raw)
        else:
            data = strict_json.loads(raw)
    except ValueError as exc:
        raise ConfigError(f"config file {path} is not valid: {exc}") from exc
    except strict_json.DuplicateKeyError as exc:
        raise ConfigError(f"config file {path} holds a {exc.describe()}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"config file {path} must hold a table of settings")
    return data
