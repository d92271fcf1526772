"""A counting proxy in front of an OpenAI-compatible server, on its own.

Forwards ``http://127.0.0.1:PORT/<tag>/v1/...`` to ``UPSTREAM/...`` and counts calls, prompt
and completion tokens, HTTP errors and upstream seconds under ``<tag>``
(:class:`benchmarks.common.LoggingProxy`, which the side-by-side harness scripts start
themselves). Prints the URL to give a client, with ``TAG`` to replace, then serves until
interrupted; ``--log`` writes one JSON line per request.

    python -m benchmarks.tools.logging_proxy --upstream http://127.0.0.1:8080/v1 --log calls.jsonl

Judge: the upstream it forwards to; none of its own. Time: it runs until stopped.
"""

from __future__ import annotations

import argparse
import contextlib
import threading
from pathlib import Path

from benchmarks.common import LoggingProxy


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--upstream", required=True, help="e.g. http://127.0.0.1:8080/v1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log", type=Path, help="one JSON line per request")
    args = parser.parse_args()
    with LoggingProxy(args.upstream, port=args.port, log_path=args.log) as proxy:
        print(f"proxying {proxy.upstream} at {proxy.base_url('TAG')}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
