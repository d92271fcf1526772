"""Property-based fuzzing of request bodies: the service answers 200 or a 4xx naming a field,
never a 5xx; the CLI's parse path raises only an InputError naming the field, never another
exception. The service runs in process with the exact checks only (no judge calls), so the
examples stay fast."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from judge.audit.log import AuditLog
from judge.errors import InputError
from judge.inputs.request import parse_json, parse_request
from judge.service.app import ServeOptions, create_app
from tests.support.fake_judge import fake_settings

EXAMPLES = 1000  # through the service; the parse path alone gets fewer, it is the same code
PARSE_EXAMPLES = 300

# Text with the characters that broke parsing before: lone surrogates, controls, bidi and
# invisible characters, look-alike digits, non-BMP characters.
_AWKWARD = st.sampled_from(
    ["\ud800", "\udfff", "\x00", "\u202e", "\u200b", "\ufeff", "Ƽ", "Ꮞ", "Ⅰ", "𝟓", "[S1]", "%"]
)
TEXT = st.lists(st.one_of(st.text(max_size=8), _AWKWARD), max_size=6).map("".join)
SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    TEXT,
)
VALUE = st.recursive(
    SCALAR,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TEXT, inner, max_size=3)),
    max_leaves=5,
)
PASSAGE = st.fixed_dictionaries(
    {"id": st.one_of(st.just("S1"), TEXT), "text": TEXT},
    optional={"source": VALUE, "sha256": VALUE, "extra": VALUE},
)
REQUEST = st.fixed_dictionaries(
    {},
    optional={
        "evidence": st.one_of(st.lists(PASSAGE, max_size=3), VALUE),
        "answer": st.one_of(TEXT, VALUE),
        "question": st.one_of(TEXT, VALUE),
        "claims": st.one_of(
            st.lists(st.fixed_dictionaries({"text": TEXT, "chunk_ids": VALUE}), max_size=3),
            VALUE,
        ),
        "first_tier": VALUE,
        "unknown_field": VALUE,
    },
)


def _body(request: dict[str, Any], mangle: int) -> bytes:
    """The request as bytes a client might send: JSON, with a BOM, in UTF-16, truncated, or
    with a huge integer; surrogates are kept as JSON escapes."""
    text = json.dumps(request)
    if mangle == 1:
        return b"\xef\xbb\xbf" + text.encode()
    if mangle == 2:
        return text.encode("utf-16")
    if mangle == 3:
        return text.encode()[: max(1, len(text) // 2)]
    if mangle == 4:
        return text.replace("{", '{"huge": ' + "9" * 5000 + ", ", 1).encode()
    if mangle == 5:
        return b"\xff\xfe\xfa" + text.encode()
    return text.encode()


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    tmp = tmp_path_factory.mktemp("fuzz")
    audit = AuditLog.open(tmp / "audit.sqlite3")
    app = create_app(
        fake_settings(state_dir=tmp), ServeOptions(use_judge=False), judge=None, audit=audit
    )
    try:
        with TestClient(app, raise_server_exceptions=False) as test_client:
            yield test_client
    finally:
        audit.close()


FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@settings(FUZZ, max_examples=PARSE_EXAMPLES)
@given(request=REQUEST, mangle=st.integers(min_value=0, max_value=5))
def test_cli_parse_path_only_raises_input_errors_naming_a_field(
    request: dict[str, Any], mangle: int
) -> None:
    try:
        parse_request(parse_json(_body(request, mangle), field="request", source="request.json"))
    except InputError as exc:
        assert exc.field, exc
        assert "\n" not in str(exc)


@FUZZ
@given(request=REQUEST, mangle=st.integers(min_value=0, max_value=5))
def test_service_answers_200_or_a_4xx_naming_a_field_never_5xx(
    client: TestClient, request: dict[str, Any], mangle: int
) -> None:
    reply = client.post(
        "/v1/verify", content=_body(request, mangle), headers={"content-type": "application/json"}
    )
    assert reply.status_code < 500, reply.text
    if reply.status_code >= 400:
        error = reply.json()
        assert error.get("field"), error
        assert "\n" not in error["detail"]
