#!/usr/bin/env python3
"""A ranking constant's values side by side on the sets' tuning halves only (the report
and held-out questions are not asked): each set's first metric and the right document
in context, per Folio mode and value, in one run.

    .venv/bin/python scripts/eval/eval_tuning.py --home /tmp/x/home --limit 400 \\
        --constant pipeline.retrieve.rank.NAMES_ONLY --values 0,1 --modes lexical,hybrid

``--home`` holds the libraries ``eval_retrieval.py --home`` kept (use a copy: each set's
embedded server is started on it and stopped by its pid); for choosing a value on some
sets and checking it on another's report half, ``eval_loso.py``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))  # scripts/shared

import eval_loso
import eval_retrieval as ev
import rooms  # noqa: F401  (puts every room of scripts/ on the path)


def tuning_run(name: str, args: argparse.Namespace, counter: Any, values: list[float]) -> ev.SetRun:
    """Set ``name``'s tuning half asked of its kept library, every mode at every value."""

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    _, docs, questions = ev.load_set(name, args.qa_root, False, log)
    tuning = [q for q in ev.spread(questions, args.limit) if q.half == "tuning"]
    run = ev.SetRun(name, tuning, docs, {"questions": len(tuning)})
    names = {d.doc_id: d.name for d in docs.values()}
    with ev.embedded_store(args.home / name) as store:
        run.methods = [
            eval_loso.variant(ev.folio_method(store, m, counter, names), args.constant, v)
            for m in args.modes
            for v in values
        ]
        ev.evaluate(run, [args.budget], log)
    return run


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    eval_loso.constant_arguments(ap, limit=400)
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from pipeline.chunk.tokens import WordPieceCounter

    counter = WordPieceCounter(str(ev.DEFAULT_TOKENIZER))
    module_name, attr = args.constant.rsplit(".", 1)
    current = getattr(importlib.import_module(module_name), attr)
    print(f"{args.constant} (in force: {current}), {args.budget} tokens, tuning halves")
    for name in args.sets:
        run = tuning_run(name, args, counter, args.values)
        metric = ev.SET_METRICS[name][0]
        for m in run.methods:
            got = run.scores[m.name][args.budget]
            cells = [f"{k} {100 * ev.mean(got[k]):.1f}" for k in (metric, "doc_hit")]
            print(f"  {name} (n={len(run.questions)}) {m.name}: " + ", ".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
