"""The service's lifecycle, its OpenAPI file, and the audit / stats / replay commands."""

import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from judge.audit.log import AuditLog
from judge.cli.app import build_parser, main
from judge.cli.replay import replay
from judge.cli.serve import TOKEN_ENV, read_token
from judge.config import Settings
from judge.errors import ConfigError, JudgeUnavailable
from judge.schemas import Label
from judge.service.app import ServeOptions, create_app
from judge.service.openapi import OPENAPI_PATH, render_openapi
from tests.support.fake_judge import (
    FakeJudgeServer,
    connection_refused,
    fake_settings,
    requested_variant,
    verdict_response,
)

EVIDENCE = [
    {"id": "P1", "source": "docs/policy.md",
     "text": "Unopened items may be returned within 30 days of delivery for a full refund."},
    {"id": "F1", "source": "forum/rumours",
     "text": "A user wrote that refunds arrived quickly after the warehouse got the parcel."},
    {"id": "T1", "source": "docs/timing.md",
     "text": "Refunds are issued within 5 to 7 business days after the item is received."},
]  # fmt: skip
TRUE_POLICY = {"text": "Unopened items may be returned within 30 days.", "chunk_id": "P1"}
FALSE_POLICY = {"text": "Opened items may be exchanged at any store.", "chunk_id": "P1"}
TRUE_TIMING = {"text": "Refunds are issued within 5 to 7 business days.", "chunk_id": "T1"}
FALSE_FORUM = [
    {"text": "Every refund is paid in cash.", "chunk_id": "F1"},
    {"text": "Refunds include a bonus voucher.", "chunk_id": "F1"},
]


def test_committed_openapi_matches_the_app() -> None:
    assert OPENAPI_PATH.read_text(encoding="utf-8") == render_openapi(create_app(Settings())), (
        "schemas/openapi.json is stale: run `judge serve --write-openapi schemas/openapi.json`"
    )


def test_write_openapi_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "openapi.json"
    assert main(["serve", "--write-openapi", str(out)]) == 0
    schema = json.loads(out.read_text())
    verify = schema["paths"]["/v1/verify"]["post"]
    assert verify["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/VerifyRequest"
    }
    assert "first_tier" in schema["components"]["schemas"]["VerifyRequest"]["properties"]
    assert verify["security"] == [{"bearer": []}]
    assert "security" not in schema["paths"]["/healthz"]["get"]


def test_lifespan_opens_and_closes_the_audit_log(tmp_path: Path) -> None:
    path = tmp_path / "elsewhere" / "audit.sqlite3"
    settings = fake_settings(state_dir=tmp_path / "state")
    app = create_app(settings, ServeOptions(audit_path=path), judge=FakeJudgeServer().judge())
    with TestClient(app) as client:
        reply = client.post("/v1/verify", json={"evidence": EVIDENCE, "claims": [TRUE_POLICY]})
        assert reply.status_code == 200
    with AuditLog.open(path, create=False) as audit:
        assert audit.get(reply.json()["request_id"]) is not None
    assert not (tmp_path / "state" / "audit.sqlite3").exists()


def test_judge_that_cannot_be_opened_blocks_everything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    @contextlib.asynccontextmanager
    async def open_judge(_settings: Any) -> AsyncIterator[Any]:
        raise JudgeUnavailable("embedded judge failed to start")
        yield

    monkeypatch.setattr("judge.pipeline.entail.connect.open_judge", open_judge)
    app = create_app(fake_settings(state_dir=tmp_path), ServeOptions())
    with TestClient(app) as client:
        ready = client.get("/readyz")
        assert ready.status_code == 503
        assert "failed to start" in ready.json()["checks"]["judge"]
        body = client.post("/v1/verify", json={"evidence": EVIDENCE, "claims": [TRUE_POLICY]})
        assert body.status_code == 200
        assert body.json()["action"] == "block"
        assert body.json()["verdicts"][0]["label"] == "verifier_error"


def serve_requests(
    tmp_path: Path, requests: list[dict[str, Any]], fake: FakeJudgeServer | None = None
) -> tuple[Path, list[dict[str, Any]]]:
    """Run requests through the service (ASGI, in process); returns the audit path and bodies."""
    path = tmp_path / "audit.sqlite3"
    settings = fake_settings(state_dir=tmp_path)
    fake = fake or FakeJudgeServer()
    app = create_app(settings, ServeOptions(audit_path=path), judge=fake.judge(settings))
    with TestClient(app) as client:
        bodies = [client.post("/v1/verify", json=r).json() for r in requests]
    return path, bodies


def test_stats_names_the_source_with_most_failures_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    requests = [
        {"evidence": EVIDENCE, "claims": [TRUE_POLICY, TRUE_TIMING, *FALSE_FORUM]},
        {"evidence": EVIDENCE, "claims": [TRUE_POLICY, FALSE_FORUM[0]]},
        {"evidence": EVIDENCE, "claims": [FALSE_POLICY, TRUE_TIMING]},
        {"evidence": EVIDENCE, "claims": [TRUE_TIMING]},
    ]
    path, bodies = serve_requests(tmp_path, requests)
    assert [b["action"] for b in bodies].count("pass") == 1

    assert main(["stats", "--audit-db", str(path), "--since", "1h"]) == 0
    text = capsys.readouterr().out
    listed = text.split("top failing sources", 1)[1].splitlines()[1:]
    assert listed[0].split()[:2] == ["forum/rumours", "3/3"]
    assert listed[1].split()[:2] == ["docs/policy.md", "1/3"]
    assert len(listed) == 2  # docs/timing.md never failed
    assert "answers since 1h: 4" in text
    assert "pass 1" in text.split("by action:", 1)[1].splitlines()[0]

    assert main(["stats", "--audit-db", str(path), "--since", "1h", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["answers"] == sum(summary["answers_by_action"].values()) == 4
    assert summary["top_failing_sources"][0] == {
        "source": "forum/rumours", "failing": 3, "claims": 3, "rate": 1.0
    }  # fmt: skip
    assert summary["verdicts_by_label"]["supported"] == 5
    assert summary["latency_s"]["p99"] >= summary["latency_s"]["p50"] > 0
    assert summary["cache_hit_ratio"] == 0.0

    future = "2999-01-01T00:00:00Z"
    assert main(["stats", "--audit-db", str(path), "--since", future, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["answers"] == 0


def test_stats_counts_verifier_errors_by_class(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    down = FakeJudgeServer(lambda _request: connection_refused())
    path, _ = serve_requests(tmp_path, [{"evidence": EVIDENCE, "claims": [TRUE_POLICY]}], down)
    assert main(["stats", "--audit-db", str(path), "--since", "1h", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["verifier_errors_by_class"] == {"JudgeUnavailable": 1}
    assert summary["answers_by_action"] == {"block": 1}
    assert summary["top_failing_sources"] == []  # the judge's fault, not the source's


def test_audit_show_and_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    requests = [{"evidence": EVIDENCE, "claims": [TRUE_POLICY]}] * 3
    path, bodies = serve_requests(tmp_path, requests)
    rid = bodies[1]["request_id"]

    assert main(["audit", "show", rid, "--audit-db", str(path)]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["id"] == rid
    assert shown["response"] == bodies[1]
    assert shown["request"]["evidence"][0]["hash"].startswith("sha256:")

    out = tmp_path / "export.jsonl"
    assert (
        main(["audit", "export", "--since", "1h", "--out", str(out), "--audit-db", str(path)]) == 0
    )
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["id"] for line in lines] == [b["request_id"] for b in bodies]
    assert main(["audit", "export", "--since", "2999-01-01", "--audit-db", str(path)]) == 0
    assert capsys.readouterr().out == ""

    assert main(["audit", "show", "nope", "--audit-db", str(path)]) == 3
    assert "no record with id 'nope'" in capsys.readouterr().err
    assert main(["audit", "show", rid, "--audit-db", str(tmp_path / "none.sqlite3")]) == 3


def always_unsupported(request: dict[str, Any]) -> dict[str, Any]:
    """A judge that changed its mind: every claim unsupported."""
    scores = {"supported": 0.05, "unsupported": 0.9, "contradicted": 0.05}
    return verdict_response("unsupported", variant=requested_variant(request), scores=scores)


async def test_replay_reports_changed_verdicts(tmp_path: Path) -> None:
    path, bodies = serve_requests(
        tmp_path, [{"evidence": EVIDENCE, "claims": [TRUE_POLICY, TRUE_TIMING]}]
    )
    rid = bodies[0]["request_id"]
    settings = fake_settings(state_dir=tmp_path)
    with AuditLog.open(path) as audit:
        same = await replay(audit, rid, settings, judge=FakeJudgeServer().judge(settings))
        assert same.changes == []
        stricter = FakeJudgeServer(always_unsupported)
        changed = await replay(audit, rid, settings, judge=stricter.judge(settings))
        assert [(c.claim_id, c.before, c.after) for c in changed.changes] == [
            ("c1", "supported", "unsupported"),
            ("c2", "supported", "unsupported"),
            ("(action)", "pass", "regenerate"),
        ]
        # A judge that is down is an outage, not a regression: refused, and not logged.
        down = FakeJudgeServer(lambda _request: connection_refused()).judge(settings)
        with pytest.raises(JudgeUnavailable, match="got no verdict from the judge"):
            await replay(audit, rid, settings, judge=down)
        replays = list(audit.iter_since(None, kind="replay"))
        assert [r.extra for r in replays] == [
            {"changes": 0, "replay_of": rid},
            {"changes": 3, "replay_of": rid},
        ]
        assert changed.after.verdicts[0].label is Label.UNSUPPORTED


def test_replay_command_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, bodies = serve_requests(tmp_path, [{"evidence": EVIDENCE, "claims": [TRUE_POLICY]}])
    rid = bodies[0]["request_id"]
    # Without a judge every supported claim becomes unverified: a change, exit 1.
    args = ["replay", rid, "--audit-db", str(path), "--no-judge", "--no-record"]
    assert main(args) == 1
    assert "c1: supported -> unverified" in capsys.readouterr().out

    settings = fake_settings(state_dir=tmp_path / "nojudge")
    app = create_app(
        settings, ServeOptions(audit_path=path, use_judge=False), judge=FakeJudgeServer().judge()
    )
    with TestClient(app) as client:
        unjudged = client.post("/v1/verify", json={"evidence": EVIDENCE, "claims": [TRUE_POLICY]})
    assert unjudged.json()["verdicts"][0]["label"] == "unverified"
    assert (
        main(["replay", unjudged.json()["request_id"], "--audit-db", str(path), "--no-judge"]) == 0
    )
    assert "no verdict changed" in capsys.readouterr().out
    with AuditLog.open(path) as audit:
        assert audit.count("replay") == 1  # --no-record left the first replay out
    assert main(["replay", "missing", "--audit-db", str(path), "--no-judge"]) == 3


def test_serve_token_sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parser = build_parser("serve")
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    assert read_token(parser.parse_args(["serve"])) is None
    monkeypatch.setenv(TOKEN_ENV, "from-the-environment-123")
    assert read_token(parser.parse_args(["serve"])) == "from-the-environment-123"
    token_file = tmp_path / "token"
    token_file.write_text("from-a-file-0123456789\n")
    args = parser.parse_args(["serve", "--token-file", str(token_file)])
    assert read_token(args) == "from-a-file-0123456789"
    with pytest.raises(ConfigError, match="at least 16"):
        read_token(parser.parse_args(["serve", "--token", "short"]))
    with pytest.raises(ConfigError, match="cannot read token file"):
        read_token(parser.parse_args(["serve", "--token-file", str(tmp_path / "absent")]))
