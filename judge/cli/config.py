"""`judge config`: the settings a run would use, and where each one comes from.

Settings come from defaults < a config file (``--config`` or ``JUDGE_CONFIG``) < ``JUDGE_*``
variables < command-line flags; a calibration file (``--calibration``, ``calibration_file``
or ``calibration.json`` in the state directory) then overrides the decision thresholds. This
prints the outcome, one setting a line, with secrets masked.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping
from enum import Enum
from pathlib import Path
from typing import Any

from judge.cli.common import add_judge_options, setting_flags
from judge.config import Settings, config_path, settings_with_sources
from judge.settings_check import READ_ELSEWHERE

DEFAULT = "default"
COMMAND_LINE = "command line"
MASK = "******** (set)"
SECRET_SETTINGS = frozenset({"api_key", "generator_api_key"})
SECRET_VARIABLES = frozenset({"JUDGE_SERVE_TOKEN"})
# What a calibration file decides in place of the settings of the same name.
CALIBRATED = ("t_entail", "t_contra", "t_answer", "length_slope")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "config",
        help="show the effective settings and where each comes from",
        description="Show the settings a run would use and where each comes from: default, "
        "config file, JUDGE_* environment variable, command line or calibration file. "
        "Secrets are masked.",
    )
    parser.add_argument("--json", action="store_true", help="print the settings as JSON")
    add_judge_options(parser, run_options=False)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    rows = effective_settings(args.config, setting_flags(args))
    variables = other_variables(os.environ)
    if args.json:
        print(json.dumps({"settings": rows, "variables": variables}, indent=2))
        return 0
    file = config_path(args.config)
    print("precedence: default < config file < JUDGE_* variable < command line")
    print(f"config file: {file if file is not None else 'none'}")
    width = max(len(name) for name in rows)
    value_width = min(40, max(len(_shown(row["value"])) for row in rows.values()))
    for name, row in rows.items():
        shown = _shown(row["value"])
        if name == "base_url" and row["value"] is None:
            shown = "none (the embedded judge)"
        print(f"{name:<{width}}  {shown:<{value_width}}  {row['from']}")
    if variables:
        print("other variables:")
        for name, value in variables.items():
            print(f"  {name}={_shown(value)}")
    return 0


def effective_settings(
    config_file: Path | None, flags: dict[str, Any]
) -> dict[str, dict[str, Any]]:
    """Each setting's effective value (JSON-ready, secrets masked) and where it came from."""
    settings, sources = settings_with_sources(config_file, **flags)
    values = settings.model_dump(mode="json")
    rows: dict[str, dict[str, Any]] = {}
    for name in Settings.model_fields:
        source = _source_name(sources.get(name))
        value = values[name]
        if name in SECRET_SETTINGS and value is not None and source != DEFAULT:
            value = MASK
        rows[name] = {"value": value, "from": source}
    _apply_calibration(settings, rows)
    return rows


def other_variables(environ: Mapping[str, str]) -> dict[str, str]:
    """The ``JUDGE_*`` variables that are set and read outside the settings, secrets masked."""
    return {
        name: MASK if name in SECRET_VARIABLES else environ[name]
        for name in sorted(READ_ELSEWHERE)
        if name in environ
    }


def _apply_calibration(settings: Settings, rows: dict[str, dict[str, Any]]) -> None:
    from judge.pipeline.entail.thresholds import active_thresholds

    thresholds = active_thresholds(settings)
    if thresholds.hash is None:  # no calibration file: the settings decide
        return
    for name in CALIBRATED:
        value = getattr(thresholds, name)
        if name == "length_slope" and value == getattr(settings, name):
            continue  # the file left it to the setting
        rows[name] = {"value": value, "from": f"calibration file {thresholds.source}"}


def _source_name(source: str | None) -> str:
    if source is None:
        return DEFAULT
    return COMMAND_LINE if source == "the command line" else source


def _shown(value: Any) -> str:
    """A value as one line of text: control characters escaped, as a terminal must not run
    them."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, list):
        return json.dumps(value)
    text = str(value)
    if not text.isprintable():
        text = text.encode("unicode_escape").decode("ascii")
    return text
