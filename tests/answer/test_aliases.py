from judge.answer.loop import passage_aliases, resolve_aliases
from judge.schemas import EvidenceLedger, Passage

LEDGER = EvidenceLedger(
    passages=(Passage(id="e0", text="Refunds take 5 days."), Passage(id="doc7#3", text="x"))
)


def test_generator_cites_short_aliases_that_map_back_to_ledger_ids() -> None:
    aliases = passage_aliases(LEDGER)
    assert aliases == {"S1": "e0", "S2": "doc7#3"}
    text = "Refunds take 5 days [S1]. Both say so [S1, S2]. Adjacent [S2][S1]."
    assert resolve_aliases(text, aliases) == (
        "Refunds take 5 days [e0]. Both say so [e0, doc7#3]. Adjacent [doc7#3][e0]."
    )


def test_unknown_citations_are_left_for_verification_to_reject() -> None:
    aliases = passage_aliases(LEDGER)
    assert resolve_aliases("Made up [S9].", aliases) == "Made up [S9]."
    assert resolve_aliases("No citation here.", aliases) == "No citation here."
