"""Worked examples inside the shipped yes/no template: does the pipeline's own prompt (fences,
JSON answer) gain from four worked examples as earlier chat turns?

    JUDGE_BASE_URL=http://127.0.0.1:PORT/v1 JUDGE_MODEL=... JUDGE_STATE_DIR=$(mktemp -d) \
    python benchmarks/template_examples.py --data ../shared/data/dev/dev_claims.jsonl \
        --out benchmarks/results/accuracy_examples_w2000.jsonl --limit 100
    python benchmarks/template_examples.py --data ../shared/data/dev/dev_claims.jsonl \
        --out benchmarks/results/accuracy_examples_w2000.jsonl --score

The examples are `prompt_layout.EXAMPLES`, each rendered through `prompts/entail_yes_no.j2` and
answered `{"answer": "yes"}` or `{"answer": "no"}`, between the system message and the real
question. They carry the request's own fence code, so they differ per call and a server cannot
reuse them from its prefix cache: about 600 more prompt tokens per call. Only this benchmark
adds them (it patches the message list of yes/no prompts); the verdict cache does not know about
the patch, hence a fresh JUDGE_STATE_DIR, and the endpoint of a running judge server through
JUDGE_BASE_URL. Claims are judged on their whole evidence in the shipped 2000-token windows, in
the fixed shuffle of `accuracy.py`, and scored paired against steps 15 and 16 of its table on
the same claims.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import accuracy
from prompt_layout import EXAMPLES

from judge.eval.metrics import roc_auc
from judge.judges import templates
from judge.pipeline.checks import default_checks
from judge.pipeline.entail.types import Premise
from judge.pipeline.entail.verdict import YES_NO_TEMPLATE, entail_prompt

SIGNAL_FILES = ("signals", "whole", "yes_no", "sentences", "w2000", "sentences_w2000")
SIGNAL = "whole-w2000@yes_no"
EXAMPLES_SIGNAL = "whole-w2000@yes_no+examples"


def with_examples(prompt: templates.RenderedPrompt) -> list[dict[str, str]]:
    messages = [{"role": "system", "content": prompt.system}]
    if prompt.template == YES_NO_TEMPLATE:
        for document, claim, answer in EXAMPLES:
            shot = entail_prompt(
                Premise(text=document, pieces=()), claim, None, nonce=prompt.nonce, variant="yes_no"
            )
            messages += [
                {"role": "user", "content": shot.user},
                {"role": "assistant", "content": json.dumps({"answer": answer})},
            ]
    messages.append({"role": "user", "content": prompt.user})
    return messages


def collect(args: argparse.Namespace) -> int:
    setattr(templates.RenderedPrompt, "messages", with_examples)  # noqa: B010
    raw = args.out.with_suffix(".raw.jsonl")
    argv = ["collect", "--data", str(args.data), "--out", str(raw), "--modes", "whole"]
    argv += ["--variant", "yes_no", "--window-tokens", "2000", "--limit", str(args.limit)]
    code = accuracy.main(argv)
    # The signal gets its own key, so it joins the other signal files without overwriting.
    rows = accuracy.load_records(raw)
    with args.out.open("w", encoding="utf-8") as handle:
        for row in rows:
            row[EXAMPLES_SIGNAL] = row.pop(SIGNAL)
            handle.write(json.dumps(row) + "\n")
    return code


def score(args: argparse.Namespace) -> int:
    signals = [args.results / f"accuracy_{n}.jsonl" for n in SIGNAL_FILES]
    rows = accuracy.merged_rows([*signals, args.out])
    accuracy.fill_wide(rows)
    rows = [r for r in rows if EXAMPLES_SIGNAL in r]
    accuracy.recheck(rows, args.data)
    checks = [c.name for c in default_checks()]
    gold = [r["gold"] == "supported" for r in rows]

    def examples(row: dict[str, Any]) -> float:
        """Step 15's auto rule, with the whole evidence judged with the examples."""
        key = accuracy.wide_key(row)
        return accuracy.score_of(row, EXAMPLES_SIGNAL if key == accuracy.WIDE else key)

    variants: dict[str, Callable[[dict[str, Any]], float]] = {
        "step 15: whole evidence, shipped template": lambda r: accuracy.score_of(
            r, accuracy.wide_key(r)
        ),
        "step 15 + worked examples": examples,
        "step 16 (default): + sentence split": accuracy.wide_score,
        "step 16 + worked examples": lambda r: min(
            examples(r), accuracy.sentence_score(r, accuracy.WIDE_SENTENCES)
        ),
    }
    print(f"{len(rows)} claims, 5-fold CV over 5 seeds, exact checks as a hard pre-filter\n")
    print("| variant | balanced accuracy (CV) | ROC-AUC | s / claim (whole evidence) |")
    print("|---|---|---|---|")
    predictions = {}
    for name, fn in variants.items():
        raw = [fn(r) for r in rows]
        gated = [
            -math.inf if accuracy.check_failed(r, checks) else x
            for r, x in zip(rows, raw, strict=True)
        ]
        summary = accuracy.cv(gated, gold, 5, range(5))
        predictions[name] = summary["pooled_predictions"]
        key = EXAMPLES_SIGNAL if "examples" in name else accuracy.WIDE
        seconds = [
            r[key].get("seconds", 0.0) for r in rows if key in r and not r[key].get("cached")
        ]
        print(
            f"| {name} | {summary['mean']:.3f} ± {summary['fold_std']:.3f} | "
            f"{roc_auc(raw, gold) or math.nan:.3f} | {sum(seconds) / max(len(seconds), 1):.1f} |"
        )
    names = list(variants)
    for base, other in ((names[0], names[1]), (names[2], names[3])):
        a, b, p = accuracy.mcnemar(gold, predictions[other], predictions[base])  # type: ignore[arg-type]
        print(
            f"\n{other} vs {base}: {a} right only with the examples, {b} only without, p = {p:.3f}"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--results", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--score", action="store_true", help="score the collected signal")
    args = parser.parse_args(argv)
    return score(args) if args.score else collect(args)


if __name__ == "__main__":
    sys.exit(main())
