"""A stand-in for one GPU judge replica: an OpenAI-compatible loopback server that answers
every verdict request after a fixed latency, serving at most ``--slots`` requests at once
(a GPU replica's batch slots; the rest queue). Prints its base URL, then serves until killed.

The answer is one canned "supported" verdict per schema (with logprobs), built once, so the
replica spends almost no CPU of its own and the verifier's cost is what is measured.

    python -m benchmarks.tools.fake_replica --latency 0.2 --slots 4

Judge: it is one (no model). ``harness/scale.py`` starts these.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx

from judge.testing import (
    conclusion_response,
    facts_response,
    http_error,
    requested_variant,
    run_fake_openai_server,
    verdict_response,
)

SCORES = {"supported": 0.9, "unsupported": 0.05, "contradicted": 0.05}


def canned_handler(latency_s: float, slots: int) -> Callable[[httpx.Request], httpx.Response]:
    gate = threading.BoundedSemaphore(slots)
    answers: dict[str, bytes] = {}

    def answer(body: dict[str, Any]) -> bytes:
        name = str(body.get("response_format", {}).get("json_schema", {}).get("name", ""))
        if name not in answers:
            if name.startswith("Verdict"):
                variant = requested_variant(body)
                spec = verdict_response("supported", variant=variant, scores=SCORES)
            elif name == "Facts":
                spec = facts_response(["The claim holds."])
            else:
                spec = conclusion_response("The claim holds.")
            answers[name] = json.dumps(spec).encode()
        return answers[name]

    def handler(request: httpx.Request) -> httpx.Response:
        path = request.url.path.rstrip("/")
        if request.method == "GET" and path.endswith("/models"):
            data = [{"id": "fake-judge", "object": "model", "owned_by": "fake"}]
            return httpx.Response(200, json={"object": "list", "data": data})
        if request.method != "POST" or not path.endswith("/chat/completions"):
            return http_error(404, f"no route {path}")
        payload = answer(json.loads(request.content))
        with gate:
            if latency_s:
                time.sleep(latency_s)
        return httpx.Response(200, content=payload, headers={"content-type": "application/json"})

    return handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per call")
    parser.add_argument("--slots", type=int, default=4, help="calls served at once")
    args = parser.parse_args()
    with run_fake_openai_server(canned_handler(args.latency, args.slots)) as url:
        print(url, flush=True)
        while True:
            time.sleep(3600)


if __name__ == "__main__":
    main()
