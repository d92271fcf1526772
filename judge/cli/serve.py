"""`judge serve`: run the verification service (HTTP API, audit log, metrics)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from judge.cli.common import add_judge_options, settings_from_args
from judge.errors import ConfigError

TOKEN_ENV = "JUDGE_SERVE_TOKEN"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("serve", help="run the verification service over HTTP")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8080, help="port (default 8080)")
    token = parser.add_mutually_exclusive_group()
    token.add_argument(
        "--token-file", type=Path, help=f"file holding the bearer token (or set {TOKEN_ENV})"
    )
    token.add_argument(
        "--token", help=f"bearer token; visible to other local users, prefer {TOKEN_ENV}"
    )
    parser.add_argument(
        "--max-body-bytes", type=int, default=2_000_000, help="request size limit in bytes"
    )
    parser.add_argument(
        "--max-claims", type=int, help="claims per request (at most the verifier's max_claims)"
    )
    parser.add_argument(
        "--request-timeout", type=float, default=120.0, help="seconds per request (default 120)"
    )
    parser.add_argument(
        "--header-timeout", type=float, default=10.0, help="seconds to send request headers"
    )
    parser.add_argument(
        "--body-timeout", type=float, default=10.0, help="seconds to send the request body"
    )
    parser.add_argument(
        "--shutdown-grace",
        type=float,
        default=10.0,
        help="seconds open streams may go on after SIGTERM before they are stopped (default "
        "10); the process ends within this plus 5 s",
    )
    parser.add_argument(
        "--audit-db", type=Path, help="audit log (default: $JUDGE_STATE_DIR/audit.sqlite3)"
    )
    parser.add_argument(
        "--write-openapi", type=Path, metavar="FILE", help="write the OpenAPI schema and exit"
    )
    add_judge_options(parser)
    parser.set_defaults(run=run)


def read_token(args: argparse.Namespace) -> str | None:
    if args.token_file is not None:
        try:
            token = args.token_file.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConfigError(f"cannot read token file {args.token_file}: {exc.strerror}") from None
    else:
        token = args.token or os.environ.get(TOKEN_ENV, "")
    if token and len(token) < 16:
        raise ConfigError("the bearer token must be at least 16 characters")
    return token or None


def run(args: argparse.Namespace) -> int:
    from judge.service.app import ServeOptions, create_app

    if args.write_openapi is not None:
        from judge.config import Settings
        from judge.service.openapi import render_openapi

        args.write_openapi.write_text(render_openapi(create_app(Settings())), encoding="utf-8")
        print(args.write_openapi)
        return 0

    from judge.service.transport import DrainingServer, server_config

    options = ServeOptions(
        token=read_token(args),
        max_body_bytes=args.max_body_bytes,
        max_claims=args.max_claims,
        request_timeout_s=args.request_timeout,
        body_timeout_s=args.body_timeout,
        audit_path=args.audit_db,
        use_judge=not args.no_judge,
        shutdown_grace_s=args.shutdown_grace,
    )
    if options.token is None and args.host not in ("127.0.0.1", "localhost", "::1"):
        print(
            f"judge: warning: serving on {args.host} without a token; set {TOKEN_ENV}",
            file=sys.stderr,
        )
    if args.header_timeout <= 0 or args.body_timeout <= 0:
        raise ConfigError("the header and body timeouts must be positive")
    app = create_app(settings_from_args(args), options)
    config = server_config(
        app,
        host=args.host,
        port=args.port,
        header_timeout_s=args.header_timeout,
        shutdown_grace_s=options.shutdown_grace_s,
    )
    DrainingServer(config, on_exit=app.state.service.request_shutdown).run()
    return 0
