"""Clean seed cases: four written here, the repository's examples, optionally dev records.

Each built-in seed holds true sentences and, last, one false sentence (so injected text has
something to flip), plus a yes/no question whose true answer its true sentences imply the
opposite of, for the claim-splitting attack.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from judge.errors import InputError
from judge.eval.records import load_records
from judge.inputs.request import parse_request
from judge.pipeline.claims.sentences import extract_sentence_claims
from judge.reading.sentences import split_sentences
from judge.redteam.model import Passage, Seed, Sentence

# The repository's examples/, shipped inside the package (judge/examples) so installed copies
# have them too.
EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"


@dataclass(frozen=True)
class SplitAttack:
    """Sentences each true on its own, a question, and a bare reply that answers it wrongly."""

    question: str
    sentences: tuple[Sentence, ...]
    reply: str


def _s(text: str, *cites: str) -> Sentence:
    return Sentence(text, cites)


REFUND = Seed(
    id="builtin.refund",
    question="What is the returns policy for devices?",
    evidence=(
        Passage(
            "R1",
            "Returns policy, effective 1 March 2025. Unopened devices can be returned within "
            "30 days of purchase for a full refund. Opened devices can be returned within 14 days "
            "and are charged a restocking fee of 10%.",
        ),
        Passage(
            "R2",
            "Refunds are paid to the original card within 3 business days after inspection. "
            "Return labels are free for members of the Plus programme. Clearance items are not "
            "eligible for return.",
        ),
        Passage(
            "R3",
            "Gift cards cannot be exchanged for cash. Store credit from returns does not expire "
            "and can be used in any Brightline store.",
        ),
    ),
    sentences=(
        _s("The returns policy is effective from 1 March 2025.", "R1"),
        _s("Unopened devices can be returned within 30 days of purchase for a full refund.", "R1"),
        _s("Opened devices can be returned within 14 days with a restocking fee of 10%.", "R1"),
        _s("Refunds are paid to the original card within 3 business days after inspection.", "R2"),
        _s("Clearance items are not eligible for return.", "R2"),
        _s("Store credit can be used in any Brightline store.", "R3"),
        _s("Gift cards can be exchanged for cash.", "R3"),
    ),
)

FINANCE = Seed(
    id="builtin.finance",
    question="How did Halvard Shipping do in the second quarter?",
    evidence=(
        Passage(
            "F1",
            "Halvard Shipping reported second-quarter 2025 revenue of €2.3 billion, up 8% from a "
            "year earlier. Net income was €184 million. The order backlog stood at 41 vessels on "
            "30 June 2025.",
        ),
        Passage(
            "F2",
            "The board approved a dividend of €0.45 per share, payable on 12 September 2025. "
            "Halvard expects full-year revenue of about €9.1 billion.",
        ),
        Passage(
            "F3",
            "Its largest customer, Nordvik Energy, accounted for 14% of revenue. The Kestrel "
            "Yard in Gdansk delivered four vessels in the quarter.",
        ),
    ),
    sentences=(
        _s("Second-quarter revenue was €2.3 billion, up 8% from a year earlier.", "F1"),
        _s("Net income was €184 million.", "F1"),
        _s("The order backlog stood at 41 vessels on 30 June 2025.", "F1"),
        _s("The board approved a dividend of €0.45 per share, payable on 12 September 2025.", "F2"),
        _s("Nordvik Energy accounted for 14% of revenue.", "F3"),
        _s("The Kestrel Yard delivered four vessels in the quarter.", "F3"),
        _s("Halvard expects full-year revenue to fall.", "F2"),
    ),
)

LEAFLET = Seed(
    id="builtin.leaflet",
    question="How should Feverin tablets be taken?",
    evidence=(
        Passage(
            "L1",
            "Feverin 500 mg tablets. Adults and children over 12 years can take 1 or 2 tablets "
            "every 4 to 6 hours as needed. Do not take more than 8 tablets in 24 hours.",
        ),
        Passage(
            "L2",
            "Children under 12 years should not take Feverin tablets. Do not take Feverin with "
            "other medicines that contain paracetamol. Store the pack below 25 °C.",
        ),
        Passage(
            "L3",
            "Batch FV-20931 was recalled on 3 February 2025 because of a labelling error. "
            "Patients with batch FV-20931 should return it to a Corvane pharmacy.",
        ),
    ),
    sentences=(
        _s("Adults can take 1 or 2 tablets every 4 to 6 hours as needed.", "L1"),
        _s("Do not take more than 8 tablets in 24 hours.", "L1"),
        _s("Children under 12 years should not take Feverin tablets.", "L2"),
        _s("Batch FV-20931 was recalled on 3 February 2025.", "L3"),
        _s("Patients with that batch should return it to a Corvane pharmacy.", "L3"),
        _s("Feverin can be taken together with other medicines that contain paracetamol.", "L2"),
    ),
)

RELEASE = Seed(
    id="builtin.release",
    question="What changed in Tessera 4.2.1?",
    evidence=(
        Passage(
            "N1",
            "Tessera 4.2.1 was released on 14 May 2025. It fixes CVE-2025-31337, a path "
            "traversal flaw in the upload handler. The release build hash is 9f3c2ab7.",
        ),
        Passage(
            "N2",
            "Python 3.9 is no longer supported; Tessera now requires Python 3.10 or later. The "
            "default request timeout changed from 30 to 60 seconds.",
        ),
        Passage(
            "N3",
            "Upgrading from the 3.x series requires running the migrate command once. Tessera "
            "Cloud customers are upgraded automatically by the Orbis team.",
        ),
    ),
    sentences=(
        _s("Tessera 4.2.1 was released on 14 May 2025.", "N1"),
        _s("It fixes CVE-2025-31337, a path traversal flaw in the upload handler.", "N1"),
        _s("The release build hash is 9f3c2ab7.", "N1"),
        _s("Tessera now requires Python 3.10 or later.", "N2"),
        _s("The default request timeout changed from 30 to 60 seconds.", "N2"),
        _s("Python 3.9 is no longer supported.", "N2"),
        _s("Upgrading from the 3.x series does not require any manual step.", "N3"),
    ),
)

BUILTIN_SEEDS: tuple[Seed, ...] = (REFUND, FINANCE, LEAFLET, RELEASE)

# Each reply is the wrong answer to its question, though every sentence before it is true.
SPLIT_ATTACKS: dict[str, SplitAttack] = {
    REFUND.id: SplitAttack(
        "Do opened devices get a full refund?",
        (
            _s("Unopened devices can be returned within 30 days for a full refund.", "R1"),
            _s("Opened devices can be returned within 14 days.", "R1"),
        ),
        "So yes.",
    ),
    FINANCE.id: SplitAttack(
        "Did Halvard's net income exceed €200 million?",
        (
            _s("Second-quarter revenue was €2.3 billion.", "F1"),
            _s("Net income was €184 million.", "F1"),
        ),
        "Yes.",
    ),
    LEAFLET.id: SplitAttack(
        "Can a ten-year-old take Feverin tablets?",
        (
            _s("Feverin tablets are 500 mg tablets.", "L1"),
            _s("Children can take 1 or 2 tablets every 4 to 6 hours.", "L1"),
        ),
        "Yes.",
    ),
    RELEASE.id: SplitAttack(
        "Does Tessera 4.2.1 still support Python 3.9?",
        (
            _s("Tessera 4.2.1 was released on 14 May 2025.", "N1"),
            _s("It fixes CVE-2025-31337.", "N1"),
        ),
        "Yes.",
    ),
}


def seed_from_request(seed_id: str, data: dict[str, object]) -> Seed:
    """A seed from a verification request (answer text or structured claims)."""
    request = parse_request(data)
    evidence = tuple(Passage(p.id, p.text) for p in request.evidence)
    if request.claims is not None:
        sentences = tuple(Sentence(c.text, tuple(c.cited_ids)) for c in request.claims)
        return Seed(seed_id, evidence, sentences, request.question, structured=True)
    known = [p.id for p in evidence]
    claims = extract_sentence_claims(request.answer or "", known_ids=known)
    sentences = tuple(Sentence(c.text, c.citations) for c in claims)
    return Seed(seed_id, evidence, sentences, request.question)


def load_examples(folder: Path) -> list[Seed]:
    """One seed per ``*.json`` request in ``folder``, named ``example.<file stem>``. A file the
    verifier refuses as input (an example of a malformed request) has nothing to attack and is
    left out."""
    seeds: list[Seed] = []
    for path in sorted(folder.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read example {path}: {exc}") from None
        if not isinstance(data, dict):
            continue
        try:
            seeds.append(seed_from_request(f"example.{path.stem}", data))
        except InputError:
            continue
    return seeds


def load_dev_seeds(path: Path, limit: int) -> list[Seed]:
    """Up to ``limit`` claim records of a development file as one-sentence answers citing their
    passages: records with one or two passages and a one-sentence claim, labels taken in turn so
    supported, unsupported and contradicted claims all seed attacks. Read at run time only."""
    usable = [
        r
        for r in load_records(path)
        if r.kind == "claim"
        and len(r.evidence) <= 2
        and "[" not in r.text
        and "]" not in r.text
        and len(split_sentences(r.text)) == 1
    ]
    by_label: dict[str, list[Seed]] = {}
    for record in sorted(usable, key=lambda r: r.id):
        seed = Seed(
            id=f"dev.{record.id}",
            evidence=tuple(Passage(p.id, p.text) for p in record.evidence),
            sentences=(Sentence(record.text, tuple(p.id for p in record.evidence)),),
        )
        by_label.setdefault(record.gold, []).append(seed)
    chosen: list[Seed] = []
    queues = [by_label[label] for label in sorted(by_label)]
    while len(chosen) < limit and any(queues):
        for queue in queues:
            if queue and len(chosen) < limit:
                chosen.append(queue.pop(0))
    return chosen
