"""Convert a GGUF file into a Hugging Face safetensors folder that vLLM can serve.

vLLM loads safetensors, not GGUF. transformers reads the GGUF (weights, config, tokenizer and
its chat template), dequantises it, and writes a plain checkpoint:

    # in an environment with this package, torch==2.13.0 (CPU is enough), transformers, gguf:
    python -m judge.local_models.convert_gguf --model qwen2.5-coder-1.5b-instruct-q4_k_m
    # or anywhere with torch, transformers and gguf, on a GGUF file:
    python local_models/convert_gguf.py --gguf FILE.gguf --out DIR

The registry route verifies (and if needed assembles) the GGUF first and writes to the folder
``judge local up --backend vllm`` looks in by default. The checkpoint is dequantised, so it is
bigger than the GGUF: about 3.4 GB in bfloat16 for the 1.5B model.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

_DTYPES = ("bfloat16", "float16", "float32")
_NEEDS = "pip install torch==2.13.0 transformers gguf (CPU wheels are enough)"


class ConversionError(Exception):
    """The conversion could not run or failed; the message says what to do."""


def convert(
    gguf: Path,
    out_dir: Path,
    dtype: str = "bfloat16",
    progress: Callable[[str], None] | None = None,
) -> Path:
    """Write ``gguf`` as a safetensors checkpoint with its tokenizer to ``out_dir``.

    The folder is built beside ``out_dir`` and renamed into place, so an interrupted conversion
    never leaves a folder that looks complete.
    """
    say = progress or (lambda _msg: None)
    if dtype not in _DTYPES:
        raise ConversionError(f"dtype must be one of {', '.join(_DTYPES)}, not {dtype!r}")
    if not gguf.is_file():
        raise ConversionError(f"GGUF file not found: {gguf}")
    # Everything needed is in the file; never wait on a model hub.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig
    except ImportError as exc:
        raise ConversionError(
            f"converting needs torch, transformers and gguf ({exc}): {_NEEDS}"
        ) from exc

    out_dir = out_dir.resolve()
    work = out_dir.with_name(f".{out_dir.name}.{os.getpid()}.partial")
    shutil.rmtree(work, ignore_errors=True)
    started = time.monotonic()
    try:
        say(f"reading and dequantising {gguf.name}")
        model = AutoModelForCausalLM.from_pretrained(
            str(gguf.parent),
            gguf_file=gguf.name,
            quantization_config=GgufConfig(dequantize=True),
            dtype=getattr(torch, dtype),
        )
        # The weights are now dense: a leftover quantization block would make vLLM look for
        # a GGUF quantizer it cannot use on these files.
        if hasattr(model.config, "quantization_config"):
            del model.config.quantization_config
        model.hf_quantizer = None
        tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        say(f"writing safetensors to {out_dir}")
        model.save_pretrained(str(work), safe_serialization=True)
        tokenizer.save_pretrained(str(work))
        if not (work / "config.json").is_file():
            raise ConversionError(f"transformers wrote no config.json into {work}")
        if out_dir.exists():
            shutil.rmtree(out_dir)
        os.replace(work, out_dir)
    except ConversionError:
        raise
    except Exception as exc:
        raise ConversionError(f"converting {gguf} failed: {type(exc).__name__}: {exc}") from exc
    finally:
        shutil.rmtree(work, ignore_errors=True)
    say(f"converted in {time.monotonic() - started:.0f} s: {out_dir}")
    return out_dir


def _registry_gguf(name: str, out: Path | None) -> tuple[Path, Path]:
    """The verified GGUF of a registry model and its default output folder."""
    # Imported here so the --gguf route runs without this package's dependencies.
    from judge.config import load_settings

    from .backends import default_hf_dir
    from .registry import get_model
    from .weights import ensure_weights

    settings = load_settings()
    gguf = ensure_weights(settings, get_model(name), _say)
    return gguf, out or default_hf_dir(settings, name)


def _say(message: str) -> None:
    print(f"convert_gguf: {message}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="convert_gguf", description="Convert a GGUF file to safetensors for vLLM."
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--model", help="registry model name (verified, assembled if needed)")
    source.add_argument("--gguf", type=Path, help="a GGUF file")
    parser.add_argument("--out", type=Path, help="output folder (required with --gguf)")
    parser.add_argument("--dtype", choices=_DTYPES, default="bfloat16")
    args = parser.parse_args(argv)
    try:
        if args.model:
            if __package__ in (None, ""):
                parser.error("--model needs the package: python -m judge.local_models.convert_gguf")
            gguf, out = _registry_gguf(args.model, args.out)
        else:
            if args.out is None:
                parser.error("--out is required with --gguf")
            gguf, out = args.gguf, args.out
        convert(gguf, out, args.dtype, _say)
    except Exception as exc:  # a JudgeError from the registry route, or a ConversionError
        _say(f"error: {exc}")
        return 1
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
