"""Value frames: each number, amount, percentage and date of an English sentence read with
what it is of.

A value's frame records, from the dependency parse of its sentence (:mod:`judge.reading.syntax`):

* its *words*: the content words it is said of, each weighted by how close it hangs to the
  value in the parse (the noun it measures, the verb and subject of its clause, the group its
  prepositions name: "1.1 percentage points in the treatment group"); words on a branch that
  holds another value belong to that value ("to shareholders of record on February 28" is not
  said of "payable on March 15");
* its *subject*: the subject of its clause, through conjoined clauses ("the Basic plan costs
  $12 and includes 100 GB");
* its *period*: the nearest date or period hanging on its path ("in the third quarter of
  2024"), or a period named relative to the sentence's ("$1.4 billion a year earlier");
* its *bases*: the basis it is stated on, by dimension ("excluding special items" against
  "GAAP", "constant currency" against "reported"): a qualifier in front of the sentence
  ("Excluding special items, ...") governs every value of it, one right after a value
  ("9% in constant currency") that value alone, others where the parse hangs them;
* its *role*: a level ("was 18.5%", "rose to $4.8 billion", "from 16.1%") or a change ("grew
  12%", "an increase of 83%", "up 8%").

Frames are made only for the sentences a check asks about, once per reading. ``parsed=False``
builds the same frame from the words alone (linear distance within the value's phrase, the
words before it as its subject, cue words for its role): the rule-only alternative, kept to
measure what the parse is worth (``benchmarks/VALUES.md``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache

from judge.reading import lexicon
from judge.reading.clauses import PHRASE_BREAK
from judge.reading.reading import Reading
from judge.reading.syntax import Parse, parse
from judge.reading.values.dates import DateMention
from judge.reading.values.periods import Period, of_date, relative_periods, resolved
from judge.reading.values.quantities import Quantity, counted_noun, written_start
from judge.reading.words import is_content, word_form, words

__all__ = ["Frame", "Role", "Value", "frames_in", "sentence_of", "values_of"]

# How far, in parse edges (or words, without the parse), a word may hang from its value and
# still be read as said of it.
REACH = 6
# The distance given to a qualifier in front of the sentence: it governs every value, but a
# nearer one of the same dimension wins.
FRONTED = REACH


class Role(StrEnum):
    LEVEL = "level"
    CHANGE = "change"
    # A level the sentence compares with ("from 16.1%", "compared with $1.4 billion", "up
    # from $32.5 billion"): often a period's before the sentence's own.
    EARLIER = "earlier"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class Value:
    """A number or a date of a text, with its offsets in the reading's text."""

    text: str
    start: int
    end: int
    quantity: Quantity | None = None
    date: DateMention | None = None


@dataclass(frozen=True)
class Frame:
    value: Value
    sentence: tuple[int, int]
    words: Mapping[str, float]  # word form -> closeness, 1 for the nearest
    subject: frozenset[str]
    what: str  # what the value is of, as written ("the operating margin improved")
    period: Period | None
    bases: Mapping[str, tuple[str, str]]  # dimension -> (basis, as written)
    role: Role
    counted: str | None = None  # what a count counts ("466,140 vehicles": "vehicl")
    # What a ratio or a difference is taken against, where the sentence says it once ("3.57
    # times Black mortality", "compared to the white population"); the subject without it.
    against: frozenset[str] = frozenset()
    against_text: str = ""
    parsed: bool = True
    spans: tuple[tuple[int, int], ...] = field(default=(), compare=False)


# --- the values of a reading -------------------------------------------------------------


def values_of(reading: Reading) -> tuple[Value, ...]:
    """The numbers and dates a text states, one owner per span, in text order."""
    return reading.view(_values)


def _values(reading: Reading) -> tuple[Value, ...]:
    found = [
        Value(reading.text[start : q.end], start, q.end, quantity=q)
        for q in reading.numbers
        if (start := written_start(q, reading.text)) is not None
    ]
    found += [Value(d.text, d.start, d.end, date=d) for d in reading.owned.dates]
    return tuple(sorted(found, key=lambda v: (v.start, v.end)))


def sentence_of(reading: Reading, start: int) -> tuple[int, int]:
    """The sentence (ranking unit) of the reading holding the offset ``start``."""
    for begin, end, _ in reading.sentences.units:
        if begin <= start < end:
            return begin, end
    return 0, len(reading.text)


def frames_in(
    reading: Reading, sentence: tuple[int, int], *, parsed: bool = True
) -> tuple[Frame, ...]:
    """The frames of the values of one sentence of ``reading`` (an English reading)."""
    cache_ = reading.view(_FrameCache)
    key = (sentence, parsed)
    if key not in cache_.frames:
        cache_.frames[key] = _frames(reading, sentence, parsed=parsed)
    return cache_.frames[key]


class _FrameCache:
    def __init__(self, reading: Reading) -> None:
        self.frames: dict[tuple[tuple[int, int], bool], tuple[Frame, ...]] = {}


# --- the words a frame is built from -----------------------------------------------------


@dataclass(frozen=True)
class _Word:
    index: int
    text: str
    start: int  # offsets in the reading's text
    end: int
    dep: str = ""
    pos: str = ""


class _Layout:
    """The words of a sentence and how far each hangs from a value: by the parse, or, without
    one, by the words between them inside the value's phrase."""

    def __init__(self, text: str, offset: int, parsed: bool) -> None:
        self.parsed = parsed
        self.parse: Parse | None = parse(text) if parsed else None
        if self.parse is not None:
            self.words = tuple(
                _Word(t.index, t.text, offset + t.start, offset + t.end, t.dep, t.pos)
                for t in self.parse.tokens
            )
        else:
            self.words = tuple(
                _Word(k, w, offset + s, offset + e) for k, (w, s, e) in enumerate(words(text))
            )
        self.offset = offset
        self.text = text

    def covering(self, start: int, end: int) -> frozenset[int]:
        return frozenset(w.index for w in self.words if w.start < end and start < w.end)

    def distances(self, own: frozenset[int], others: frozenset[int]) -> dict[int, int]:
        """Word index -> distance from the value made of ``own``; words on a branch (or past a
        value, without the parse) holding one of ``others`` are left out."""
        if self.parse is not None:
            return _tree_distances(self.parse, own, others)
        return self._linear_distances(own, others)

    def _linear_distances(self, own: frozenset[int], others: frozenset[int]) -> dict[int, int]:
        breaks = {
            w.index
            for w in self.words
            if PHRASE_BREAK.fullmatch(w.text) or w.text.casefold() in {"and", "or", "while"}
        }
        found: dict[int, int] = {}
        first, last = min(own), max(own)
        for step in (-1, 1):
            index, distance = (first - 1, 1) if step < 0 else (last + 1, 1)
            while 0 <= index < len(self.words) and distance <= REACH:
                if index in others or index in breaks:
                    break
                found[index] = distance
                index += step
                distance += 1
        return found


def _tree_distances(tree: Parse, own: frozenset[int], others: frozenset[int]) -> dict[int, int]:
    tokens = tree.tokens
    head = _head(tree, own)
    path = [head]
    while tokens[path[-1]].head != path[-1] and len(path) < 40:
        path.append(tokens[path[-1]].head)
    on_path = set(path)
    found: dict[int, int] = {}
    step = 0
    for position, node in enumerate(path):
        # A value conjoined to another is as near the words they share as that one is:
        # "55 percent of its undergraduates and 100 percent overall come from Mississippi".
        if position and not (tokens[path[position - 1]].dep == "conj" and node in others):
            step += 1
        if position and node not in others:
            found.setdefault(node, max(1, step))
        if node in others:
            continue  # what hangs on another value is said of that value
        for child in tree.children(node):
            if child.index in on_path or child.index in own:
                continue
            branch = _subtree(tree, child.index)
            if branch & others:
                continue
            for index in branch:
                found.setdefault(index, step + 1)
    return {index: d for index, d in found.items() if index not in own and d <= REACH}


def _head(tree: Parse, own: frozenset[int]) -> int:
    """The word of a value that the rest of the sentence hangs it by."""
    tokens = tree.tokens
    outside = [i for i in sorted(own) if tokens[i].head not in own or tokens[i].head == i]
    return outside[-1] if outside else min(own)


def _subtree(tree: Parse, index: int) -> frozenset[int]:
    found = {index}
    stack = [index]
    while stack:
        for child in tree.children(stack.pop()):
            if child.index not in found:
                found.add(child.index)
                stack.append(child.index)
    return frozenset(found)


# --- building frames ---------------------------------------------------------------------


@cache
def _same_forms() -> dict[str, str]:
    """Word form -> the one form a group of synonyms is compared by (frames.toml, "same")."""
    return {
        word_form(word): entry.value
        for entry in lexicon.entries("frames")
        if entry.name == "same"
        for word in entry.words
    }


def _form(word: str) -> str:
    form = word_form(word)
    return _same_forms().get(form, form)


@cache
def _change_forms() -> frozenset[str]:
    return frozenset(word_form(w) for w in lexicon.words("frames", name="change"))


@cache
def _bases() -> tuple[re.Pattern[str], dict[str, tuple[str, str]]]:
    table: dict[str, tuple[str, str]] = {}
    for entry in lexicon.entries("bases"):
        for word in entry.words:
            table[_key(word)] = (entry.name, entry.value)
    pattern = re.compile(rf"(?<![\w-])(?:{lexicon.alternation(table)})(?![\w-])", re.IGNORECASE)
    return pattern, table


def _key(phrase: str) -> str:
    return " ".join(phrase.casefold().replace("-", " ").split())


_SUBJECTS = frozenset({"nsubj", "nsubjpass", "csubj", "expl"})
_VERBS = frozenset({"VERB", "AUX"})
# Words between a value and a qualifier right after it ("9% in constant currency").
_GLUE_WORDS = frozenset({"in", "on", "an", "a", "at", "and", "basis", "terms"})
# How a value hangs on its verb when it is the level the clause states ("was $1.23", "costs
# $12", "includes 100 GB").
_LEVEL_DEPS = frozenset({"attr", "dobj", "nsubj", "nsubjpass", "appos", "acomp", "oprd"})
# Prepositions before a level the sentence compares with.
_EARLIER = frozenset({"from", "with", "versus", "vs", "than", "over"})


def _frames(reading: Reading, sentence: tuple[int, int], *, parsed: bool) -> tuple[Frame, ...]:
    start, end = sentence
    inside = [v for v in values_of(reading) if start <= v.start and v.end <= end]
    if not inside:
        return ()
    layout = _Layout(reading.text[start:end], start, parsed)
    spans = {v: layout.covering(v.start, v.end) for v in inside}
    spans = {v: s for v, s in spans.items() if s}
    dated = [v for v in spans if v.date is not None]
    periods = [
        (p, layout.covering(p.start, p.end))
        for v in dated
        if v.date is not None and (p := of_date(v.date)) is not None
    ]
    periods += [
        (p, layout.covering(p.start, p.end))
        for p in relative_periods(reading.text[start:end], start)
    ]
    bases = _basis_phrases(reading.text, start, end, layout)
    against, against_text = _against(reading.text[start:end])
    reference = _reference(layout, periods)
    frames = []
    groups = {v for v in spans if _describes_group(v)}
    for value, own in spans.items():
        # Words on a branch holding another value of the same class (an amount for an
        # amount, a date for a date) are that value's; a limit that bounds a group ("patients
        # younger than 65") is part of the words the group is named by, not a rival value.
        rivals = [
            s
            for v, s in spans.items()
            if v != value and v not in groups and (v.date is None) == (value.date is None)
        ]
        others = frozenset().union(*rivals)
        measured_others = frozenset().union(
            *(
                s
                for v, s in spans.items()
                if v != value and v.quantity is not None and v not in groups
            )
        )
        distance = layout.distances(own, others)
        wide = layout.distances(own, measured_others) if parsed else distance
        counted = _counted(reading, value)
        words_ = _anchor_words(layout, distance, periods, bases, counted)
        words_.update(_limit_words(value, spans, groups, distance))
        role = _role(layout, own)
        period = None if value.date is not None else _period(wide, periods)
        if period is not None and not period.absolute and role is Role.CHANGE:
            period = None  # "up 83% over the same period last year": what it is compared with
        elif period is not None:
            period = resolved(period, reference)
        frames.append(
            Frame(
                value=value,
                sentence=sentence,
                words=words_,
                subject=_subject(layout, own, others),
                what=_what(layout, own, others),
                period=period,
                bases=_bases_of(value, own, wide, bases, layout),
                role=role,
                counted=counted,
                against=against,
                against_text=against_text,
                parsed=parsed,
                spans=tuple((layout.words[i].start, layout.words[i].end) for i in sorted(own)),
            )
        )
    return tuple(frames)


# What a comparison is taken against: the words after "times", "than", "compared to"...
_AGAINST = re.compile(
    r"\b(?:times|than|compared\s+(?:to|with)|versus|vs\.?|relative\s+to)\s+"
    r"(?P<term>[^,.;:()]{1,60}?)(?=\s+(?:was|were|is|are|had|has|in|among|for|and|with)\b|[,.;:()]|$)",
    re.IGNORECASE,
)


def _against(sentence: str) -> tuple[frozenset[str], str]:
    """What the sentence's one comparison is taken against, if it makes one: its words, and
    as written."""
    found = list(_AGAINST.finditer(sentence))
    if len(found) != 1:
        return frozenset(), ""
    term = found[0].group("term").strip()
    return frozenset(_form(word) for word, _, _ in words(term) if is_content(word)), term


def _counted(reading: Reading, value: Value) -> str | None:
    quantity = value.quantity
    if quantity is None or not quantity.counts:
        return None
    noun = counted_noun(reading.text[quantity.end :])
    return None if noun is None else _form(noun)


def _describes_group(value: Value) -> bool:
    """A limit on an age or a count that names a group rather than states a value: "patients
    younger than 65", "children under 18 years of age", "residents aged 65 and over"."""
    quantity = value.quantity
    return (
        quantity is not None
        and quantity.bound is not None
        and (quantity.unit is None or quantity.unit == "time:year")
    )


def _limit_words(
    value: Value,
    spans: Mapping[Value, frozenset[int]],
    groups: set[Value],
    distance: Mapping[int, int],
) -> dict[str, float]:
    """Each group limit said of the value as a word of its own: "<65", ">=65"."""
    found: dict[str, float] = {}
    for group in groups:
        quantity = group.quantity
        if group == value or quantity is None or quantity.bound is None:
            continue
        steps = [distance[i] for i in spans[group] if i in distance]
        if steps:
            sign = ">=" if quantity.bound.name == "AT_LEAST" else "<"
            found[f"{sign}{quantity.value.normalize()}"] = 1.0 / min(steps)
    return found


def _anchor_words(
    layout: _Layout,
    distance: Mapping[int, int],
    periods: Sequence[tuple[Period, frozenset[int]]],
    bases: Sequence[_Basis],
    counted: str | None = None,
) -> dict[str, float]:
    """The content words the value is said of, each with its closeness; not the words of its
    period and basis (slots of their own), nor the noun a count counts, which is what it is
    rather than what it is of ("33 people" is not said of people more than "8,400 others")."""
    skip = frozenset().union(*(s for _, s in periods), *(b.words for b in bases))
    found: dict[str, float] = {}
    for index, steps in distance.items():
        word = layout.words[index]
        if index in skip or not is_content(word.text) or any(ch.isdigit() for ch in word.text):
            continue
        form = _form(word.text)
        if form == counted:
            continue
        weight = 1.0 / steps
        if weight > found.get(form, 0.0):
            found[form] = weight
    return found


def _subject(layout: _Layout, own: frozenset[int], others: frozenset[int]) -> frozenset[str]:
    """The content words of the subject of the value's clause."""
    tree = layout.parse
    if tree is None:
        # Without the parse: the words before the value in its phrase.
        first = min(own)
        found: list[str] = []
        for word in reversed(layout.words[:first]):
            if word.index in others or PHRASE_BREAK.fullmatch(word.text):
                break
            if is_content(word.text) and not any(ch.isdigit() for ch in word.text):
                found.append(_form(word.text))
        return frozenset(found)
    tokens = tree.tokens
    node = _head(tree, own)
    noun: int | None = None  # the nearest noun above the value, for a clause without a verb
    for _ in range(40):
        subject = _subject_of(tree, node)
        if subject is not None:
            branch = _subtree(tree, subject)
            if branch & own:
                return frozenset()  # the value is the subject ("12% of staff left")
            return _content_forms(tree, branch - others)
        if noun is None and node not in own and tokens[node].pos in {"NOUN", "PROPN"}:
            noun = node
        if tokens[node].head == node:
            break
        node = tokens[node].head
    if noun is None:
        return frozenset()
    # "The operating margin improved by 12%" parsed as a noun with a clause hung on it.
    named = {noun} | {c.index for c in tree.children(noun) if c.dep in {"compound", "amod"}}
    return _content_forms(tree, frozenset(named) - others)


def _content_forms(tree: Parse, indices: frozenset[int]) -> frozenset[str]:
    tokens = tree.tokens
    return frozenset(
        _form(tokens[i].text)
        for i in indices
        if is_content(tokens[i].text) and not any(ch.isdigit() for ch in tokens[i].text)
    )


def _subject_of(tree: Parse, node: int) -> int | None:
    tokens = tree.tokens
    if tokens[node].pos not in _VERBS:
        return None
    for child in tree.children(node):
        if child.dep in _SUBJECTS:
            return child.index
    # A verb conjoined to another shares its subject ("costs $12 and includes 100 GB").
    if tokens[node].dep == "conj" and tokens[tokens[node].head].pos in _VERBS:
        return _subject_of(tree, tokens[node].head)
    return None


def _what(layout: _Layout, own: frozenset[int], others: frozenset[int]) -> str:
    """A few words naming what the value is of, as the sentence writes them."""
    tree = layout.parse
    if tree is None:
        first = min(own)
        before = [
            w.text
            for w in layout.words[max(0, first - 4) : first]
            if w.index not in others and is_content(w.text)
        ]
        return " ".join(before)
    tokens = tree.tokens
    node = _head(tree, own)
    for _ in range(40):
        subject = _subject_of(tree, node)
        if subject is not None and not (_subtree(tree, subject) & own):
            words_ = sorted(i for i in _subtree(tree, subject) if i not in others)
            phrase = " ".join(tokens[i].text for i in words_[-6:])
            return f"{phrase} {tokens[node].text}".strip()
        if tokens[node].pos in {"NOUN", "PROPN"} and node not in own:
            kids = [c.index for c in tree.children(node) if c.dep in {"compound", "amod"}]
            return " ".join(tokens[i].text for i in sorted([*kids, node]) if i not in others)
        if tokens[node].head == node:
            break
        node = tokens[node].head
    return ""


def _reference(layout: _Layout, periods: Sequence[tuple[Period, frozenset[int]]]) -> Period | None:
    """The sentence's own period: the absolute one nearest the root (first, without a parse)."""
    absolute = [(p, s) for p, s in periods if p.absolute and s]
    if not absolute:
        return None
    if layout.parse is None:
        return absolute[0][0]
    depth = _depths(layout.parse)
    return min(absolute, key=lambda item: min(depth[i] for i in item[1]))[0]


def _depths(tree: Parse) -> list[int]:
    found = []
    for token in tree.tokens:
        steps, node = 0, token.index
        while tree.tokens[node].head != node and steps < 40:
            node, steps = tree.tokens[node].head, steps + 1
        found.append(steps)
    return found


def _period(
    distance: Mapping[int, int], periods: Sequence[tuple[Period, frozenset[int]]]
) -> Period | None:
    """The nearest period hanging on the value's path; none where two differ at the nearest."""
    near = _periods_near(distance, periods)
    if not near:
        return None
    best = near[0][1]
    nearest = {p for p, d in near if d == best}
    if len(nearest) > 1:
        return None
    (found,) = nearest
    return found


def _periods_near(
    distance: Mapping[int, int], periods: Sequence[tuple[Period, frozenset[int]]]
) -> tuple[tuple[Period, int], ...]:
    """Every period hanging on the value's path, nearest first, with its distance."""
    near: list[tuple[Period, int]] = []
    for period, span in periods:
        steps = [distance[i] for i in span if i in distance]
        if steps:
            near.append((period, min(steps)))
    return tuple(sorted(near, key=lambda item: (item[1], item[0].start)))


@dataclass(frozen=True)
class _Basis:
    dimension: str
    basis: str
    text: str
    start: int
    end: int
    words: frozenset[int]
    fronted: bool


def _basis_phrases(text: str, start: int, end: int, layout: _Layout) -> list[_Basis]:
    pattern, table = _bases()
    found = []
    sentence = text[start:end]
    for match in pattern.finditer(sentence):
        dimension, basis = table[_key(match.group(0))]
        before = sentence[: match.start()]
        after = sentence[match.end() : match.end() + 40]
        fronted = len(words(before)) <= 3 and bool(re.match(r"^[^,.;]{0,30},", after))
        found.append(
            _Basis(
                dimension,
                basis,
                match.group(0),
                start + match.start(),
                start + match.end(),
                layout.covering(start + match.start(), start + match.end()),
                fronted,
            )
        )
    return found


def _bases_of(
    value: Value,
    own: frozenset[int],
    distance: Mapping[int, int],
    bases: Sequence[_Basis],
    layout: _Layout,
) -> dict[str, tuple[str, str]]:
    """Per dimension, the nearest basis said of the value."""
    ranked: dict[str, list[tuple[int, str, str]]] = {}
    for basis in bases:
        steps = _basis_distance(value, own, distance, basis, layout)
        if steps is not None:
            ranked.setdefault(basis.dimension, []).append((steps, basis.basis, basis.text))
    found = {}
    for dimension, options in ranked.items():
        best = min(steps for steps, _, _ in options)
        nearest = {(b, t) for steps, b, t in options if steps == best}
        if len({b for b, _ in nearest}) == 1:
            found[dimension] = min(nearest)
    return found


def _basis_distance(
    value: Value,
    own: frozenset[int],
    distance: Mapping[int, int],
    basis: _Basis,
    layout: _Layout,
) -> int | None:
    if basis.start >= value.end:
        between = layout.text[value.end - layout.offset : basis.start - layout.offset]
        glue = [w for w, _, _ in words(between)]
        if all(w.casefold() in _GLUE_WORDS for w in glue) and len(glue) <= 3:
            return 0  # right after the value: "9% in constant currency"
    steps = [distance[i] for i in basis.words if i in distance]
    if steps:
        return min(steps)
    return FRONTED if basis.fronted else None


def _role(layout: _Layout, own: frozenset[int]) -> Role:
    """A change where a change word governs the value directly, or through "by" or "of"."""
    changes = _change_forms()
    tree = layout.parse
    if tree is None:
        first = min(own)
        before = [w.text.casefold() for w in layout.words[max(0, first - 3) : first]]
        after = [w.text.casefold() for w in layout.words[max(own) + 1 : max(own) + 2]]
        if before and before[-1] in _EARLIER:
            return Role.EARLIER
        if before and before[-1] in {"to", "at"}:
            return Role.LEVEL
        near = [*before[-2:], *after]
        if "by" in before[-1:] or any(word_form(w) in changes for w in near):
            return Role.CHANGE
        return Role.UNKNOWN
    tokens = tree.tokens
    head = _head(tree, own)
    # A value conjoined to another takes its role ("6% on a reported basis and 9% in constant
    # currency").
    for _ in range(8):
        if tokens[head].dep != "conj" or tokens[head].head == head:
            break
        head = tokens[head].head
    parent = tokens[head].head
    if parent == head:
        return Role.UNKNOWN
    if tokens[parent].dep == "prep" or tokens[parent].pos == "ADP":
        preposition = tokens[parent].text.casefold()
        governor = tokens[parent].head
        changed = word_form(tokens[governor].text) in changes
        if preposition in _EARLIER:
            return Role.EARLIER
        if changed and preposition in {"by", "of"} and _change_near(layout, own):
            return Role.CHANGE
        if preposition in {"to", "at"} or (preposition == "of" and tokens[governor].pos == "NOUN"):
            return Role.LEVEL
        return Role.UNKNOWN
    if word_form(tokens[parent].text) in changes:
        return Role.CHANGE if _change_near(layout, own) else Role.UNKNOWN
    if tokens[head].dep in _LEVEL_DEPS:
        return Role.LEVEL
    return Role.UNKNOWN


# How many words from a value its change word stands ("grew 12%", "an increase of 83%", "a
# 12% rise", "up 8%"): a parse that hangs the value on a change word further off is not
# trusted to have read a change.
_CHANGE_REACH = 3


def _change_near(layout: _Layout, own: frozenset[int]) -> bool:
    changes = _change_forms()
    first, last = min(own), max(own)
    near = layout.words[max(0, first - _CHANGE_REACH) : last + 1 + _CHANGE_REACH]
    return any(w.index not in own and word_form(w.text) in changes for w in near)
