"""`judge local up | status | down | models`: manage the embedded local judge server.

Progress goes to stderr, results to stdout. ``JudgeError`` subclasses (``LocalServerError``,
``ConfigError``) propagate to the CLI, which maps them to exit codes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from judge.config import Settings, load_settings
from judge.errors import LocalServerError
from judge.local_models.idle import describe
from judge.local_models.registry import BACKENDS, MODELS
from judge.local_models.server import (
    STOP_TIMEOUT_S,
    ServerInfo,
    is_healthy,
    recorded_server,
    start_server,
    stop_server,
)
from judge.local_models.weights import locate_parts


def add_local_commands(local: argparse.ArgumentParser) -> None:
    """Add the subcommands to a ``judge local`` parser; each sets ``func(settings, args)``."""
    sub = local.add_subparsers(dest="local_command", required=True)
    up = sub.add_parser("up", help="start the local judge server (replacing a running one)")
    up.add_argument("--model", help=f"registry model (default: settings.local_model); {_names()}")
    up.add_argument("--backend", choices=BACKENDS, default="llamacpp")
    up.add_argument(
        "--model-dir",
        type=Path,
        help="vllm: Hugging Face safetensors folder; llamacpp: a GGUF file of your own",
    )
    up.add_argument(
        "--idle-timeout",
        type=_seconds,
        dest="idle_timeout_s",
        help="llamacpp: stop the server after this many seconds without a request "
        "(0: never; default: setting local_idle_timeout_s, 900)",
    )
    up.set_defaults(func=cmd_up)
    status = sub.add_parser("status", help="show the local judge server; exit 1 if none is up")
    status.add_argument("--json", action="store_true", help="print the server record as JSON")
    status.set_defaults(func=cmd_status)
    down = sub.add_parser(
        "down", help="stop the local judge server; returns once its processes have exited"
    )
    down.add_argument(
        "--timeout",
        type=_seconds,
        default=STOP_TIMEOUT_S,
        dest="timeout_s",
        help=f"seconds to wait after SIGTERM before SIGKILL (default {STOP_TIMEOUT_S:g})",
    )
    down.set_defaults(func=cmd_down)
    models = sub.add_parser("models", help="list the registry models and whether each is installed")
    models.set_defaults(func=cmd_models)


def cmd_up(settings: Settings, args: argparse.Namespace) -> int:
    idle_timeout_s = getattr(args, "idle_timeout_s", None)
    if idle_timeout_s is not None:
        settings = settings.model_copy(update={"local_idle_timeout_s": idle_timeout_s})
    info = start_server(
        settings,
        model=getattr(args, "model", None),
        backend=getattr(args, "backend", None) or "llamacpp",
        model_dir=getattr(args, "model_dir", None),
        progress=_progress,
    )
    _print_info(info)
    return 0


def cmd_status(settings: Settings, args: argparse.Namespace) -> int:
    info = recorded_server(settings)
    healthy = info is not None and is_healthy(info)
    if getattr(args, "json", False):
        record = {"running": info is not None, "healthy": healthy}
        if info is not None:
            record.update(info.to_json())
        print(json.dumps(record, indent=2))
    elif info is None:
        print("no local judge server is running")
    else:
        _print_info(info)
        if not healthy:
            print(f"status:   not healthy (starting, or stuck: see {info.log_path})")
    return 0 if healthy else 1


def cmd_down(settings: Settings, args: argparse.Namespace) -> int:
    stopped = stop_server(settings, getattr(args, "timeout_s", STOP_TIMEOUT_S))
    if stopped is None:
        _progress("no local judge server was running")
        return 0
    how = "did not exit on SIGTERM and was killed" if stopped.killed else "exited on SIGTERM"
    _progress(
        f"the {stopped.info.backend} server for {stopped.info.model} (pid {stopped.info.pid}) "
        f"{how}; it was gone after {stopped.seconds:.1f} s"
    )
    return 0


def cmd_models(settings: Settings, args: argparse.Namespace) -> int:
    for model in MODELS.values():
        try:
            locate_parts(model.source)
            installed = "installed"
        except LocalServerError:
            installed = f"not installed ({model.source.install_hint})"
        default = " (settings.local_model)" if model.name == settings.local_model else ""
        print(f"{model.name}{default}")
        print(f"  {model.description}")
        print(f"  purpose: {model.purpose.value}; {model.size_bytes / 1e6:.0f} MB; {installed}")
    return 0


def _print_info(info: ServerInfo) -> None:
    uptime = time.time() - info.started_at
    print(f"backend:  {info.backend}")
    print(f"model:    {info.model}")
    print(f"base_url: {info.base_url}")
    print(f"model_id: {info.model_id}")
    print(f"pid:      {info.pid} (up {uptime:.0f} s)")
    print(f"log:      {info.log_path}")
    if info.backend == "llamacpp":
        print(f"stops:    {describe(info.idle_timeout_s)}")
    else:
        print("stops:    with `judge local down`")
    print(f"use it:   export JUDGE_BASE_URL={info.base_url} JUDGE_MODEL={info.model_id}")


def _progress(message: str) -> None:
    print(f"judge local: {message}", file=sys.stderr, flush=True)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more seconds: {text!r}")
    return value


def _names() -> str:
    return ", ".join(MODELS)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("local", help="manage the embedded local judge server")
    add_local_commands(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    code: int = args.func(load_settings(), args)
    return code
