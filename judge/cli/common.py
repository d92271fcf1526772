"""Options shared by the sub-commands that talk to a judge."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from judge.config import CitationPolicy, Extractor, Settings, load_settings


def add_judge_options(parser: argparse.ArgumentParser, *, run_options: bool = True) -> None:
    """The settings flags; with ``run_options``, also those that change a run but are no
    setting (``--no-judge``)."""
    group = parser.add_argument_group("judge")
    group.add_argument("--config", type=Path, help="settings file (.toml or .json)")
    group.add_argument(
        "--base-url",
        help="OpenAI-compatible endpoint, or several comma-separated (default: embedded judge)",
    )
    group.add_argument("--model", help="model id on the endpoint")
    group.add_argument("--api-key", help="API key for the endpoint")
    group.add_argument("--timeout", type=float, dest="timeout_s", help="seconds per judge call")
    group.add_argument("--concurrency", type=int, help="claims judged at once")
    group.add_argument(
        "--policy",
        dest="citation_policy",
        choices=[p.value for p in CitationPolicy],
        help="uncited claims: fail (strict) or align by search",
    )
    group.add_argument("--extractor", choices=[e.value for e in Extractor], help="claim extraction")
    group.add_argument("--calibration", type=Path, dest="calibration_file", help="thresholds file")
    if run_options:
        group.add_argument(
            "--no-judge",
            action="store_true",
            help="exact checks only; claims that pass them are reported unverified",
        )
    group.add_argument("--no-cache", action="store_true", help="do not read or write the cache")


def settings_from_args(args: argparse.Namespace) -> Settings:
    return load_settings(getattr(args, "config", None), **setting_flags(args))


def setting_flags(args: argparse.Namespace) -> dict[str, Any]:
    """The settings the command-line flags of ``add_judge_options`` give, by setting name
    (None where a flag was not given)."""
    overrides: dict[str, Any] = {
        name: getattr(args, name, None)
        for name in (
            "base_url",
            "model",
            "api_key",
            "timeout_s",
            "concurrency",
            "citation_policy",
            "extractor",
            "calibration_file",
        )
    }
    if getattr(args, "no_cache", False):
        overrides["cache_enabled"] = False
    return overrides


def say_report_written(path: Path) -> None:
    """Tell where a report went, on stderr: standard output may be JSON read by a program."""
    print(f"judge: HTML report written to {path.resolve()}", file=sys.stderr)
