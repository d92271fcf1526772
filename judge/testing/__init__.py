"""Testing aids: a scripted OpenAI-compatible judge server and the replies it sends, a scripted
streaming generator (:mod:`judge.testing.fake_stream`) and the comparison of buffered and
streamed verification (:mod:`judge.testing.stream_parity`).

Run the verifier against a judge without a model, through the real HTTP client stack: in
process (``FakeJudgeServer().judge()`` or ``.http_client()``) or on a loopback port for a CLI
or a service (:func:`run_fake_openai_server`). The default script is the project's rule-based
judge, so verdicts are deterministic; a script of your own can answer each request as it
likes, fail it (HTTP errors, timeouts, refused connections) or send replies whose score cannot
be read. The project's test suite and its benchmarks use it; so can yours.
"""

from judge.testing.fake_server import (
    FAKE_BASE_URL,
    FakeJudgeServer,
    Script,
    Spec,
    fake_settings,
    fenced,
    requested_variant,
    rule_based_judge,
    run_fake_openai_server,
)
from judge.testing.replies import (
    FAKE_MODEL,
    LABELS,
    YES_NO,
    chat_completion,
    conclusion_response,
    confident,
    facts_response,
    http_error,
    label_alternatives,
    logprob_content,
    verdict_json,
    verdict_response,
)

__all__ = [
    "FAKE_BASE_URL",
    "FAKE_MODEL",
    "LABELS",
    "YES_NO",
    "FakeJudgeServer",
    "Script",
    "Spec",
    "chat_completion",
    "conclusion_response",
    "confident",
    "facts_response",
    "fake_settings",
    "fenced",
    "http_error",
    "label_alternatives",
    "logprob_content",
    "requested_variant",
    "rule_based_judge",
    "run_fake_openai_server",
    "verdict_json",
    "verdict_response",
]
