"""Sentence splitting of the multilingual cases: the verifier's splitter against pysbd.

Every sentence of a case answer (``tests/data/languages/*.jsonl``) ends with its citation,
so the answers carry their own reference split: a sentence ends at a citation followed by a
full stop, by the end, or by a new sentence (not a comma or a lower-case word), and after a
``!`` or ``?`` followed by a space (``¡Claro! La cuota ...``). Evidence passages carry no
such anchor: ``EVIDENCE_SENTENCE_ENDS`` names, by hand, where each sentence but the last ends
in every passage of more than one sentence; all other passages are one sentence.

Each splitter's pieces are compared with the reference (citation markers and blank space
left out); a wrong split is named by kind: a cut after an abbreviation (``z. B.``), after an
ordinal number (``3. Mai``), after a sentence's own end the splitter did not see, and so on.

    python benchmarks/archive/sentence_splitters.py [--show]

pysbd has no Portuguese rules; Portuguese texts go through its Spanish ones (marked).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from judge.reading.sentences import split_sentences

ROOT = Path(__file__).resolve().parents[2]
CASES_DIR = ROOT / "tests" / "data" / "languages"
CITATION_RE = re.compile(r"(?:\[[^\[\]]+\])+")
ANSWER_SENTENCE_END = re.compile(r"(?:\[[^\[\]]+\])+(?:[.。]|(?=\s+[^\s,a-z])|$)|[!?](?=\s)")
PYSBD_STAND_IN = {"pt": "es"}

# Passages of more than one sentence, by case id and passage id: the text each sentence but
# the last ends with (read by hand).
EVIDENCE_SENTENCE_ENDS = {
    ("de-001", "S1"): ("zurückgegeben werden.",),
    ("de-002", "S1"): ("inklusive Mehrwertsteuer.",),
    ("de-003", "S1"): ("84,3 Mio. Euro.",),
    ("de-005", "S1"): ("am 15.07.2024.",),
    ("de-020", "S1"): ("wiegt 1,2 kg.",),
    ("es-001", "S1"): ("¿Cómo devolver un producto?",),
    ("es-021", "S1"): ("¿Cuánto cuesta la matrícula?",),
    ("es-028", "S1"): ("¡Novedad!",),
    ("zh-001", "S1"): ("申请退货。",),
    ("zh-028", "S1"): ("4999元。",),
    ("ja-028", "S1"): ("発売されます。",),
}

_FRESH_CASE = re.compile(r"-f\d+$")

Split = Callable[[str, str], list[str]]


@dataclass(frozen=True)
class Text:
    case_id: str
    part: str  # "answer" or a passage id
    language: str
    text: str
    expected: tuple[str, ...]


def squeezed(text: str) -> str:
    return "".join(CITATION_RE.sub("", text).split())


def answer_reference(answer: str) -> tuple[str, ...]:
    pieces, start = [], 0
    for end in ANSWER_SENTENCE_END.finditer(answer):
        pieces.append(answer[start : end.end()])
        start = end.end()
    pieces.append(answer[start:])
    return tuple(s for piece in pieces if (s := squeezed(piece)))


def passage_reference(text: str, ends: Sequence[str]) -> tuple[str, ...]:
    pieces, start = [], 0
    for end in ends:
        stop = text.index(end, start) + len(end)
        pieces.append(text[start:stop])
        start = stop
    pieces.append(text[start:])
    return tuple(squeezed(piece) for piece in pieces)


def load_texts(directory: Path) -> list[Text]:
    texts: list[Text] = []
    for path in sorted(directory.glob("*.jsonl")):
        for line in path.read_text("utf-8").split("\n"):
            if line.strip():
                texts.extend(_texts_of_case(json.loads(line)))
    return texts


def _texts_of_case(case: dict[str, str | list[dict[str, str]]]) -> Iterable[Text]:
    case_id, answer = str(case["id"]), str(case["answer"])
    yield Text(case_id, "answer", str(case["language"]), answer, answer_reference(answer))
    passages = case["evidence"]
    assert isinstance(passages, list)
    if _FRESH_CASE.search(case_id):
        return  # the cases written later ("de-f01") have no hand-marked passage sentences
    for passage in passages:
        ends = EVIDENCE_SENTENCE_ENDS.get((case_id, passage["id"]), ())
        yield Text(
            case_id,
            passage["id"],
            str(case["evidence_language"]),
            passage["text"],
            passage_reference(passage["text"], ends),
        )


# --- the splitters -----------------------------------------------------------------------------


def verifier_split(text: str, language: str) -> list[str]:
    return [sentence.text for sentence in split_sentences(text, strict=False)]


def pysbd_split(text: str, language: str) -> list[str]:
    import pysbd

    segmenter = pysbd.Segmenter(language=PYSBD_STAND_IN.get(language, language), clean=False)
    return [str(piece) for piece in segmenter.segment(text)]


SPLITTERS: dict[str, Split] = {"verifier": verifier_split, "pysbd": pysbd_split}


# --- judging a split ---------------------------------------------------------------------------


def is_right(text: Text, pieces: Sequence[str]) -> bool:
    return tuple(s for piece in pieces if (s := squeezed(piece))) == text.expected


def error_kinds(text: Text, pieces: Sequence[str]) -> list[str]:
    """What each wrong cut or missed end is, read from the words around it."""
    got = [piece.strip() for piece in pieces if squeezed(piece)]
    if len(got) < len(text.expected):
        return [_missed_end_kind(text)]
    expected_ends = _expected_end_offsets(text)
    kinds, offset = [], 0
    for piece in got[:-1]:
        offset += len(squeezed(piece))
        if offset not in expected_ends:
            kinds.append(_cut_kind(CITATION_RE.sub("", piece).rstrip()))
    return kinds or ["pieces differ"]


def _expected_end_offsets(text: Text) -> set[int]:
    ends, total = set(), 0
    for sentence in text.expected:
        total += len(sentence)
        ends.add(total)
    return ends


def _cut_kind(before: str) -> str:
    last = before.split()[-1] if before.split() else before
    if re.fullmatch(r"\d+\.", last):
        return "cut after an ordinal number (3. Mai)"
    if re.search(r"(?:^|[\s'’(])\w{1,5}\.$", before):
        return "cut after an abbreviation"
    if last.endswith(("!", "?")):
        return "cut after ! or ?"
    return "cut elsewhere"


def _missed_end_kind(text: Text) -> str:
    if re.search(r"[。！？]", text.text):
        return "missed a CJK full stop"
    if re.search(r"\b\w{1,5}\.\s*\[[^\]]+\]\s+\S", text.text):
        return "missed an end after an abbreviation (MwSt. [S1] Der)"
    if re.search(r"[!?]\s", text.text):
        return "missed an end after ! or ?"
    return "missed an end"


# --- main --------------------------------------------------------------------------------------


@dataclass
class Tally:
    answers: int = 0
    answers_wrong: int = 0
    passages: int = 0
    passages_wrong: int = 0

    def add(self, text: Text, right: bool) -> None:
        if text.part == "answer":
            self.answers += 1
            self.answers_wrong += not right
        else:
            self.passages += 1
            self.passages_wrong += not right

    def __str__(self) -> str:
        answers = f"{self.answers_wrong:>3}/{self.answers:<4}"
        return answers + f"{self.passages_wrong:>3}/{self.passages:<4}"


def survey(texts: Sequence[Text], split: Split) -> tuple[dict[str, Tally], Counter[str], list[str]]:
    tallies: dict[str, Tally] = {}
    kinds: Counter[str] = Counter()
    wrong: list[str] = []
    for text in texts:
        pieces = split(text.text, text.language)
        right = is_right(text, pieces)
        tallies.setdefault(text.language, Tally()).add(text, right)
        if not right:
            found = error_kinds(text, pieces)
            kinds.update(found)
            wrong.append(f"{text.case_id} {text.part}: {' | '.join(pieces)}  <- {', '.join(found)}")
    return tallies, kinds, wrong


def report(name: str, texts: Sequence[Text], split: Split, show: bool) -> str:
    tallies, kinds, wrong = survey(texts, split)
    total = Tally()
    for tally in tallies.values():
        total.answers += tally.answers
        total.answers_wrong += tally.answers_wrong
        total.passages += tally.passages
        total.passages_wrong += tally.passages_wrong
    lines = [f"## {name}: wrong answers / answers, wrong passages / passages"]
    for language in sorted(tallies):
        stand_in = PYSBD_STAND_IN.get(language) if name == "pysbd" else None
        note = f"  ({stand_in} rules)" if stand_in else ""
        lines.append(f"  {language:<4}{tallies[language]}{note}")
    lines.append(f"  {'all':<4}{total}")
    lines.extend(f"  {n:>3}  {kind}" for kind, n in kinds.most_common())
    if show:
        lines.extend(f"    {line}" for line in wrong)
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--show", action="store_true", help="list every wrong split")
    args = parser.parse_args(argv)
    texts = load_texts(CASES_DIR)
    print("\n\n".join(report(name, texts, split, args.show) for name, split in SPLITTERS.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
