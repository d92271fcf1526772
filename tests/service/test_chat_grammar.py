"""The guard endpoint sends the citation grammar over the request's own ledger ids to the
generator, buffered and streamed, says in ``grounding.drafting`` whether it did, and refuses a
reply that is the refusal sentence as the generator finding no answer."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judge.answer.grammar import CitationGrammar
from judge.answer.grammar_support import PROBE_REPLY
from judge.answer.relevance import REFUSAL_SENTENCE
from judge.audit.log import AuditLog
from judge.service.app import ServeOptions, create_app
from tests.service.test_chat_guard import (
    GOOD,
    MESSAGES,
    SECOND,
    FakeGenerator,
    client,
    grounding,
    uvicorn_serving,
)
from tests.service.test_chat_stream import grounding_of, stream, streaming_guard, text_of
from tests.support.fake_judge import FakeJudgeServer, fake_settings, run_fake_openai_server
from tests.support.fake_stream import StreamingGenerator, StreamReply


@contextlib.contextmanager
def guard(tmp_path: Path, generator: FakeGenerator, **settings: Any) -> Iterator[str]:
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(run_fake_openai_server(generator.handler))
        config = fake_settings(state_dir=tmp_path, generator_base_url=url, **settings)
        audit = stack.enter_context(AuditLog.open(tmp_path / "audit.sqlite3"))
        app = create_app(config, ServeOptions(), judge=FakeJudgeServer().judge(config), audit=audit)
        yield stack.enter_context(uvicorn_serving(app))


def ask(url: str, evidence: Any = None) -> Any:
    more = grounding() if evidence is None else grounding(evidence)
    return client(url).chat.completions.create(model="gen", messages=MESSAGES, extra_body=more)


def drafting_of(completion: Any) -> dict[str, Any]:
    field: dict[str, Any] = completion.model_extra["grounding"]["drafting"]
    return field


def test_the_reply_is_asked_for_under_the_grammar_of_the_ledger_ids(tmp_path: Path) -> None:
    generator = FakeGenerator(f"{GOOD} {SECOND}")
    with guard(tmp_path, generator, generator_grammar="llamacpp") as url:
        completion = ask(url)
    assert completion.choices[0].message.content == f"{GOOD} {SECOND}"
    (sent,) = generator.requests
    grammar = CitationGrammar.for_ids(["S1", "S2"], max_sentences=20, max_citations=4)
    assert sent["grammar"] == grammar.gbnf()
    assert sent["messages"] == MESSAGES  # the chat itself goes as it was sent
    assert drafting_of(completion) == {
        "grammar": "llamacpp",
        "source": "setting",
        "note": None,
        "probe_calls": 0,
    }


def test_odd_ledger_ids_are_escaped_in_the_grammar(tmp_path: Path) -> None:
    evidence = [
        {"id": 'pol"icy', "text": "Customers may return any unopened item within 30 days."},
        {"id": "faq(2)|x", "text": "Refunds are issued within 5 to 7 business days."},
    ]
    reply = 'Customers may return any unopened item within 30 days [pol"icy].'
    generator = FakeGenerator(reply)
    with guard(tmp_path, generator, generator_grammar="vllm") as url:
        completion = ask(url, evidence)
    assert completion.choices[0].message.content == reply
    regex = generator.requests[0]["structured_outputs"]["regex"]
    assert '(pol"icy|faq\\(2\\)\\|x)' in regex
    assert CitationGrammar.for_ids(['pol"icy', "faq(2)|x"]).matches(reply)


def test_the_endpoint_is_probed_once_for_the_service(tmp_path: Path) -> None:
    generator = FakeGenerator(PROBE_REPLY, GOOD, SECOND)
    with guard(tmp_path, generator, generator_grammar="auto") as url:
        first, second = ask(url), ask(url)
    probe, *replies = generator.requests
    assert probe["grammar"] == 'root ::= "[7]"\n' and probe["model"] == "gen"
    assert all("grammar" in r for r in replies) and len(replies) == 2
    assert drafting_of(first)["grammar"] == drafting_of(second)["grammar"] == "llamacpp"
    assert drafting_of(first)["source"] == "probe"


def test_without_support_the_response_carries_the_note(tmp_path: Path) -> None:
    generator = FakeGenerator("Hello!", "Hello!", GOOD)
    with guard(tmp_path, generator, generator_grammar="auto") as url:
        completion = ask(url)
    assert completion.choices[0].message.content == GOOD
    assert "grammar" not in generator.requests[-1]
    assert drafting_of(completion)["note"] == (
        "the generator endpoint does not constrain decoding (llama.cpp grammar: ignored; vLLM "
        "structured outputs: ignored): drafts follow the prompt's citation rule only"
    )


def test_the_refusal_sentence_is_refused_as_no_answer_found(tmp_path: Path) -> None:
    generator = FakeGenerator(REFUSAL_SENTENCE)
    with guard(tmp_path, generator, generator_grammar="llamacpp") as url:
        completion = ask(url)
    assert completion.model_extra["grounding"]["outcome"] == "refused"
    assert completion.choices[0].message.content == (
        "No verified answer can be given: the generator found no answer in the evidence "
        "(passages mention: return, unopened, item)."
    )


@pytest.mark.parametrize(
    ("reply", "released", "notice"),
    [
        (f"{GOOD} {SECOND}", f"{GOOD} {SECOND}", ""),
        (
            REFUSAL_SENTENCE,
            "",
            "No verified answer can be given: the generator found no answer in the evidence "
            "(passages mention: return, unopened, item).",
        ),
    ],
    ids=["cited", "refusal"],
)
def test_the_stream_is_asked_for_under_the_same_grammar(
    tmp_path: Path, reply: str, released: str, notice: str
) -> None:
    generator = StreamingGenerator(StreamReply.of(reply))
    with streaming_guard(tmp_path, generator, generator_grammar="llamacpp") as (url, _, _):
        chunks = stream(url)
    (sent,) = generator.requests
    assert sent["stream"] is True
    assert sent["grammar"] == CitationGrammar.for_ids(["S1", "S2"], max_sentences=20).gbnf()
    last = grounding_of(chunks[-1])
    assert last["drafting"]["grammar"] == "llamacpp"
    text = text_of(chunks)
    assert text == released + notice
