import pytest

from judge.config import Settings
from judge.errors import InputError, LimitExceeded
from judge.inputs.request import parse_request
from judge.pipeline.ledger import freeze_ledger, passages_text
from judge.schemas import EvidenceLedger, Passage, content_hash


def test_passage_hash_is_computed_and_names_its_algorithm() -> None:
    passage = Passage(id="S1", text="Refunds take 5 days.")
    assert passage.hash == content_hash("Refunds take 5 days.")
    assert passage.hash is not None and passage.hash.startswith("sha256:")


def test_passage_hash_that_does_not_match_is_rejected() -> None:
    with pytest.raises(ValueError, match="hash does not match"):
        Passage(id="S1", text="Refunds take 5 days.", hash=content_hash("Refunds take 6 days."))


def test_empty_and_blank_text_rejected() -> None:
    with pytest.raises(ValueError):
        Passage(id="S1", text="")
    with pytest.raises(ValueError):
        Passage(id="S1", text="   ")


def test_duplicate_ids_rejected_with_field() -> None:
    passages = [Passage(id="S1", text="a"), Passage(id="S1", text="b")]
    with pytest.raises(InputError, match="duplicate passage id 'S1'") as info:
        freeze_ledger(passages, Settings())
    assert info.value.field == "evidence"


def test_ledger_hash_changes_with_any_text_and_not_with_order_of_keys() -> None:
    a = EvidenceLedger(passages=(Passage(id="S1", text="a"), Passage(id="S2", text="b")))
    b = EvidenceLedger(passages=(Passage(id="S1", text="a"), Passage(id="S2", text="b")))
    c = EvidenceLedger(passages=(Passage(id="S1", text="a"), Passage(id="S2", text="b!")))
    assert a.ledger_hash == b.ledger_hash
    assert a.ledger_hash != c.ledger_hash
    assert a.ledger_hash.startswith("sha256:")


def test_passage_limits_name_the_field() -> None:
    settings = Settings(max_passage_chars=10)
    with pytest.raises(LimitExceeded) as info:
        freeze_ledger([Passage(id="S1", text="x" * 11)], settings)
    assert str(info.value).startswith("evidence[0].text:")


def test_passages_text_joins_cited_passages_in_order() -> None:
    ledger = EvidenceLedger(passages=(Passage(id="A", text="one"), Passage(id="B", text="two")))
    assert passages_text(ledger, ["B", "A", "missing"]) == "two\n\none"


def test_request_errors_name_the_field() -> None:
    with pytest.raises(InputError) as info:
        parse_request({"evidence": [{"id": "S1"}], "answer": "x"})
    assert str(info.value).startswith("evidence[0].text:")
    with pytest.raises(InputError, match="exactly one of 'answer' or 'claims'"):
        parse_request({"evidence": [{"id": "S1", "text": "t"}]})
    with pytest.raises(InputError) as info:
        parse_request({"evidence": [], "answer": "x", "surprise": 1})
    assert "surprise" in str(info.value)


def test_deeply_nested_json_is_refused() -> None:
    nested: object = "x"
    for _ in range(100):
        nested = [nested]
    with pytest.raises(InputError, match="nested deeper"):
        parse_request({"evidence": nested, "answer": "x"})
