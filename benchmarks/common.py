"""What the benchmarks share, and the one module any of them imports besides ``judge``.

- where the data are: the development set (``../shared/data/dev``) and the public labelled
  pairs (``../shared/data/public``) beside the repository, never inside it; reading them;
- the exact checks' outcomes combined as the pipeline combines them;
- the statistics the write-ups report: rates, McNemar's exact test on paired predictions;
- a run under the default settings, whatever the caller's ``JUDGE_*`` variables say;
- the embedded judge's endpoint (``judge local status``) and a counting proxy in front of any
  OpenAI-compatible endpoint, so that systems measured side by side are counted alike;
- long answers composed from development claims;
- the candidate names rule (step 14 of ``harness/accuracy.py``'s table);
- what a gate returns (:class:`GateResult`) and its expected-figures files.

No script imports another script: what two of them need lives here.
"""

from __future__ import annotations

import argparse
import contextlib
import http.server
import json
import math
import os
import platform
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import httpx

from judge.eval.records import load_records
from judge.reading.normalise import normalise
from judge.reading.values.dates import MONTHS, WEEKDAYS
from judge.schemas import CheckOutcome, CheckStatus

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
DEV = DATA / "dev"
PUBLIC = DATA / "public"
DEV_CLAIMS = DEV / "dev_claims.jsonl"
DEV_ANSWERS = DEV / "dev_answers.jsonl"
PUBLIC_CLAIMS = PUBLIC / "public_claims.jsonl"
EXPECTED = ROOT / "benchmarks" / "gates" / "expected"


# --- data --------------------------------------------------------------------------------------


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Every record of a JSON Lines file, blank lines skipped."""
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def joined_evidence(raw: dict[str, Any]) -> str:
    """A record's evidence passages joined as the pipeline joins the passages a claim cites."""
    return "\n\n".join(p["text"] for p in raw["evidence"])


def claim_question(claim: str) -> str:
    """The fixed question the answer harnesses ask of a statement: ``Is this true? <claim>
    Answer from the evidence.``, blanks folded and a full stop added where none ends it. The
    statement opens a sentence of its own, so its first word keeps its case without being read
    as a name by the answer check."""
    body = " ".join(claim.split())
    if not body.endswith((".", "!", "?")):
        body += "."
    return f"Is this true? {body} Answer from the evidence."


def missing_data(*paths: Path) -> str | None:
    """Why the data cannot be read (the first path that is not there), or None."""
    for path in paths:
        if not path.exists():
            return f"no data at {path}"
    return None


# Sentences cut simply, not by the pipeline's splitter, so that a splitter change does not move
# what the sentence gates measure (and quoted runs are cut too).
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def evidence_passages(paths: Sequence[Path]) -> list[str]:
    """Every distinct evidence passage of the labelled records, in order."""
    texts = (p.text for path in paths for record in load_records(path) for p in record.evidence)
    return list(dict.fromkeys(texts))


# --- the exact checks, as the pipeline runs them ----------------------------------------------


def first_flag(outcomes: Sequence[CheckOutcome | None]) -> CheckOutcome | None:
    """The pipeline's view: the first outcome that does not pass, else the first that ran."""
    present = [o for o in outcomes if o is not None]
    failing = [o for o in present if o.status is not CheckStatus.PASSED]
    chosen = failing or present
    return chosen[0] if chosen else None


def finding_kind(outcome: CheckOutcome) -> str:
    """What kind of failure an outcome reports: its finding, else review."""
    return outcome.finding.value if outcome.finding is not None else "review"


# --- statistics --------------------------------------------------------------------------------


def percent(part: int, whole: int) -> float:
    """``part`` of ``whole`` in percent, to two decimals (0 when there is no whole)."""
    return round(100 * part / whole, 2) if whole else 0.0


def mcnemar(gold: list[bool], a: list[bool], b: list[bool]) -> tuple[int, int, float]:
    """Exact two-sided McNemar test on paired predictions: (a right only, b right only, p)."""
    only_a = sum(1 for g, x, y in zip(gold, a, b, strict=True) if x == g and y != g)
    only_b = sum(1 for g, x, y in zip(gold, a, b, strict=True) if y == g and x != g)
    n = only_a + only_b
    if n == 0:
        return 0, 0, 1.0
    tail = sum(math.comb(n, i) for i in range(0, min(only_a, only_b) + 1)) / 2**n
    return only_a, only_b, min(1.0, 2 * tail)


# --- settings ----------------------------------------------------------------------------------


@contextlib.contextmanager
def default_settings() -> Iterator[None]:
    """No ``JUDGE_*`` variable or config file of the caller, and a throw-away state folder:
    what runs inside measures the defaults."""
    saved = {name: value for name, value in os.environ.items() if name.startswith("JUDGE_")}
    for name in saved:
        del os.environ[name]
    with tempfile.TemporaryDirectory(prefix="benchmark-state-") as state:
        os.environ["JUDGE_STATE_DIR"] = state
        try:
            yield
        finally:
            del os.environ["JUDGE_STATE_DIR"]
            os.environ.update(saved)


def git_commit() -> str:
    """The short commit of the checkout, or ``unknown``."""
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return out.stdout.strip()


def measured(seconds: float) -> dict[str, Any]:
    """When, where and on what a figure was taken, for an expected-figures file."""
    return {
        "date": time.strftime("%Y-%m-%d"),
        "commit": git_commit(),
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "seconds": round(seconds, 1),
    }


# --- the embedded judge ------------------------------------------------------------------------


def local_judge_endpoint(model: str | None) -> tuple[str, str]:
    """The running embedded judge's base URL and model id (``model`` if given); exits when
    there is none."""
    status = subprocess.run(
        [sys.executable, "-m", "judge.cli.app", "local", "status", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        info: dict[str, Any] = json.loads(status.stdout)
    except ValueError:
        info = {}
    if not info.get("healthy"):
        raise SystemExit("no healthy local judge: start one with `judge local up`")
    return str(info["base_url"]), model or str(info["model_id"])


def timed_verify(
    request: Path, env: dict[str, str]
) -> tuple[subprocess.CompletedProcess[str], float]:
    """`judge verify --json REQUEST` as a fresh process, as a user runs it, and its wall seconds."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "judge", "verify", "--json", str(request)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return done, time.perf_counter() - started


# --- a counting proxy --------------------------------------------------------------------------

HOP_HEADERS = frozenset(
    {"host", "content-length", "transfer-encoding", "connection", "keep-alive", "accept-encoding"}
)


@dataclass
class Usage:
    calls: int = 0  # chat or text completions
    other_requests: int = 0  # model listing and the like
    prompt_tokens: int = 0
    # Prompt tokens the server computed (llama.cpp's ``timings.prompt_n``): the rest came from
    # its prefix cache. Equal to prompt_tokens for servers that do not report it.
    prefill_tokens: int = 0
    completion_tokens: int = 0
    errors: int = 0  # HTTP status >= 400 or no answer from upstream
    truncated: int = 0  # finish_reason "length": the output hit max_tokens
    seconds: float = 0.0  # upstream time, summed over calls


class LoggingProxy:
    """A counting proxy in front of an OpenAI-compatible server.

    Every request to ``http://127.0.0.1:PORT/<tag>/v1/...`` is forwarded to ``UPSTREAM/...`` and
    counted under ``<tag>``: calls, prompt and completion tokens (from the response's
    ``usage``), HTTP errors and upstream seconds, so systems measured through it are counted
    the same way, whatever their own counters report. Non-streaming requests only (streamed
    responses are forwarded whole but their tokens are not counted).

    Start with :meth:`start` (or as a context manager); ``base_url(tag)`` is what a client is
    given instead of the upstream URL.
    """

    def __init__(
        self, upstream: str, *, port: int = 0, log_path: Path | None = None, timeout_s: float = 600
    ) -> None:
        self.upstream = upstream.rstrip("/")
        self._usage: dict[str, Usage] = {}
        self._lock = threading.Lock()
        self._log = log_path.open("a", encoding="utf-8") if log_path else None
        self._client = httpx.Client(timeout=httpx.Timeout(timeout_s, connect=10.0))
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", port), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def base_url(self, tag: str) -> str:
        return f"http://127.0.0.1:{self.port}/{tag}/v1"

    def usage(self, tag: str) -> Usage:
        with self._lock:
            return Usage(**asdict(self._usage.get(tag, Usage())))

    def start(self) -> LoggingProxy:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._client.close()
        if self._log:
            self._log.close()

    def __enter__(self) -> LoggingProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def forward(
        self, method: str, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        tag, _, rest = path.lstrip("/").partition("/")
        rest = rest.removeprefix("v1").lstrip("/")
        sent = {k: v for k, v in headers.items() if k.lower() not in HOP_HEADERS}
        started = time.perf_counter()
        try:
            response = self._client.request(
                method, f"{self.upstream}/{rest}", headers=sent, content=body
            )
            status, payload = response.status_code, response.content
            kept = {k: v for k, v in response.headers.items() if k.lower() not in HOP_HEADERS}
        except httpx.HTTPError as exc:
            status, kept = 502, {"content-type": "application/json"}
            payload = json.dumps({"error": {"message": f"proxy: {type(exc).__name__}"}}).encode()
        self._count(tag, rest, status, payload, time.perf_counter() - started)
        return status, kept, payload

    def _count(self, tag: str, path: str, status: int, payload: bytes, seconds: float) -> None:
        completion = path.endswith("completions")
        prompt = produced = computed = 0
        finish = None
        if completion and status < 400:
            try:
                data: Any = json.loads(payload)
                usage = data.get("usage") or {}
                prompt = int(usage.get("prompt_tokens") or 0)
                produced = int(usage.get("completion_tokens") or 0)
                computed = int((data.get("timings") or {}).get("prompt_n", prompt))
                finish = (data.get("choices") or [{}])[0].get("finish_reason")
            except (ValueError, AttributeError, IndexError, TypeError):
                pass  # a streamed or malformed body: the call still counts
        with self._lock:
            usage_row = self._usage.setdefault(tag, Usage())
            if completion:
                usage_row.calls += 1
                usage_row.prompt_tokens += prompt
                usage_row.prefill_tokens += computed
                usage_row.completion_tokens += produced
                usage_row.seconds += seconds
                usage_row.truncated += finish == "length"
            else:
                usage_row.other_requests += 1
            usage_row.errors += status >= 400
            if self._log:
                row = {
                    "tag": tag,
                    "path": path,
                    "status": status,
                    "prompt_tokens": prompt,
                    "prefill_tokens": computed,
                    "completion_tokens": produced,
                    "finish_reason": finish,
                    "seconds": round(seconds, 3),
                }
                self._log.write(json.dumps(row) + "\n")
                self._log.flush()

    def _handler_class(self) -> type[http.server.BaseHTTPRequestHandler]:
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                status, headers, payload = proxy.forward(
                    self.command, self.path, dict(self.headers.items()), body
                )
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = _serve
            do_POST = _serve

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


# --- composed answers --------------------------------------------------------------------------


def composed_answers(
    datasets: Sequence[str],
    gold: Sequence[bool],
    count: int,
    seed: int = 0,
    sizes: tuple[int, int] = (3, 6),
) -> list[tuple[list[int], bool]]:
    """Answers of 3-6 claims of one dataset (indices into ``datasets`` and ``gold``, True for
    supported): half of them faithful (every claim supported), half hallucinated (one or two
    claims not supported, the rest supported)."""
    rng = random.Random(seed)
    by_dataset: dict[str, tuple[list[int], list[int]]] = {}
    for i, (name, supported) in enumerate(zip(datasets, gold, strict=True)):
        good, bad = by_dataset.setdefault(name, ([], []))
        (good if supported else bad).append(i)
    names = sorted(n for n, (good, bad) in by_dataset.items() if len(good) >= sizes[1] and bad)
    answers: list[tuple[list[int], bool]] = []
    for number in range(count):
        good, bad = by_dataset[names[number % len(names)]]
        size = rng.randint(*sizes)
        faithful = number % 2 == 0
        wrong = 0 if faithful else min(rng.randint(1, 2), len(bad), size)
        members = rng.sample(good, size - wrong) + rng.sample(bad, wrong)
        rng.shuffle(members)
        answers.append((members, faithful))
    return answers


# --- the candidate names rule (measured, not shipped: judge/pipeline/checks/names.py is) --------

_FUNCTION_WORDS = (
    "i a an the this that these those it its he she they we you his her their our my in on at "
    "for by with from and or but if when while after before during since as of to yes no not so "
    "also however although because some many most all both each every another other one two "
    "three first second last next new according early late mr mrs ms dr prof st there here what "
    "which who how why where overall despite then than such only just even still well oh hi "
    "hello thanks thank sure okay ok "
)
_NAME_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_SENTENCE_START = tuple('.!?:"“(\n')
_DEMONYM_ENDINGS = ("ians", "ian", "ans", "an", "ese", "ish", "s")


_SKIPPED = frozenset(_FUNCTION_WORDS.split()) | frozenset(MONTHS) | frozenset(WEEKDAYS)


def claim_names(text: str) -> list[str]:
    """Capitalised words that name something (sentence-initial words only if acronyms);
    function words, months and weekdays left out."""
    names = []
    for match in _NAME_WORD.finditer(text):
        word = re.sub(r"['’]s$", "", match.group(0))
        if not word[0].isupper() or len(word) < 2 or word.casefold() in _SKIPPED:
            continue
        before = text[: match.start()].rstrip()
        starts_sentence = not before or before.endswith(_SENTENCE_START)
        if starts_sentence and not word.isupper():
            continue
        names.append(word)
    return names


def _stem(word: str) -> str:
    word = word.casefold()
    for ending in _DEMONYM_ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 4:
            return word[: -len(ending)]
    return word


def missing_names(claim: str, evidence: str) -> list[str]:
    """The claim's names the evidence never writes, ignoring case, a possessive "'s" and the
    endings of demonyms ("Libyan" ~ "Libya"): the candidate names check of the accuracy table
    (step 14), which was not shipped."""
    source = normalise(evidence).casefold()
    stems = {_stem(word) for word in re.findall(r"[a-z][a-z'-]+", source)}
    return [n for n in claim_names(claim) if n.casefold() not in source and _stem(n) not in stems]


# --- gates -------------------------------------------------------------------------------------

Status = Literal["PASS", "FAIL", "SKIP"]


@dataclass
class GateResult:
    """What one gate found: its status, a one-line summary of its headline figures, each
    regression past its tolerance, and the full report its own command prints."""

    gate: str
    status: Status
    summary: str
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    report: str = ""

    def line(self) -> str:
        return f"{self.status:<4}  {self.gate:<16} {self.summary} ({self.seconds:.0f} s)"


def skipped(gate: str, reason: str) -> GateResult:
    return GateResult(gate, "SKIP", reason)


def judged(
    gate: str, summary: str, problems: Sequence[str], seconds: float, report: str
) -> GateResult:
    """PASS, or FAIL when any regression was found."""
    status: Status = "FAIL" if problems else "PASS"
    return GateResult(gate, status, summary, list(problems), seconds, report)


def expected_file(gate: str) -> Path:
    """The committed expected figures of a gate."""
    return EXPECTED / f"{gate}.json"


def gate_parser(
    doc: str | None, gate: str, *, quick: str = "the same run: it is quick"
) -> argparse.ArgumentParser:
    """A gate's command line: its own options are added to these, which every gate has."""
    parser = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    parser.add_argument(
        "--expected",
        type=Path,
        metavar="FILE",
        default=expected_file(gate),
        help="the figures to compare with (default: the committed ones)",
    )
    parser.add_argument(
        "--write-expected", type=Path, metavar="FILE", help="record the current figures instead"
    )
    parser.add_argument("--quick", action="store_true", help=quick)
    return parser


def compared_with(args: argparse.Namespace) -> Path | None:
    """The expected figures a run is compared with: none when it records them instead."""
    expected: Path | None = None if args.write_expected else args.expected
    return expected


def read_expected(path: Path | None) -> dict[str, Any] | None:
    """The expected figures at ``path``; None when no comparison is asked for."""
    if path is None:
        return None
    if not path.exists():
        raise SystemExit(f"no expected figures at {path}: write them with --write-expected")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def write_expected(path: Path, figures: dict[str, Any], seconds: float) -> None:
    """Record ``figures`` (counts and rates only: never a record's text) with when and where
    they were measured."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"measured": measured(seconds), **figures}
    path.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


def finish(result: GateResult, *, verbose: bool = True) -> int:
    """Print a gate's report (``verbose``), its regressions and its summary line; the exit
    status of its command: 1 on FAIL, else 0 (a SKIP does not fail)."""
    if verbose and result.report:
        print(result.report)
    for problem in result.problems:
        print(f"REGRESSION {result.gate}: {problem}", file=sys.stderr)
    print(result.line())
    return 1 if result.status == "FAIL" else 0


def counts_line(parts: Iterable[tuple[str, int, int]]) -> str:
    """``name part/whole (rate %)`` for each part, joined: a gate's summary."""
    return ", ".join(
        f"{name} {part}/{whole} ({percent(part, whole):.2f} %)" for name, part, whole in parts
    )
