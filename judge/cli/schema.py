"""`judge schema`: write the JSON Schemas of the request and response models."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from judge.schemas import VerifyRequest, VerifyResponse

SCHEMA_FILES: dict[str, type[BaseModel]] = {
    "request.json": VerifyRequest,
    "response.json": VerifyResponse,
}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("schema", help="write the request and response JSON Schemas")
    parser.add_argument("--out", type=Path, default=Path("schemas"), help="output folder")
    parser.set_defaults(run=run)


def generated_schemas() -> dict[str, dict[str, Any]]:
    return {name: model.model_json_schema() for name, model in SCHEMA_FILES.items()}


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def run(args: argparse.Namespace) -> int:
    args.out.mkdir(parents=True, exist_ok=True)
    for name, schema in generated_schemas().items():
        (args.out / name).write_text(render(schema), encoding="utf-8")
        print(args.out / name)
    return 0
