"""Run llama.cpp's OpenAI-compatible server on a GGUF file until SIGTERM or SIGINT.

``python -m judge.local_models.serve_llamacpp --model FILE --port N --alias NAME``

xllamacpp embeds llama.cpp's C++ server: constructing ``xllamacpp.Server`` loads the model and
starts the HTTP listener on its own threads, so this process only has to keep it alive. The
server module starts this as a detached process; it is also usable by hand.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from types import FrameType

_SHUTDOWN_GRACE_S = 10.0
_DESCRIPTION = "Run llama.cpp's OpenAI-compatible server on a GGUF file until SIGTERM or SIGINT."


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="serve_llamacpp", description=_DESCRIPTION)
    parser.add_argument("--model", required=True, help="GGUF file")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--alias", required=True, help="model id the API reports and accepts")
    parser.add_argument("--ctx-size", type=int, default=4096, help="context per slot, tokens")
    parser.add_argument("--parallel", type=int, default=2, help="concurrent request slots")
    parser.add_argument("--threads", type=int, default=usable_cpus())
    parser.add_argument(
        "--cache-ram-mib", type=int, default=1024, help="host memory for cached prompt prefixes"
    )
    parser.add_argument(
        "--n-predict", type=int, default=1024, help="output cap for requests without max_tokens"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not os.path.isfile(args.model):
        print(f"serve_llamacpp: model file not found: {args.model}", file=sys.stderr, flush=True)
        return 2
    try:
        import xllamacpp
    except ImportError:
        print(
            "serve_llamacpp: xllamacpp is not installed; install it: pip install -e '.[local]'",
            file=sys.stderr,
            flush=True,
        )
        return 2

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.model_alias = {args.alias}
    params.hostnames = [args.host]
    params.port = args.port
    # n_ctx is shared by the slots: each slot gets n_ctx / n_parallel tokens.
    params.n_ctx = args.ctx_size * args.parallel
    params.n_parallel = args.parallel
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.cache_prompt = True  # reuse the KV of a shared prefix (evidence before claim)
    params.cache_ram_mib = args.cache_ram_mib  # llama.cpp's default is 8 GiB
    params.n_predict = args.n_predict
    params.use_jinja = True  # the GGUF's own chat template; needed for response_format
    params.ui = False
    params.endpoint_metrics = True

    stop = threading.Event()

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    started = time.monotonic()
    try:
        server = xllamacpp.Server(params)
    except Exception as exc:  # the C++ side has logged the cause above this line
        print(f"serve_llamacpp: failed to start: {exc}", file=sys.stderr, flush=True)
        return 1
    print(
        f"serve_llamacpp: serving {args.alias} at {server.listening_address} "
        f"after {time.monotonic() - started:.1f} s",
        file=sys.stderr,
        flush=True,
    )
    while not stop.wait(1.0):
        pass

    # Tearing the native server down should be quick; never let it keep the process alive.
    watchdog = threading.Timer(_SHUTDOWN_GRACE_S, os._exit, args=(0,))
    watchdog.daemon = True
    watchdog.start()
    print("serve_llamacpp: stopping", file=sys.stderr, flush=True)
    del server
    return 0


if __name__ == "__main__":
    sys.stdout.flush()
    os._exit(main())  # skip interpreter teardown: native server threads may still be unwinding
