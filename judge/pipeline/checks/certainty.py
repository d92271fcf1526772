"""The certainty check: a claim must not state as fact what its evidence only hedges.

"The drug reduces deaths" against "the drug may reduce deaths" turns a possibility into a
finding, the overstatement a summary most easily makes and a small judge most easily passes:
every content word is in the evidence. The claim is compared with the evidence clause that
restates it, as the polarity check finds it (at least 80 % of its content words). When that
clause hedges ("might", "possibly", "likely", "suggests", "appears to", "may" or "could" before
a verb of cause and effect: "may reduce", "could lead to", "may be linked to") and
the claim, with the same polarity, hedges nothing, the claim is ``hedge_added``: its certainty
is what the evidence does not carry. A claim that hedges in any of these words, or that the
evidence restates with fewer words, is left alone; negation is the polarity check's.
"""

from __future__ import annotations

import re

from judge.pipeline.checks.outcome import flagged
from judge.pipeline.checks.polarity import CONFIDENT_OVERLAP, restatement
from judge.pipeline.checks.text import normalise
from judge.schemas import CheckOutcome, Label

# "may" and "could" also grant permission or state an ability ("items may be returned within
# 30 days", "customers could cancel"): they hedge only before a verb of cause and effect or a
# perfect ("may have caused"), as findings are hedged.
_EFFECTS = (
    r"have|be\s+(?:linked|associated|related|due|caused|responsible|involved|effective|"
    r"beneficial|harmful|safe)|cause|lead|contribute|increase|reduce|decrease|lower|raise|"
    r"improve|worsen|help|prevent|protect|affect|influence|explain|result|trigger|spread|"
    r"transmit|harm|benefit|delay|slow|boost|drive|play|promote|inhibit|block|kill|save"
)
_HEDGE = re.compile(
    rf"\b(?:(?:may|could)\s+(?:{_EFFECTS})s?\b|might|possibly|perhaps|maybe|likely|unlikely|"
    r"probably|potentially|presumably|reportedly|allegedly|putative(?:ly)?|"
    r"suggest(?:s|ed|ing)?|appear(?:s|ed)?\s+to|seem(?:s|ed)?\s+to|"
    r"(?:is|are|was|were)\s+(?:thought|believed|expected)\s+to)\b",
    re.IGNORECASE,
)
# Words by which a claim hedges too, though they do not hedge evidence: "can" says what is
# possible, "would" what follows, "indicates" and "according to" whose finding it is.
_CLAIM_HEDGE = re.compile(
    rf"{_HEDGE.pattern}|\b(?:may|could|can|cannot|would|indicat(?:es?|ed|ing)|according\s+to|"
    r"hypothes[ie]s|hypothesi[sz]ed?|propos(?:es?|ed))\b",
    re.IGNORECASE,
)


class CertaintyCheck:
    """Flags a claim that states flatly what the evidence clause restating it hedges."""

    name: str = "certainty"

    def __call__(self, claim: str, evidence: str) -> CheckOutcome | None:
        text = normalise(claim)
        source = normalise(evidence)
        if _CLAIM_HEDGE.search(text) or not _HEDGE.search(source):
            return None
        found = restatement(text, source)
        if found is None or found.overlap < CONFIDENT_OVERLAP:
            return None
        hedge = _HEDGE.search(found.clause)
        if hedge is None or found.negated != found.claim_negated:
            return None
        return flagged(
            self.name,
            Label.HEDGE_ADDED,
            f"the evidence hedges ({hedge.group(0)!r}) what the claim states as fact: "
            f"claim {text!r}, evidence {found.clause!r}",
            (text,),
            confident=True,
            sentence=found.sentence,
        )
