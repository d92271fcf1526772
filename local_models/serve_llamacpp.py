"""Run llama.cpp's OpenAI-compatible server on a GGUF file until SIGTERM or SIGINT.

``python -m judge.local_models.serve_llamacpp --model FILE --port N --alias NAME``

xllamacpp embeds llama.cpp's C++ server: constructing ``xllamacpp.Server`` loads the model and
starts the HTTP listener on its own threads, so this process only has to keep it alive. The
server module starts this as a detached process; it is also usable by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType

from .holders import live_holders
from .idle import IdleWatch, read_metrics, retire

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
    parser.add_argument(
        "--state-file",
        help="exit once this JSON record no longer names this process (its state dir was "
        "deleted, or another server replaced it)",
    )
    parser.add_argument(
        "--idle-timeout-s",
        type=float,
        default=0.0,
        help="exit after this many seconds without a request while no process holds the "
        "server open (needs --state-file for the holders; 0: never)",
    )
    parser.add_argument(
        "--orphan-grace-s", type=float, default=30.0, help="seconds before the first check"
    )
    parser.add_argument("--orphan-check-s", type=float, default=5.0, help="seconds between checks")
    return parser.parse_args(argv)


class OrphanWatch:
    """A server nobody can find any more is a leak: a test's temporary state dir was deleted
    under it, or its record was replaced. It should go away by itself."""

    def __init__(self, state_file: str | None, grace_s: float, every_s: float = 5.0) -> None:
        self.state_file = state_file
        self.next_check = time.monotonic() + grace_s
        self.every_s = every_s
        self.misses = 0

    def orphaned(self) -> bool:
        if self.state_file is None or time.monotonic() < self.next_check:
            return False
        self.next_check = time.monotonic() + self.every_s
        try:
            with open(self.state_file, encoding="utf-8") as fh:
                recorded = json.load(fh).get("pid")
        except (OSError, ValueError, AttributeError):
            recorded = None
        self.misses = 0 if recorded == os.getpid() else self.misses + 1
        return self.misses >= 2  # two checks apart: never act on one torn read


def _idle_watch(args: argparse.Namespace) -> IdleWatch:
    host = "127.0.0.1" if args.host in ("0.0.0.0", "") else args.host
    metrics_url = f"http://{host}:{args.port}/metrics"
    server_dir = Path(args.state_file).parent if args.state_file else None
    return IdleWatch(
        args.idle_timeout_s,
        metrics=lambda: read_metrics(metrics_url),
        held=lambda: live_holders(server_dir) if server_dir is not None else 0,
    )


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
    watch = OrphanWatch(args.state_file, args.orphan_grace_s, args.orphan_check_s)
    idle = _idle_watch(args)
    while not stop.wait(min(1.0, args.orphan_check_s)):
        if watch.orphaned():
            print(
                f"serve_llamacpp: {args.state_file} no longer names this server; exiting",
                file=sys.stderr,
                flush=True,
            )
            break
        if idle.idle() and (args.state_file is None or retire(Path(args.state_file), os.getpid())):
            print(
                f"serve_llamacpp: no request for {args.idle_timeout_s:g} s and no process "
                "holds the server; exiting",
                file=sys.stderr,
                flush=True,
            )
            break

    # Tearing the native server down should be quick; never let it keep the process alive.
    watchdog = threading.Timer(_SHUTDOWN_GRACE_S, os._exit, args=(0,))
    watchdog.daemon = True
    watchdog.start()
    print("serve_llamacpp: stopping", file=sys.stderr, flush=True)
    del server
    return 0


if __name__ == "__main__":
    # A normal exit, not os._exit: llama.cpp logs from a worker thread that only flushes when
    # the process tears down, and the log is what explains a failed start.
    sys.exit(main())
