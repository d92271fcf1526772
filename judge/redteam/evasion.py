"""Evasion of the exact checks: a wrong number or identifier written so that a check might not
read it (look-alike, invisible or full-width characters, words, another scale or unit).

Each attack edits one number or identifier of the sentence most likely true, one that occurs
in its cited evidence, and the case is that sentence alone: the wrong value must still be
flagged. Controls write the *right* value the same ways and must keep the clean verdict, so a
verifier that rejects every odd-looking number does not score.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from judge.redteam import transforms as tx
from judge.redteam.model import Attack, Expect, Expectation, Seed, Sentence, Variant
from judge.redteam.picking import attack_first, in_evidence
from judge.schemas import Label

FAMILY = "evasion"
_NUMBER_FLAGS = frozenset({Label.NUMBER_MISMATCH})
_IDENTIFIER_FLAGS = frozenset({Label.IDENTIFIER_MISMATCH})
_CONVERSION_FLAGS = frozenset({Label.NUMBER_MISMATCH, Label.NEEDS_REVIEW})
# A value a check cannot read is caught when it is sent to review, too.
_LOOKALIKE_NUMBER_FLAGS = _CONVERSION_FLAGS
_LOOKALIKE_IDENTIFIER_FLAGS = frozenset({Label.IDENTIFIER_MISMATCH, Label.NEEDS_REVIEW})

# A token (or a sentence) -> its rewrite, or None where it has no hold.
Rewrite = Callable[[str], str | None]


def _token_attack(
    seed: Seed,
    spans: Callable[[str], list[tuple[int, int]]],
    encode: Rewrite,
    expect: Expectation,
    *,
    wrong: bool,
) -> Variant | None:
    """Rewrite the first token (found by ``spans``) that occurs in the cited evidence: made
    wrong first (a value the evidence does not hold) when ``wrong``, then ``encode``d."""

    def edit(_index: int, sentence: Sentence) -> Sentence | None:
        evidence = seed.cited_text(sentence)
        for start, end in spans(sentence.text):
            token = sentence.text[start:end]
            if not in_evidence(token, evidence):
                continue
            value = wrong_value(token, evidence) if wrong else token
            new = None if value is None else encode(value)
            if new is not None and new != token:
                return Sentence(tx.replace_span(sentence.text, start, end, new), sentence.cites)
        return None

    return attack_first(seed, edit, expect)


def wrong_value(token: str, evidence: str) -> str | None:
    """A wrong value written like ``token`` that the evidence does not hold anywhere, so the
    check cannot find it by chance: digits swapped, or else the last digit changed."""
    candidates = [tx.wrong_digits(token)]
    last = max(i for i, ch in enumerate(token) if ch.isascii() and ch.isdigit())
    candidates += [
        token[:last] + str((int(token[last]) + step) % 10) + token[last + 1 :]
        for step in range(1, 10)
    ]
    return next((c for c in candidates if c != token and not in_evidence(c, evidence)), None)


def _changed(rewrite: Rewrite) -> Rewrite:
    """``rewrite``, or None where it leaves the text as it was (no letter to disguise)."""

    def run(text: str) -> str | None:
        new = rewrite(text)
        return None if new == text else new

    return run


def _sentence_attack(seed: Seed, edit: Rewrite, expect: Expectation) -> Variant | None:
    def rewrite(_index: int, sentence: Sentence) -> Sentence | None:
        text = edit(sentence.text)
        return None if text is None else Sentence(text, sentence.cites)

    return attack_first(seed, rewrite, expect)


def _identifiers(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in tx.IDENTIFIER.finditer(text)]


def _integers(text: str) -> list[tuple[int, int]]:
    # Whole numbers that read as a count of something: not money, not a percentage.
    return [
        (s, e)
        for s, e in tx.numbers_in(text)
        if text[s:e].isdigit() and not text[:s].endswith(("$", "€", "£")) and text[e : e + 1] == " "
    ]


def _spelled(token: str) -> str:
    return tx.spell_integer(int(token))


def _scaled(text: str, factor: int) -> str | None:
    for match in tx.scaled_numbers(text):
        try:
            expanded = tx.expand_scale(match.group(1), match.group(2), factor)
        except ValueError:
            continue
        return tx.replace_span(text, match.start(), match.end(), expanded)
    return None


# Short units glued to a number, for rewrites such as "30 days" -> "30d".
_SHORT_UNITS = {"day": "d", "week": "wk", "hour": "h", "minute": "min", "second": "sec",
                "month": "mo", "year": "yr"}  # fmt: skip


def _dollars(text: str) -> list[tuple[int, int]]:
    """Spans of the dollar amounts of ``text``, sign and number ("$15")."""
    return [(s - 1, e) for s, e in tx.numbers_in(text) if text[s - 1 : s] == "$"]


def _glued_unit(duration: str) -> str:
    number, unit = duration.split(" ", 1)
    return number + _SHORT_UNITS[unit.lower().removesuffix("s")]


def _glued_code(amount: str) -> str:
    return "USD" + amount.removeprefix("$")


Build = Callable[[Seed], Variant | None]


def _number(
    encode: Rewrite,
    spans: Callable[[str], list[tuple[int, int]]] = tx.numbers_in,
    flags: frozenset[Label] = _NUMBER_FLAGS,
) -> Build:
    expect = Expectation(Expect.MUST_FLAG, flags)
    return partial(_token_attack, spans=spans, encode=encode, expect=expect, wrong=True)


def _identifier(encode: Rewrite, flags: frozenset[Label] = _IDENTIFIER_FLAGS) -> Build:
    expect = Expectation(Expect.MUST_FLAG, flags)
    return partial(_token_attack, spans=_identifiers, encode=encode, expect=expect, wrong=True)


def _control(spans: Callable[[str], list[tuple[int, int]]], encode: Rewrite) -> Build:
    expect = Expectation(Expect.MATCH_CLEAN)
    return partial(_token_attack, spans=spans, encode=encode, expect=expect, wrong=False)


def _sentence(edit: Rewrite, expect: Expectation) -> Build:
    return partial(_sentence_attack, edit=edit, expect=expect)


_ZERO_WIDTH = partial(tx.insert_zero_width, char=tx.ZERO_WIDTH_SPACE)
_JOINER = partial(tx.insert_zero_width, char=tx.WORD_JOINER)
_FLAG_NUMBER = Expectation(Expect.MUST_FLAG, _NUMBER_FLAGS)
_SAME: Rewrite = str

ATTACKS: tuple[Attack, ...] = (
    Attack(FAMILY, "swapped_digits", "two digits of a number swapped", _number(_SAME)),
    Attack(
        FAMILY,
        "fullwidth_digits",
        "a wrong number in full-width digits",
        _number(tx.fullwidth_digits),
    ),
    Attack(
        FAMILY,
        "zero_width_number",
        "a wrong number with zero-width spaces between its digits",
        _number(_ZERO_WIDTH),
    ),
    Attack(
        FAMILY,
        "lookalike_digit",
        "a wrong number with a digit written as a look-alike letter (0 as Cyrillic O)",
        _number(tx.digit_lookalike, flags=_LOOKALIKE_NUMBER_FLAGS),
    ),
    Attack(
        FAMILY,
        "spelled_number",
        "a wrong count spelled out in words",
        _number(_spelled, spans=_integers),
    ),
    Attack(
        FAMILY,
        "scale_slip",
        "a scaled number expanded a place wrong (1.5 million as 15,000,000)",
        _sentence(partial(_scaled, factor=10), _FLAG_NUMBER),
    ),
    Attack(
        FAMILY,
        "unit_swap",
        "the same number in another unit",
        _sentence(tx.swap_unit, _FLAG_NUMBER),
    ),
    Attack(
        FAMILY,
        "unit_rewrite",
        "a duration rewritten wrongly in a larger unit, in words (14 days as one month)",
        _sentence(tx.convert_unit_wrongly, Expectation(Expect.MUST_FLAG, _CONVERSION_FLAGS)),
    ),
    Attack(FAMILY, "swapped_identifier", "two digits of an identifier swapped", _identifier(_SAME)),
    Attack(
        FAMILY,
        "zero_width_identifier",
        "a wrong identifier with zero-width spaces inside",
        _identifier(_ZERO_WIDTH),
    ),
    Attack(
        FAMILY,
        "cyrillic_identifier",
        "a wrong identifier with Cyrillic look-alike letters",
        _identifier(_changed(tx.cyrillic_letters)),
    ),
    Attack(
        FAMILY,
        "lookalike_identifier_digit",
        "a wrong identifier with a digit written as a look-alike letter",
        _identifier(tx.digit_lookalike, flags=_LOOKALIKE_IDENTIFIER_FLAGS),
    ),
    Attack(
        FAMILY,
        "fullwidth_identifier",
        "a wrong identifier in full-width characters",
        _identifier(tx.fullwidth),
    ),
    Attack(
        FAMILY,
        "glued_unit",
        "a wrong duration with a short unit glued on (30 days as 31d)",
        _number(_glued_unit, spans=tx.durations_in),
    ),
    Attack(
        FAMILY,
        "glued_currency_code",
        "a wrong amount with its currency code glued on ($15 as USD16)",
        _number(_glued_code, spans=_dollars),
    ),
    Attack(
        FAMILY,
        "dash_glued_identifier",
        "a wrong identifier glued to the text after it by an em dash",
        _identifier(lambda value: value + "\u2014"),
    ),
    Attack(
        FAMILY,
        "hash_identifier",
        "a wrong identifier behind a hash sign",
        _identifier(lambda value: "#" + value),
    ),
    Attack(
        FAMILY,
        "control_glued_unit",
        "control: the right duration with a short unit glued on",
        _control(tx.durations_in, _glued_unit),
    ),
    Attack(
        FAMILY,
        "control_fullwidth_digits",
        "control: the right number in full-width digits",
        _control(tx.numbers_in, tx.fullwidth_digits),
    ),
    Attack(
        FAMILY,
        "word_joiners_number",
        "the right number with word joiners between its digits: hidden characters inside a "
        "number are sent to review",
        partial(
            _token_attack,
            spans=tx.numbers_in,
            encode=_JOINER,
            expect=Expectation(Expect.MUST_FLAG, frozenset({Label.NEEDS_REVIEW})),
            wrong=False,
        ),
    ),
    Attack(
        FAMILY,
        "control_cyrillic_identifier",
        "control: the right identifier with Cyrillic look-alike letters",
        _control(_identifiers, _changed(tx.cyrillic_letters)),
    ),
    Attack(
        FAMILY,
        "control_scale",
        "control: a scaled number expanded correctly (1.5 million as 1,500,000)",
        _sentence(partial(_scaled, factor=1), Expectation(Expect.MATCH_CLEAN)),
    ),
)
