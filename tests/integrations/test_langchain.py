"""GroundingCheck in real langchain-core chains, against the scripted fake judge on loopback."""

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain_core", reason="install the langchain extra")

from langchain_core.documents import Document
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableLambda, RunnablePassthrough

from judge.api import Verifier
from judge.errors import InputError
from judge.integrations.langchain import GroundingCheck, UngroundedAnswer, documents_as_evidence
from judge.schemas import Action, Label
from tests.support.fake_judge import FakeJudgeServer, fake_settings, run_fake_openai_server

POLICY = "Customers may return any unopened item within 30 days of delivery for a full refund."
TIMING = "Refunds are issued to the original payment method within 5 to 7 business days."
DOCUMENTS = [
    Document(page_content=POLICY, metadata={"id": "policy", "source": "docs/policy.md"}),
    Document(page_content=TIMING, id="timing"),
]
GOOD = f"{POLICY.removesuffix('.')} [policy]. {TIMING.removesuffix('.')} [timing]."
WRONG = "Customers may return any unopened item within 60 days of delivery [policy]."
PIGEON = "Refund requests are also accepted by carrier pigeon [timing]."


@pytest.fixture
def verifier(tmp_path: Path) -> Iterator[Verifier]:
    fake = FakeJudgeServer()
    with run_fake_openai_server(fake.handler) as url:
        settings = fake_settings(base_url=url, model=None, state_dir=tmp_path)
        with Verifier(settings) as opened:
            yield opened


def rag_chain(answer: Any, check: GroundingCheck) -> Any:
    retrieve: RunnableLambda[dict[str, Any], dict[str, Any]] = RunnableLambda(
        lambda inputs: {**inputs, "documents": DOCUMENTS}
    )
    return retrieve | RunnablePassthrough.assign(answer=lambda _inputs: answer) | check


def test_a_grounded_answer_goes_through(verifier: Verifier) -> None:
    result = rag_chain(GOOD, GroundingCheck(verifier)).invoke({"question": "Can I return it?"})
    assert result["answer"] == GOOD and result["grounded"] is True
    assert result["question"] == "Can I return it?" and result["documents"] == DOCUMENTS
    assert result["verification"].passed
    cited = {c for v in result["verification"].verdicts for c in v.claim.citations}
    assert cited == {"policy", "timing"}


def test_an_ungrounded_answer_raises_with_the_verification(verifier: Verifier) -> None:
    with pytest.raises(UngroundedAnswer) as caught:
        rag_chain(WRONG, GroundingCheck(verifier)).invoke({"question": "Can I return it?"})
    assert caught.value.response.action is Action.BLOCK
    assert [v.label for v in caught.value.response.failing] == [Label.NUMBER_MISMATCH]
    assert "action block" in str(caught.value)


def test_flag_mode_returns_the_answer_marked_ungrounded(verifier: Verifier) -> None:
    result = rag_chain(WRONG, GroundingCheck(verifier, on_fail="flag")).invoke({})
    assert result["grounded"] is False and result["answer"] == WRONG
    assert not result["verification"].passed


def test_a_repairable_answer_comes_back_repaired(verifier: Verifier) -> None:
    policy, timing = GOOD.split(" Refunds")
    answer = f"{policy} {PIGEON} Refunds{timing}"
    result = rag_chain(answer, GroundingCheck(verifier)).invoke({})
    assert result["verification"].action is Action.REPAIR
    assert result["answer"] == GOOD and result["grounded"] is True
    with pytest.raises(UngroundedAnswer):
        rag_chain(answer, GroundingCheck(verifier, allow_repair=False)).invoke({})


def test_the_output_of_a_retrieval_chain_with_a_chat_message(verifier: Verifier) -> None:
    # create_retrieval_chain's keys: input, context (documents without ids), answer.
    context = [Document(page_content=POLICY), Document(page_content=TIMING)]
    answer = AIMessage(content=GOOD.replace("[policy]", "[S1]").replace("[timing]", "[S2]"))
    result = GroundingCheck(verifier).invoke(
        {"input": "Can I return it?", "context": context, "answer": answer}
    )
    assert result["grounded"] is True and result["answer"] == answer.content


async def test_ainvoke_and_batch(verifier: Verifier) -> None:
    chain = rag_chain(GOOD, GroundingCheck(verifier, on_fail="flag"))
    single = await chain.ainvoke({"question": "Can I return it?"})
    assert single["grounded"] is True
    pairs: list[Mapping[str, Any]] = [
        {"answer": GOOD, "documents": DOCUMENTS},
        {"answer": WRONG, "documents": DOCUMENTS},
    ]
    results = await GroundingCheck(verifier, on_fail="flag").abatch(pairs)
    assert [r["grounded"] for r in results] == [True, False]
    batch = GroundingCheck(verifier, on_fail="flag").batch(pairs)
    assert [r["grounded"] for r in batch] == [True, False]


@pytest.mark.parametrize(
    ("inputs", "field"),
    [
        ({"documents": DOCUMENTS}, "answer"),
        ({"answer": GOOD}, "documents"),
        ({"answer": GOOD, "documents": "one long string"}, "documents"),
        ({"answer": GOOD, "documents": [Document(page_content=POLICY, id="has space")]},
         "evidence[0].id"),
    ],
)  # fmt: skip
def test_bad_input_names_the_field(verifier: Verifier, inputs: dict[str, Any], field: str) -> None:
    with pytest.raises(InputError) as caught:
        GroundingCheck(verifier).invoke(inputs)
    assert caught.value.field == field


def test_documents_become_passages_in_order() -> None:
    evidence = documents_as_evidence([*DOCUMENTS, Document(page_content="third"), "fourth"])
    assert evidence == [
        {"id": "policy", "text": POLICY, "source": "docs/policy.md"},
        {"id": "timing", "text": TIMING, "source": ""},
        {"id": "S3", "text": "third", "source": ""},
        "fourth",
    ]


def test_a_check_made_without_a_verifier_opens_and_closes_its_own(tmp_path: Path) -> None:
    fake = FakeJudgeServer()
    with run_fake_openai_server(fake.handler) as url:
        check = GroundingCheck(
            base_url=url, state_dir=tmp_path, http_retries=0, cache_enabled=False
        )
        try:
            assert check.invoke({"answer": GOOD, "documents": DOCUMENTS})["grounded"] is True
        finally:
            check.close()
    assert fake.model_list_calls == 1
