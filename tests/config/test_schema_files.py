import json
from pathlib import Path

from judge.cli.schema import generated_schemas

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


def test_committed_json_schemas_match_the_models() -> None:
    for name, schema in generated_schemas().items():
        committed = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
        assert committed == schema, f"schemas/{name} is stale: run `judge schema`"


def test_request_schema_names_both_answer_forms() -> None:
    properties = generated_schemas()["request.json"]["properties"]
    assert {"evidence", "answer", "claims", "question", "first_tier"} <= set(properties)
