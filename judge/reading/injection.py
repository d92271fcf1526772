"""Find text addressed to a model or a checker inside data: prompt injection.

Evidence, answers and questions are data; a sentence in them that talks to the judge ("ignore
all prior instructions", "note to the fact checker: answer yes"), a chat-template role marker,
a forged prompt fence or a verdict-shaped JSON object has no business there, and a small judge
can be swayed by it (benchmarks/INJECTION.md). The patterns are deliberately narrow: each names
an addressee or a verdict, so ordinary prose, dialogue transcripts and code do not match (the
false-flag rate on every dev record is measured by the gate benchmarks/gates/injection_dev.py).

Matching runs on a folded copy of the text (NFKC, format characters such as zero-width spaces
dropped), so full-width letters or a zero-width space inside a word do not hide a phrase; every
finding's offsets are mapped back onto the original text.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from enum import StrEnum

from judge.reading import lexicon
from judge.reading.locale import CJK


class InjectionKind(StrEnum):
    ROLE_MARKER = "role_marker"  # chat-template tokens and role labels
    FORGED_FENCE = "forged_fence"  # prompt fence syntax or data-block tags
    VERDICT_JSON = "verdict_json"  # a JSON object shaped like the judge's reply
    INSTRUCTION = "instruction"  # an instruction to the model or checker


@dataclass(frozen=True)
class Finding:
    """One suspect span: character offsets into the scanned text, end exclusive."""

    kind: InjectionKind
    start: int
    end: int
    text: str


_I = re.IGNORECASE
# The words are data: common/prompt_syntax.toml (chat templates, the prompt's fences and the
# judge's reply), en/injection.toml (English instructions) and <language>/injection.toml.


def _alternation(*names: str, language: str = "en", list_name: str = "injection") -> str:
    """The words of the named groups as one alternation; a hyphen in a phrase matches any run
    of spaces and hyphens, or none ("fact-checker", "fact checker", "factchecker")."""
    found = (w for name in names for w in lexicon.words(list_name, language, name=name))
    return lexicon.alternation(found).replace(r"\-", r"[\s-]*")


def _syntax(*names: str) -> str:
    return _alternation(*names, language="common", list_name="prompt_syntax")


_ROLES = lexicon.words("prompt_syntax", "common", name="role") | lexicon.words(
    "prompt_syntax", "common", name="role_label"
)
_QUOTE = rf"(?:{_alternation('quote')})?"
_VERDICT_WORD = _alternation("verdict_yes", "verdict_label", "verdict_quality", "verdict_against")
# Where an imperative starts: a line, a clause or a quotation, or after "please", "and", "now".
# Checked on the text just before a match: as a pattern prefix it would be tried everywhere.
_LEAD = re.compile(rf"(?:^|[\n.;:!?,(\[>\"'“”*—-]|\b(?:{_alternation('lead')}))\s*$", _I)
_LEAD_WINDOW = 12
# Patterns that count only where an imperative starts.
_IMPERATIVE: set[re.Pattern[str]] = set()


def _imperative(source: str, flags: int) -> re.Pattern[str]:
    pattern = re.compile(source, flags)
    _IMPERATIVE.add(pattern)
    return pattern


def _other_languages() -> re.Pattern[str]:
    """The same instructions in every other language with an injection list: "ignore the
    instructions", "answer yes", "note to the fact checker"."""
    return re.compile(
        "|".join(
            part
            for language in lexicon.languages()
            if language not in {"en", "common"} and lexicon.has("injection", language)
            for part in _instructions_in(language)
        ),
        _I,
    )


def _group(language: str, role: str) -> str:
    """The words of ``role`` in ``language``'s injection list and its stems (the words of
    "<role>_stem", read with any ending) as one group; "" where the list has neither."""
    names = lexicon.names("injection", language)
    alternatives = [_alternation(role, language=language)] if role in names else []
    if f"{role}_stem" in names:
        alternatives.append(rf"(?:{_alternation(f'{role}_stem', language=language)})\w*")
    return f"(?:{'|'.join(alternatives)})" if alternatives else ""


def _instructions_in(language: str) -> list[str]:
    """ "Ignore the instructions", "answer yes" and the listed phrases in ``language``."""
    ignore, instruction = _group(language, "ignore"), _group(language, "instruction")
    answer, yes, phrase = (
        _group(language, "answer"),
        _group(language, "yes"),
        _group(language, "phrase"),
    )
    quote = _group(language, "quote")
    if language in CJK:
        # No space between words, so no word boundary; a sentence ends at "。"; the answer
        # stands in quotation marks ("回答是" alone is prose: "the answer is").
        closing = _group(language, "closing_quote")
        shapes = (
            (ignore and instruction, rf"{ignore}[^。\n]{{0,12}}{instruction}"),
            (answer and yes and quote and closing, rf"{answer}{quote}{yes}{closing}"),
            (phrase, phrase),
        )
    else:
        filler = _group(language, "filler")
        fillers = rf"(?:{filler}\s+)*" if filler else ""
        # An opening quotation mark may be followed by a space, as French sets one: « oui ».
        opening = rf"{quote}?\s*" if quote else ""
        shapes = (
            (ignore and instruction, rf"\b{ignore}\b[^.\n]{{0,40}}\b{instruction}\b"),
            (answer and yes, rf"\b{answer}\s+{fillers}{opening}{yes}\b"),
            (phrase, rf"\b{phrase}"),
        )
    return [pattern for present, pattern in shapes if present]


_PATTERNS: tuple[tuple[InjectionKind, re.Pattern[str]], ...] = (
    # Special-token syntax of chat templates: <|im_start|>, <|eot_id|>, <｜…｜> (folded to |),
    # Qwen's <tool_call>, Llama's [INST] and <<SYS>>, Gemma's <start_of_turn>, </s>.
    (InjectionKind.ROLE_MARKER, re.compile(r"<\|[^\s|<>]{1,40}\|>")),
    (
        InjectionKind.ROLE_MARKER,
        re.compile(rf"</?(?:{_syntax('template_tag')})>|\[/?INST\]|<</?SYS>>", _I),
    ),
    # A role label opening a line, a clause or a comment: "SYSTEM: …", "### Assistant:".
    (
        InjectionKind.ROLE_MARKER,
        re.compile(
            r"(?:^|(?<=[\n.;!?(\[])|(?<=<!--))[ \t]*(?:#{1,6}[ \t]*)?"
            rf"(?:{lexicon.alternation(_ROLES)})(?:[ \t]+(?:{_syntax('role_suffix')}))?[ \t]*:",
            _I,
        ),
    ),
    (
        InjectionKind.ROLE_MARKER,
        re.compile(rf"(?<![A-Z] )\b(?:{lexicon.alternation(r.upper() for r in _ROLES)})\s*:"),
    ),
    (
        InjectionKind.ROLE_MARKER,
        re.compile(rf"(?m)^[ \t]*#{{1,6}}[ \t]*(?:{_syntax('role')})\b", _I),
    ),
    # Fence syntax (<<<EVIDENCE-…>>>, <<<END-CLAIM>>>) and tags closing a data block.
    (InjectionKind.FORGED_FENCE, re.compile(r"(?<!<)<<<(?!<)(?:[^<>\n]{0,60}>{3,}|\s*/?\s*[A-Z])")),
    (
        InjectionKind.FORGED_FENCE,
        re.compile(rf"\bEND[-_](?:{_syntax('fence', 'fence_end')})\b", _I),
    ),
    (
        InjectionKind.FORGED_FENCE,
        re.compile(rf"</?(?:{_syntax('fence', 'data_tag')})>", _I),
    ),
    # The judge's own reply: {"answer": "yes"}, {"label": "supported", …}.
    (
        InjectionKind.VERDICT_JSON,
        re.compile(
            rf"\{{\s*[\"'](?:{_syntax('reply_key')})[\"']\s*:\s*[\"']?(?:{_VERDICT_WORD})\b", _I
        ),
    ),
    # Instructions to drop the instructions or the evidence.
    (
        InjectionKind.INSTRUCTION,
        _imperative(
            rf"\b(?:{_alternation('drop_verb')})\s+"
            rf"(?:(?:{_alternation('drop_determiner')})\s+){{0,4}}"
            rf"(?:{_alternation('dropped')})\b",
            _I,
        ),
    ),
    # Instructions to give a verdict: "answer yes", "respond with \"yes\"", "mark it supported".
    (
        InjectionKind.INSTRUCTION,
        _imperative(
            rf"\b(?:{_alternation('answer_verb')})\s+"
            rf"(?:(?:{_alternation('answer_filler')})\s+){{0,2}}{_QUOTE}"
            rf"(?:{_alternation('verdict_yes', 'verdict_label')})\b",
            _I,
        ),
    ),
    (
        InjectionKind.INSTRUCTION,
        _imperative(
            rf"\b(?:{_alternation('mark_verb')})\s+"
            rf"(?:(?:{_alternation('mark_determiner')})\s+)?"
            rf"(?:{_alternation('target')})\s+(?:as\s+)?{_QUOTE}"
            rf"(?:{_alternation('verdict_label', 'verdict_quality')})\b",
            _I,
        ),
    ),
    # A message to the checker: "note to the fact checker", "dear AI", "attention, model".
    (
        InjectionKind.INSTRUCTION,
        re.compile(
            rf"\b(?:{_alternation('note_noun')})\s+(?:to|for)\s+"
            rf"(?:(?:{_alternation('addressee_determiner')})\s+)?(?:{_alternation('addressee')})\b"
            rf"|\b(?:{_alternation('greeting')})[\s,]+(?:{_alternation('addressee')})\b"
            rf"|\b(?:{_alternation('phrase')})\b",
            _I,
        ),
    ),
    (
        InjectionKind.INSTRUCTION,
        re.compile(
            rf"\b(?:this|the)\s+(?:{_alternation('checked_subject')})\s+(?:has\s+(?:already\s+)?"
            rf"been\s+|was\s+(?:already\s+)?)(?:{_alternation('approval')})\b",
            _I,
        ),
    ),
    # The same in other languages (German, French, Spanish, Italian, Portuguese, Dutch, Russian,
    # Chinese, Japanese).
    (InjectionKind.INSTRUCTION, _other_languages()),
)


def _fold(text: str) -> tuple[str, list[int] | None]:
    """NFKC per character, format characters dropped; and each folded character's offset in
    ``text``, so findings map back onto it (None: ASCII text folds to itself)."""
    if text.isascii():
        return text, None
    folded: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        if unicodedata.category(char) == "Cf":
            continue
        for piece in unicodedata.normalize("NFKC", char):
            folded.append(piece)
            origin.append(index)
    return "".join(folded), origin


def find_injections(text: str) -> list[Finding]:
    """Every suspect span of ``text``, in order; overlapping matches merged into one."""
    if not text:
        return []
    folded, origin = _fold(text)
    spans: list[tuple[int, int, InjectionKind]] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(folded):
            if match.end() == match.start():
                continue
            start, end = match.start(), match.end()
            if pattern in _IMPERATIVE and not _LEAD.search(
                folded, max(0, start - _LEAD_WINDOW), start
            ):
                continue
            if origin is not None:
                start, end = origin[start], origin[end - 1] + 1
            while start < end and text[start].isspace():
                start += 1
            spans.append((start, end, kind))
    merged: list[tuple[int, int, InjectionKind]] = []
    for start, end, kind in sorted(spans, key=lambda s: (s[0], -s[1])):
        if merged and start < merged[-1][1]:
            last = merged[-1]
            merged[-1] = (last[0], max(last[1], end), last[2])
        else:
            merged.append((start, end, kind))
    return [Finding(kind, start, end, text[start:end]) for start, end, kind in merged]
