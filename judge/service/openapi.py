"""The service's OpenAPI schema, committed as ``schemas/openapi.json``.

The request bodies of ``/v1/verify`` and ``/v1/chat/completions`` are parsed by hand (size
checked first, one-line errors), so FastAPI cannot see their models; their schemas are added to
the components here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from judge import schemas
from judge.schemas import VerifyRequest
from judge.service.chat_models import ChatCompletionRequest
from judge.service.guard import OPEN_PATHS

REF_TEMPLATE = "#/components/schemas/{model}"
OPENAPI_PATH = Path(schemas.__file__).resolve().parent / "openapi.json"


def build_openapi(app: FastAPI) -> dict[str, Any]:
    schema = get_openapi(
        title=app.title, version=app.version, description=app.description, routes=app.routes
    )
    components = schema.setdefault("components", {})
    models = components.setdefault("schemas", {})
    for model in (VerifyRequest, ChatCompletionRequest):
        request_schema = model.model_json_schema(ref_template=REF_TEMPLATE)
        for name, definition in request_schema.pop("$defs", {}).items():
            if name in models and models[name] != definition:
                raise ValueError(f"two different schemas named {name!r}")
            models[name] = definition
        models[model.__name__] = request_schema
    components["securitySchemes"] = {
        "bearer": {
            "type": "http",
            "scheme": "bearer",
            "description": "Required when the service was started with a token.",
        }
    }
    for path, operations in schema.get("paths", {}).items():
        if path in OPEN_PATHS:
            continue
        for operation in operations.values():
            operation["security"] = [{"bearer": []}]
    return schema


def render_openapi(app: FastAPI) -> str:
    """The schema as committed: sorted keys, two-space indent, final newline."""
    return json.dumps(app.openapi(), indent=2, sort_keys=True) + "\n"
