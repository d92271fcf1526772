"""Sentence splitting, the one-claim-per-sentence baseline, and the claim coverage check.

The splitter is a rule-based scanner that keeps exact offsets into the text it splits:

* A sentence ends after ``.``, ``!``, ``?`` or ``…`` (and any closing quotes or brackets
  right after them) when blank space follows and the next word does not start lower-case.
* Decimals and versions (``3.5``, ``v4.2.1``) never end one: no blank space follows the dot.
* A dot after a known abbreviation does not end a sentence: titles and Latin forms never
  (``Dr.``, ``e.g.``, ``vs.``), reference forms before a number (``No. 5``, ``Fig. 2``), and
  company, month, initial and dotted forms (``Inc.``, ``Jan.``, ``J.``, ``U.S.``) only when
  the next word is a usual sentence opener (``The``, ``It``, ``In``...).
* Inside a quotation (paired on one line) no sentence ends: ``He said "Stop. Now." and left``
  is one sentence, while ``He said 'Stop.' Then he left.`` is two, split after the quote.
* Citation markers after the full stop on the same line (``policy. [S1]``) belong to the
  sentence before them, as do markers before it (``policy [S1].``).
* A line break ends a sentence unless the next line continues in lower case; list items
  (``- x``, ``* x``, ``1. x``, ``a) x``) always start a new sentence, and their marker is
  part of the item's first sentence span but not of its claim text.
* A piece holding nothing but markers (a line with only ``[S1]``) joins the sentence before.

Sentence spans never overlap and together cover every non-blank character of the text.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from judge.errors import InputError
from judge.schemas import CharSpan, Claim, ClaimOrigin, CoverageReport, StructuredClaim
from judge.text.citations import CitationMarker, code_ranges, parse_citations, remove_markers

__all__ = [
    "Sentence",
    "base_form",
    "claims_from_structured",
    "content_forms",
    "content_words",
    "coverage",
    "extract_sentence_claims",
    "is_factual",
    "list_marker_spans",
    "split_sentences",
    "word_form",
    "words",
]

# --- words -----------------------------------------------------------------------------


def _wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


_WORD_RE = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|[^\W_]+(?:['’.][^\W_]+)*")

# Function words: never a claim's content.
_STOP_WORDS = _wordset(
    """
    a an the and or but if then else so as of in on at to for from by with about into onto
    upon via per than that which who whom whose what when where why how whether
    is are was were be been being am do does did doing done have has had having
    will would shall should can could
    i me my mine myself we us our ours you your yours he him his she her hers it its itself
    they them their theirs this these those there here one ones
    also just very really quite such own same other another any
    e.g i.e etc vs cf
    """
)

# Words of the conversation around an answer, not of its facts ("Sure!", "Here is what I
# found:", "I hope this helps."). Excluded from content words too.
_DISCOURSE_WORDS = _wordset(
    """
    sure certainly absolutely okay ok yes hello hi hey thanks thank please welcome glad happy
    help helps helpful hope let know found find following information answer answers question
    questions summary overview context provided provide based according source sources
    document documents passage passages details note see great course anything else
    ask need want like well let's here's that's
    """
)

_NEGATION_SUFFIX = "n't"


def words(text: str) -> list[tuple[str, int, int]]:
    """Word tokens of ``text`` with their offsets; numbers keep their decimal points."""
    return [(m.group(), m.start(), m.end()) for m in _WORD_RE.finditer(text)]


def word_form(word: str) -> str:
    """A lower-cased, lightly stemmed form, so that "refunds" and "refunded" compare equal."""
    form = word.lower().replace("’", "'")
    if form.endswith(_NEGATION_SUFFIX):
        return "not"
    if form.endswith("'s"):
        form = form[:-2]
    if any(ch.isdigit() for ch in form):
        return form.replace(",", "")
    return _stem(form)


def content_words(text: str) -> list[tuple[str, int, int]]:
    """The words of ``text`` that carry content: not function or conversational words."""
    return [w for w in words(text) if _is_content(w[0])]


def content_forms(text: str) -> set[str]:
    """The :func:`word_form` of each content word of ``text``: what two texts share."""
    return {word_form(word) for word, _, _ in content_words(text)}


def _is_content(word: str) -> bool:
    lowered = word.lower().replace("’", "'")
    if any(ch.isdigit() for ch in lowered):
        return True
    if lowered.endswith(_NEGATION_SUFFIX):
        return True  # "don't": negation is content
    if lowered.endswith("'s"):
        lowered = lowered[:-2]
    if lowered in _STOP_WORDS or lowered in _DISCOURSE_WORDS:
        return False
    return len(lowered) > 1


# Irregular verb forms read as their base form, so that "met" restates "meet" and "rose"
# "rises"; forms that are also common nouns or adjectives ("left", "found", "saw", "felt",
# "lead", "ground") are left alone.
_IRREGULAR = {
    form: base
    for base, forms in (
        ("arise", "arose arisen"), ("become", "became"), ("begin", "began begun"),
        ("bring", "brought"), ("build", "built"), ("buy", "bought"), ("catch", "caught"),
        ("choose", "chose chosen"), ("come", "came"), ("drive", "drove driven"),
        ("eat", "ate eaten"), ("fall", "fell fallen"), ("fight", "fought"), ("fly", "flew flown"),
        ("forget", "forgot forgotten"), ("get", "got gotten"), ("give", "gave given"),
        ("go", "went gone"), ("grow", "grew grown"), ("hold", "held"), ("keep", "kept"),
        ("know", "knew known"), ("lose", "lost"), ("make", "made"), ("mean", "meant"),
        ("meet", "met"), ("pay", "paid"), ("rise", "rose risen"), ("run", "ran"),
        ("say", "said"), ("see", "seen"), ("sell", "sold"), ("send", "sent"),
        ("sink", "sank sunk"), ("speak", "spoke spoken"), ("spend", "spent"),
        ("steal", "stole stolen"), ("take", "took taken"), ("teach", "taught"),
        ("tell", "told"), ("think", "thought"), ("throw", "threw thrown"),
        ("understand", "understood"), ("win", "won"), ("write", "wrote written"),
        ("seek", "sought"), ("shake", "shook shaken"), ("shrink", "shrank shrunk"),
        ("swim", "swam swum"), ("wear", "wore worn"), ("withdraw", "withdrew withdrawn"),
    )
    for form in forms.split()
}  # fmt: skip


def base_form(word: str) -> str:
    """The base form of an irregular verb form ("met" -> "meet"); other words unchanged."""
    return _IRREGULAR.get(word, word)


def _stem(word: str) -> str:
    # Suffix stripping only, consistent rather than linguistically right: both sides of a
    # comparison go through it.
    if len(word) <= 2:
        return word
    word = base_form(word)
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and len(word) > 3 and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix, keep in (("ing", 3), ("ed", 2)):
        if word.endswith(suffix) and len(word) - len(suffix) >= keep:
            word = word[: -len(suffix)]
            if len(word) > 2 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]
            break
    if word.endswith("e") and len(word) >= 3:
        word = word[:-1]
    return word


# --- sentences -------------------------------------------------------------------------


@dataclass(frozen=True)
class Sentence:
    """A sentence of a text: its exact text, where it stands, and the ids it cites."""

    text: str
    span: CharSpan
    citations: tuple[str, ...] = ()


_TERMINATORS = ".!?…"
_CJK_TERMINATORS = "。！？"
_ALL_TERMINATORS = _TERMINATORS + _CJK_TERMINATORS
_CLOSERS = "\"'”’)»"
_LIST_MARKER_RE = re.compile(r"[ \t]*(?:[-*+•‣◦▪]|\d{1,3}[.)]|\(?[A-Za-z]\))[ \t]+(?=\S)")
_ABBREV_RE = re.compile(r"(?<![A-Za-z0-9.])((?:[A-Za-z]+\.)*[A-Za-z]+)\Z")
_NEXT_WORD_RE = re.compile(r"[^\W_]+")

# A dot after these never ends a sentence.
_ALWAYS_ABBREVS = _wordset(
    """
    mr mrs ms dr prof rev hon st mt gen col lt sgt capt cmdr sen rep gov pres supt
    vs v e.g i.e cf viz approx ca esp incl dept univ a.k.a
    """
)
# These are abbreviations only before a number: "No. 5", "Fig. 2", "pp. 10-12".
_NUMBER_ABBREVS = _wordset(
    "no nos nr fig figs vol vols p pp art arts sec secs ch chap eq eqs para paras est ref refs tab"
)
# These may end a sentence; they do when the next word usually opens one.
_ENDING_ABBREVS = _wordset(
    """
    etc inc ltd co corp llc plc bros jr sr al
    jan feb mar apr jun jul aug sep sept oct nov dec
    """
)
_SENTENCE_OPENERS = _wordset(
    """
    the a an this that these those it its he she they we i you there here in on at for as but
    and or so however also after before when while if although though both each all some many
    most no not one his her their our my your what which who how why where since because then
    thus therefore moreover furthermore additionally meanwhile finally first second third today
    by from with to of under during according other another such only unlike despite instead
    overall still yet next later now see note
    """
)


def split_sentences(
    text: str, *, known_ids: Collection[str] | None = None, strict: bool = True
) -> list[Sentence]:
    """Split ``text`` into sentences with exact offsets (``text[span.start:span.end]``).

    Citation markers are parsed with :func:`judge.text.citations.parse_citations`; with
    ``strict=True`` a malformed marker raises :class:`judge.errors.InputError`.
    """
    markers = parse_citations(text, known_ids=known_ids, strict=strict)
    return _split(text, markers, list_marker_spans(text))


def list_marker_spans(text: str) -> list[CharSpan]:
    """Spans of list-item markers (``- ``, ``1. ``, ``a) ``) at line starts, blanks included."""
    spans: list[CharSpan] = []
    for line_start in _line_starts(text):
        match = _LIST_MARKER_RE.match(text, line_start)
        if match is not None:
            spans.append(CharSpan(start=line_start, end=match.end()))
    return spans


def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer(r"\n", text)]


def _split(
    text: str, markers: Sequence[CitationMarker], list_markers: Sequence[CharSpan]
) -> list[Sentence]:
    blocked = bytearray(len(text))  # 1 where a dot cannot end a sentence
    for start, end in [(m.span.start, m.span.end) for m in markers] + code_ranges(text):
        blocked[start:end] = b"\x01" * (end - start)
    for span in list_markers:
        blocked[span.start : span.end] = b"\x01" * (span.end - span.start)
    marker_at = {m.span.start: m.span.end for m in markers}
    quoted = bytearray(len(text) + 1)  # 1 where a cut would fall inside a quotation
    for open_, close in _quote_ranges(text):
        quoted[open_ + 1 : close + 1] = b"\x01" * (close - open_)

    cuts: list[tuple[int, int]] = []  # (end of one sentence, start of the next)
    for block_start, block_end in _blocks(text, list_markers):
        cuts.extend(_cuts_in_block(text, block_start, block_end, blocked, marker_at, quoted))
        cuts.append((block_end, block_end))

    pieces: list[tuple[int, int]] = []
    start = 0
    for end, next_start in cuts:
        piece = _trim(text, start, end)
        if piece is not None:
            pieces.append(piece)
        start = next_start
    pieces = _merge_empty(text, pieces, markers, list_markers)
    return [
        Sentence(
            text=text[s:e],
            span=CharSpan(start=s, end=e),
            citations=_ids_within(markers, s, e),
        )
        for s, e in pieces
    ]


def _blocks(text: str, list_markers: Sequence[CharSpan]) -> list[tuple[int, int]]:
    """Runs of lines that may hold one sentence across a line break."""
    item_starts = {span.start for span in list_markers}
    starts = _line_starts(text)
    lines = [
        (start, (starts[i + 1] - 1) if i + 1 < len(starts) else len(text))
        for i, start in enumerate(starts)
    ]
    blocks: list[tuple[int, int]] = []
    block_start = 0
    for (prev_start, prev_end), (start, end) in itertools.pairwise(lines):
        stripped = text[start:end].lstrip()
        continues = (
            bool(text[prev_start:prev_end].strip())
            and bool(stripped)
            and stripped[0].islower()
            and start not in item_starts
        )
        if not continues:
            blocks.append((block_start, prev_end))
            block_start = start
    blocks.append((block_start, len(text)))
    return blocks


def _cuts_in_block(
    text: str,
    start: int,
    end: int,
    blocked: bytearray,
    marker_at: dict[int, int],
    quoted: bytearray,
) -> list[tuple[int, int]]:
    cuts: list[tuple[int, int]] = []
    pos = start
    while pos < end:
        if blocked[pos] or text[pos] not in _ALL_TERMINATORS:
            pos += 1
            continue
        run_end = pos
        while run_end < end and text[run_end] in _ALL_TERMINATORS:
            run_end += 1
        while run_end < end and text[run_end] in _CLOSERS:
            run_end += 1
        sentence_end, next_start = _after_terminator(text, run_end, end, marker_at)
        if _is_boundary(text, pos, run_end, sentence_end, next_start, end, quoted):
            cuts.append((sentence_end, next_start))
            pos = max(next_start, run_end)
        else:
            pos = run_end
    return cuts


def _after_terminator(text: str, pos: int, end: int, marker_at: dict[int, int]) -> tuple[int, int]:
    """Where the sentence ends (after any trailing markers) and where the next text starts."""
    sentence_end = pos
    cursor = pos
    while True:
        probe = cursor
        while probe < end and text[probe] in " \t\r":
            probe += 1
        if probe in marker_at:
            cursor = sentence_end = marker_at[probe]
            continue
        return sentence_end, probe


def _is_boundary(
    text: str,
    pos: int,
    run_end: int,
    sentence_end: int,
    next_start: int,
    end: int,
    quoted: bytearray,
) -> bool:
    if next_start >= end:
        return True
    if next_start == sentence_end and text[run_end - 1] not in _CJK_TERMINATORS:
        return False  # no blank after: "3.5", "v4.2.1", "example.com"
    if text[next_start].islower():
        return False
    if quoted[run_end]:
        return False
    if text[pos:run_end] == ".":  # a lone dot, no closing quote or bracket after it
        return not _is_abbreviation(text, pos, next_start)
    return True


def _is_abbreviation(text: str, dot: int, next_start: int) -> bool:
    match = _ABBREV_RE.search(text, max(0, dot - 24), dot)
    if match is None:
        return False
    token = match.group(1)
    lowered = token.lower()
    next_char = text[next_start]
    if lowered in _ALWAYS_ABBREVS:
        return True
    if lowered in _NUMBER_ABBREVS:
        return next_char.isdigit() or next_char == "#"
    if lowered == "etc":
        return False  # it ends a sentence whenever an upper-case word follows
    if lowered == "al" and not text.endswith("et ", 0, match.start()):
        return False  # "et al." only; "El Al." is a name
    initial = len(token) == 1 and token.isupper()
    dotted = "." in lowered and all(len(part) <= 2 for part in lowered.split("."))  # U.S., Ph.D.
    if lowered in _ENDING_ABBREVS or dotted or initial:
        next_word = _NEXT_WORD_RE.match(text, next_start)
        return next_word is None or next_word.group().lower() not in _SENTENCE_OPENERS
    return False


def _quote_ranges(text: str) -> list[tuple[int, int]]:
    """Pairs of (opening, closing) quote positions, each pair within one line."""
    ranges: list[tuple[int, int]] = []
    for line_start in _line_starts(text):
        line_end = text.find("\n", line_start)
        ranges.extend(_quotes_in_line(text, line_start, len(text) if line_end < 0 else line_end))
    return ranges


def _quotes_in_line(text: str, start: int, end: int) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    open_quotes: list[tuple[str, int]] = []  # (kind, position)
    for pos in range(start, end):
        char = text[pos]
        if char not in "\"'“”‘’«»":
            continue
        before = text[pos - 1] if pos > start else " "
        after = text[pos + 1] if pos + 1 < end else " "
        kind = "d" if char in '"“”«»' else "s"
        opens = char in "“«‘" or (
            char in "\"'" and (before.isspace() or before in "([{—-") and not after.isspace()
        )
        closes = char in "”»’" or (char in "\"'" and not before.isspace())
        if kind == "s" and closes and not opens and before.isalnum() and after.isalnum():
            continue  # an apostrophe: "don't", "Acme’s"
        if closes and any(k == kind for k, _ in open_quotes):
            while open_quotes:
                open_kind, open_pos = open_quotes.pop()
                if open_kind == kind:
                    ranges.append((open_pos, pos))
                    break
        elif opens:
            open_quotes.append((kind, pos))
    return ranges


def _trim(text: str, start: int, end: int) -> tuple[int, int] | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def _merge_empty(
    text: str,
    pieces: list[tuple[int, int]],
    markers: Sequence[CitationMarker],
    list_markers: Sequence[CharSpan],
) -> list[tuple[int, int]]:
    """Join pieces that hold only markers to the sentence before (or, first, the one after)."""
    merged: list[tuple[int, int]] = []
    pending_start: int | None = None
    for start, end in pieces:
        if not _body(text, start, end, markers, list_markers).strip():
            if merged:
                merged[-1] = (merged[-1][0], end)
            elif pending_start is None:
                pending_start = start
            continue
        if pending_start is not None:
            start, pending_start = pending_start, None
        merged.append((start, end))
    if pending_start is not None:
        merged.append((pending_start, pieces[-1][1]))  # nothing but markers in the whole text
    return merged


def _body(
    text: str,
    start: int,
    end: int,
    markers: Sequence[CitationMarker],
    list_markers: Sequence[CharSpan],
) -> str:
    """The words of a sentence: no citation markers, no leading list marker."""
    index = bisect.bisect_right(list_markers, start, key=lambda span: span.start) - 1
    if index >= 0 and start < list_markers[index].end:
        start = list_markers[index].end
    return remove_markers(text[start:end], _within(markers, start, end), offset=start)


def _ids_within(markers: Sequence[CitationMarker], start: int, end: int) -> tuple[str, ...]:
    ids: dict[str, None] = {}
    for marker in _within(markers, start, end):
        ids.update(dict.fromkeys(marker.ids))
    return tuple(ids)


def _within(markers: Sequence[CitationMarker], start: int, end: int) -> list[CitationMarker]:
    """The markers (in text order) that lie inside ``start:end``."""
    found: list[CitationMarker] = []
    index = bisect.bisect_left(markers, start, key=lambda marker: marker.span.start)
    while index < len(markers) and markers[index].span.start < end:
        if markers[index].span.end <= end:
            found.append(markers[index])
        index += 1
    return found


# --- claims ----------------------------------------------------------------------------

_STOCK_PHRASE_RE = re.compile(
    r"\b(?:feel free|do not hesitate|don't hesitate|reach out|happy to help|glad to help)\b",
    re.IGNORECASE,
)
_HEADING_MAX_WORDS = 3
_HEADING_RE = re.compile(r"\s*(?:#{1,6}\s|\*\*[^*]+\*\*:?\s*\Z|__[^_]+__:?\s*\Z)")


def is_factual(text: str) -> bool:
    """Whether ``text`` holds something to check: at least one content word.

    Stock phrases ("feel free to ask", "let me know") are not content. Markdown headings and
    lines that are only bold (``## Results``, ``**Summary**``) are structure, not claims,
    unless they hold a number.
    """
    body = remove_markers(text, parse_citations(text, strict=False))
    body = _STOCK_PHRASE_RE.sub(" ", body)
    marker = _LIST_MARKER_RE.match(body)
    if marker is not None:
        body = body[marker.end() :]
    if _HEADING_RE.match(body) and not any(ch.isdigit() for ch in body):
        # "## Results" is structure; "## Opened items get a full refund" states a fact.
        return len(content_words(body)) > _HEADING_MAX_WORDS
    return bool(content_words(body))


def extract_sentence_claims(
    answer: str, *, known_ids: Collection[str] | None = None
) -> list[Claim]:
    """One claim per sentence of ``answer``: text without citations, span, cited ids.

    Raises :class:`judge.errors.InputError` on a malformed citation. Sentences without
    content ("Sure!") become claims too; :func:`is_factual` tells them apart.
    """
    return split_answer(answer, known_ids=known_ids)[1]


def split_answer(
    answer: str, *, known_ids: Collection[str] | None = None
) -> tuple[list[Sentence], list[Claim]]:
    """The sentences of ``answer`` and the one-claim-per-sentence baseline, from one split.

    Raises :class:`judge.errors.InputError` on a malformed citation."""
    markers = parse_citations(answer, known_ids=known_ids, strict=True)
    list_markers = list_marker_spans(answer)
    sentences = _split(answer, markers, list_markers)
    claims: list[Claim] = []
    for index, sentence in enumerate(sentences):
        span = sentence.span
        body = _body(answer, span.start, span.end, markers, list_markers)
        claim_text = " ".join(body.split())
        if not claim_text:
            continue  # an answer of nothing but markers
        claims.append(
            Claim(
                id=f"c{len(claims) + 1}",
                text=claim_text,
                span=span,
                sentence_index=index,
                citations=sentence.citations,
                origin=ClaimOrigin.SENTENCE,
            )
        )
    return sentences, claims


def claims_from_structured(items: Sequence[StructuredClaim]) -> list[Claim]:
    """Claims given by the caller, with the chunk ids each one cites."""
    claims: list[Claim] = []
    for index, item in enumerate(items):
        text = " ".join(item.text.split())
        if not text:
            raise InputError(f"claim {index} has no text", field="claims")
        claims.append(
            Claim(
                id=f"c{index + 1}",
                text=text,
                citations=tuple(item.cited_ids),
                origin=ClaimOrigin.STRUCTURED,
            )
        )
    return claims


# --- coverage --------------------------------------------------------------------------


def coverage(answer: str, claims: Sequence[Claim], sentences: Sequence[Sentence]) -> CoverageReport:
    """Which content of ``answer`` no claim accounts for.

    A content word (citation markers and list markers aside) is covered by a claim whose span
    holds it, or, for decomposed claims and claims without a span, by a claim whose text holds
    the same word form; a decomposed claim with a span only covers words inside that span.
    A conclusion claim covers nothing: it restates the whole answer. Words of non-factual
    sentences (headings) are not counted. A factual sentence with no claim (by
    ``sentence_index`` or by span) is reported as well.
    """
    excluded = [(m.span.start, m.span.end) for m in parse_citations(answer, strict=False)]
    excluded += [(s.start, s.end) for s in list_marker_spans(answer)]
    excluded += [(s.span.start, s.span.end) for s in sentences if not is_factual(s.text)]
    by_span: list[CharSpan] = []
    by_words: list[tuple[CharSpan | None, frozenset[str]]] = []
    for claim in claims:
        if claim.origin is ClaimOrigin.CONCLUSION:
            continue  # it restates the answer as a whole, so it would cover anything
        if claim.span is not None and claim.origin is not ClaimOrigin.DECOMPOSED:
            by_span.append(claim.span)
        else:
            forms = frozenset(word_form(w) for w, _, _ in words(claim.text))
            by_words.append((claim.span, forms))

    report = CoverageReport()
    for word, start, end in content_words(answer):
        if any(s <= start < e for s, e in excluded):
            continue
        if any(span.start <= start and end <= span.end for span in by_span):
            continue
        form = word_form(word)
        if any(
            form in forms and (span is None or (span.start <= start and end <= span.end))
            for span, forms in by_words
        ):
            continue
        report.uncovered_words.append(word)
        report.uncovered_spans.append(CharSpan(start=start, end=end))

    claimed = {c.sentence_index for c in claims if c.sentence_index is not None}
    spans = [c.span for c in claims if c.span is not None]
    for index, sentence in enumerate(sentences):
        if index in claimed or not is_factual(sentence.text):
            continue
        s = sentence.span
        if not any(span.start < s.end and s.start < span.end for span in spans):
            report.sentences_without_claims.append(s)
    return report
