"""The citation grammar of one request and whether the generator applies it, for `judge answer`
and the guard endpoint alike.

:func:`reply_constraint` builds the grammar from the ids the generator cites and learns, through
the generator, whether its endpoint constrains decoding (:mod:`judge.answer.grammar_support`).
:meth:`ReplyConstraint.extra_body` is what a request adds; :meth:`ReplyConstraint.checked`
reads a reply that was sent under the grammar, and a reply outside it stops the generator
being trusted with one (it is still verified as any reply is). :meth:`ReplyConstraint.drafting`
is what a response says about it: the grammar, or the note that the prompt stood alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from judge.answer.generator import ConstrainedGenerator
from judge.answer.grammar import CitationGrammar
from judge.answer.grammar_support import GrammarSupport, unsupported
from judge.answer.types import Drafting
from judge.config import Settings

__all__ = ["ReplyConstraint", "reply_constraint"]


@dataclass(frozen=True)
class ReplyConstraint:
    grammar: CitationGrammar
    support: GrammarSupport

    @property
    def extra_body(self) -> dict[str, Any] | None:
        """The fields a request adds to be constrained; None when it is not."""
        dialect = self.support.dialect
        return None if dialect is None else self.grammar.request_fields(dialect)

    def drafting(self) -> Drafting:
        support = self.support
        return Drafting(
            grammar=support.dialect,
            source=support.source,
            note=support.note,
            probe_calls=support.probe_calls,
        )

    def checked(self, generator: object, text: str) -> ReplyConstraint:
        """This constraint after ``text`` came back under it: unchanged when the text keeps
        to the grammar, else no longer constraining, with the note saying why."""
        dialect = self.support.dialect
        if dialect is None or self.grammar.matches(text):
            return self
        note = (
            f"a reply came back outside the {dialect.value} grammar it was sent (the endpoint "
            "did not apply it)"
        )
        if isinstance(generator, ConstrainedGenerator):
            generator.distrust_grammar(note)
        support = unsupported(note, source="check")
        return replace(self, support=replace(support, probe_calls=self.support.probe_calls))


async def reply_constraint(
    generator: object,
    ids: Sequence[str],
    settings: Settings,
    *,
    max_sentences: int,
    model: str | None = None,
) -> ReplyConstraint:
    """The grammar over ``ids`` and whether ``generator`` applies it (probed with ``model``
    when given). A generator that cannot take a grammar gets none, with a note; a fault while
    probing is raised as it is."""
    grammar = CitationGrammar.for_ids(
        ids, max_sentences=max_sentences, max_citations=settings.max_citations_per_claim
    )
    if isinstance(generator, ConstrainedGenerator):
        support = await generator.grammar_support(settings.generator_grammar, model=model)
    else:
        support = unsupported("the generator given takes no grammar")
    return ReplyConstraint(grammar, support)
