"""A LangChain ``Runnable`` that verifies a chain's answer against its retrieved documents.

::

    from judge.integrations.langchain import GroundingCheck

    chain = retrieve_and_answer | GroundingCheck()
    result = chain.invoke({"question": "How long do I have to return an item?"})
    result["answer"], result["grounded"], result["verification"].action

The input is a dict with the answer (``answer``, or ``output`` / ``result``: a string or a chat
message), the documents (``documents``, or ``context`` as ``create_retrieval_chain`` names them,
or ``source_documents``) and optionally the question (``question``, ``input`` or ``query``).
A ``Document`` is cited by its ``metadata["id"]``, else its ``id``, else ``S1``, ``S2``, ... by
position; strings and passage dicts are taken too.

The output is the input with ``answer`` set to what may be shown (the answer, or its repair),
``grounded`` and ``verification`` (the :class:`~judge.schemas.VerifyResponse`). An answer that
neither passes nor can be repaired raises :class:`UngroundedAnswer`, or with
``on_fail="flag"`` comes back unchanged with ``grounded`` false.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from langchain_core.documents import Document
from langchain_core.messages import BaseMessage
from langchain_core.runnables import Runnable, RunnableConfig

from judge.api import EvidenceItem, Verifier
from judge.errors import InputError, JudgeError
from judge.schemas import Action, VerifyResponse

ANSWER_KEYS = ("answer", "output", "result")
DOCUMENT_KEYS = ("documents", "context", "source_documents")
QUESTION_KEYS = ("question", "input", "query")

__all__ = ["GroundingCheck", "UngroundedAnswer", "documents_as_evidence"]


class UngroundedAnswer(JudgeError):
    """The chain's answer is not supported by its documents; ``response`` says why."""

    def __init__(self, response: VerifyResponse) -> None:
        reasons = "; ".join(response.reasons[:3]) or "no reason given"
        super().__init__(f"answer not grounded (action {response.action.value}): {reasons}")
        self.response = response


class GroundingCheck(Runnable[Mapping[str, Any], dict[str, Any]]):
    """Verifies ``input[answer]`` against ``input[documents]``; see the module docstring.

    ``verifier`` is used as it is (and closed by its owner); without one, a Verifier is made
    from the configured settings and ``overrides`` (settings by name) and closed by
    :meth:`close`.
    """

    def __init__(
        self,
        verifier: Verifier | None = None,
        *,
        on_fail: Literal["raise", "flag"] = "raise",
        allow_repair: bool = True,
        **overrides: Any,
    ) -> None:
        if on_fail not in ("raise", "flag"):
            raise ValueError("on_fail must be 'raise' or 'flag'")
        self._owns_verifier = verifier is None
        self.verifier = verifier if verifier is not None else Verifier(**overrides)
        self.on_fail = on_fail
        self.allow_repair = allow_repair

    def invoke(
        self, input: Mapping[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        answer, evidence, question = _read(input)
        response = self.verifier.verify_sync(answer=answer, evidence=evidence, question=question)
        return self._output(input, answer, response)

    async def ainvoke(
        self, input: Mapping[str, Any], config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        answer, evidence, question = _read(input)
        response = await self.verifier.verify(answer=answer, evidence=evidence, question=question)
        return self._output(input, answer, response)

    def close(self) -> None:
        if self._owns_verifier:
            self.verifier.close()

    def _output(
        self, input: Mapping[str, Any], answer: str, response: VerifyResponse
    ) -> dict[str, Any]:
        if response.passed:
            return {**input, "answer": answer, "grounded": True, "verification": response}
        repaired = response.repaired_answer if response.action is Action.REPAIR else None
        if self.allow_repair and repaired:
            return {**input, "answer": repaired, "grounded": True, "verification": response}
        if self.on_fail == "raise":
            raise UngroundedAnswer(response)
        return {**input, "answer": answer, "grounded": False, "verification": response}


def documents_as_evidence(documents: Sequence[Any]) -> list[EvidenceItem]:
    """Passages from LangChain documents (strings and passage dicts pass through)."""
    evidence: list[EvidenceItem] = []
    for index, doc in enumerate(documents):
        if isinstance(doc, Document):
            passage_id = doc.metadata.get("id") or doc.id or f"S{index + 1}"
            source = doc.metadata.get("source")
            evidence.append(
                {"id": str(passage_id), "text": doc.page_content, "source": str(source or "")}
            )
        else:
            evidence.append(doc)
    return evidence


def _read(input: Mapping[str, Any]) -> tuple[str, list[EvidenceItem], str | None]:
    if not isinstance(input, Mapping):
        raise InputError("the input must be a dict with an answer and documents", "input")
    answer = _first(input, ANSWER_KEYS)
    if isinstance(answer, BaseMessage):
        answer = str(answer.text)
    if not isinstance(answer, str):
        raise InputError(f"give the answer as a string under one of {ANSWER_KEYS}", "answer")
    documents = _first(input, DOCUMENT_KEYS)
    if not isinstance(documents, Sequence) or isinstance(documents, str):
        raise InputError(f"give the documents as a list under one of {DOCUMENT_KEYS}", "documents")
    question = _first(input, QUESTION_KEYS)
    return answer, documents_as_evidence(documents), question if isinstance(question, str) else None


def _first(input: Mapping[str, Any], keys: Sequence[str]) -> Any:
    for key in keys:
        if input.get(key) is not None:
            return input[key]
    return None
