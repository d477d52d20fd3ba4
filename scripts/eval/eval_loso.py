#!/usr/bin/env python3
"""Leave one set out: is a ranking constant's value chosen on some question sets kept by
the set it was not chosen on?

For each value of ``--constant`` (a module attribute, e.g.
``pipeline.retrieve.rank.FOCUS_WEIGHT``), Folio's ``retrieve`` answers every question of
every set (the libraries kept by ``eval_retrieval.py --home HOME``, not ingested again),
one run. Then, for each set left out, the value whose mean over the *other* sets' tuning
halves is best (each set's first metric, ``SET_METRICS``) is the one chosen; the table
gives the left-out set's report half at that value and at the value in force, with the
paired bootstrap interval of their difference. A value is kept when no left-out set loses
beyond its interval.

    python scripts/eval/eval_loso.py --home /tmp/eval/home \\
        --constant pipeline.retrieve.rank.FOCUS_WEIGHT --values 0,2,4,8,16 [--modes hybrid]

A constant that changes what the lexical index holds (``pipeline.index.lexical.TITLE_TERMS``)
takes ``--rebuild SCRATCH``: each value then runs on its own copy of every library, made
under SCRATCH without its lexical index, with the constant set for the whole run, so the
index is built again from the store under that value.
"""

from __future__ import annotations

import argparse
import importlib
import math
import os
import shutil
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))  # scripts/shared

import eval_retrieval as ev
import rooms  # noqa: F401  (puts every room of scripts/ on the path)
from data_dir import data_dir
from qa_sets import HALVES, LOADERS


@contextmanager
def constant_set(path: str, value: float) -> Iterator[None]:
    """``path`` (module.ATTRIBUTE) set to ``value`` for the duration."""
    module_name, attr = path.rsplit(".", 1)
    module = importlib.import_module(module_name)
    before = getattr(module, attr)
    setattr(module, attr, type(before)(value))
    try:
        yield
    finally:
        setattr(module, attr, before)


def variant(method: ev.Method, path: str, value: float) -> ev.Method:
    """``method`` run with the constant at ``value``, named for it."""

    def run(query: str, budgets: Sequence[int]) -> dict[int, ev.Packed]:
        with constant_set(path, value):
            return method.run(query, budgets)

    return ev.Method(f"{method.name} @{value:g}", run, folio=True, ms=method.ms)


def set_run(
    name: str,
    args: argparse.Namespace,
    counter: Any,
    methods: Callable[[Any, dict[str, str]], list[ev.Method]],
    log: Callable[[str], None],
) -> ev.SetRun:
    """Every question of set ``name`` asked of its kept library by ``methods``."""
    _, docs, questions = ev.load_set(name, args.qa_root, False, log)
    questions = ev.spread(questions, args.limit)
    run = ev.SetRun(name, questions, docs, {"questions": len(questions)})
    home = args.home / name
    if not home.is_dir():
        raise SystemExit(f"no library at {home}: run eval_retrieval.py --home {args.home} first")
    with ev.embedded_store(home) as store:
        run.methods = methods(store, {d.doc_id: d.name for d in docs.values()})
        ev.evaluate(run, [args.budget], log)
    return run


def rebuilt_runs(
    name: str,
    args: argparse.Namespace,
    counter: Any,
    values: Sequence[float],
    methods: Callable[[Any, dict[str, str], float], list[ev.Method]],
    log: Callable[[str], None],
) -> ev.SetRun:
    """Set ``name`` run once per value, each on a copy of its library whose lexical index
    is built under that value; the runs' scores merged into one."""
    merged: ev.SetRun | None = None
    for value in values:
        copy = args.rebuild / f"{value:g}"
        home = copy / name
        shutil.rmtree(home, ignore_errors=True)
        shutil.copytree(
            args.home / name,
            home,
            ignore=shutil.ignore_patterns("lexical", "server.json", "server.lock", "locks"),
        )
        log(f"{name} @{value:g}: lexical index rebuilt in {home}")

        def at_value(store: Any, names: dict[str, str], v: float = value) -> list[ev.Method]:
            return methods(store, names, v)

        with constant_set(args.constant, value):
            run = set_run(
                name, argparse.Namespace(**{**vars(args), "home": copy}), counter, at_value, log
            )
        if merged is None:
            merged = run
        else:
            merged.scores.update(run.scores)
    assert merged is not None
    return merged


def half_mean(run: ev.SetRun, method: str, budget: int, half: str) -> float:
    metric = ev.SET_METRICS[run.name][0]
    values = [
        v
        for v, q in zip(run.scores[method][budget][metric], run.questions, strict=True)
        if q.half == half and not math.isnan(v)
    ]
    return 100 * ev.mean(values)


def report_difference(
    run: ev.SetRun, mode: str, value: float, current: float, budget: int
) -> tuple[float, float, float]:
    """The report half at ``value`` minus at ``current`` (points), with its paired 95%
    bootstrap interval."""
    metric = ev.SET_METRICS[run.name][0]
    idx = [n for n, q in enumerate(run.questions) if q.half == "report"]
    a = ev.pick(run.scores[f"Folio {mode} @{value:g}"][budget][metric], idx)
    b = ev.pick(run.scores[f"Folio {mode} @{current:g}"][budget][metric], idx)
    return ev.bootstrap_ci(
        [100 * (x - y) for x, y in zip(a, b, strict=True) if not math.isnan(x + y)]
    )


def loso_rows(
    runs: Sequence[ev.SetRun], mode: str, values: Sequence[float], current: float, budget: int
) -> list[list[str]]:
    """One row per left-out set: the value the other sets' tuning halves choose, and the
    left-out report half at it against the value in force."""
    rows = []
    for out in runs:
        others = [r for r in runs if r is not out]

        def tuning(value: float, others: Sequence[ev.SetRun] = others) -> float:
            return ev.mean(
                [half_mean(r, f"Folio {mode} @{value:g}", budget, "tuning") for r in others]
            )

        chosen = max(values, key=lambda v: (tuning(v), -abs(v - current)))
        metric = ev.SET_METRICS[out.name][0]
        idx = [n for n, q in enumerate(out.questions) if q.half == "report"]
        a = ev.pick(out.scores[f"Folio {mode} @{chosen:g}"][budget][metric], idx)
        b = ev.pick(out.scores[f"Folio {mode} @{current:g}"][budget][metric], idx)
        pairs = [(x, y) for x, y in zip(a, b, strict=True) if not math.isnan(x + y)]
        d, lo, hi = report_difference(out, mode, chosen, current, budget)
        rows.append(
            [
                out.name,
                metric,
                " / ".join(f"{v:g}: {tuning(v):.1f}" for v in values),
                f"{chosen:g}",
                f"{100 * ev.mean([x for x, _ in pairs]):.1f}",
                f"{100 * ev.mean([y for _, y in pairs]):.1f}",
                f"{d:+.1f} [{lo:+.1f}, {hi:+.1f}]",
            ]
        )
    return rows


def constant_arguments(ap: argparse.ArgumentParser, limit: int | None) -> None:
    """What this script and ``eval_tuning.py`` are told: the libraries, the sets, the
    constant and its values, the modes, the budget, how many questions."""
    ap.add_argument("--home", type=Path, required=True, help="eval_retrieval.py --home")
    ap.add_argument("--qa-root", type=Path, default=data_dir() / "corpus" / "qa")
    ap.add_argument("--sets", type=lambda s: s.split(","), default=list(LOADERS))
    ap.add_argument("--constant", required=True, help="module.ATTRIBUTE")
    ap.add_argument("--values", type=lambda s: [float(x) for x in s.split(",")], required=True)
    ap.add_argument("--modes", type=lambda s: s.split(","), default=["lexical", "hybrid"])
    ap.add_argument("--budget", type=int, default=2000)
    ap.add_argument("--limit", type=int, default=limit, help="N questions per set, spread")


def arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    constant_arguments(ap, limit=None)
    ap.add_argument("--tokenizer", type=Path, default=ev.DEFAULT_TOKENIZER)
    ap.add_argument(
        "--rebuild",
        type=Path,
        default=None,
        metavar="SCRATCH",
        help="the constant changes the index: each value on its own copy of the libraries",
    )
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = arguments(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from pipeline.chunk.tokens import WordPieceCounter

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    counter = WordPieceCounter(str(args.tokenizer))
    module_name, attr = args.constant.rsplit(".", 1)
    current = float(getattr(importlib.import_module(module_name), attr))
    values = sorted({*args.values, current})

    def methods_at(store: Any, names: dict[str, str], value: float) -> list[ev.Method]:
        return [
            variant(ev.folio_method(store, mode, counter, names), args.constant, value)
            for mode in args.modes
        ]

    def methods(store: Any, names: dict[str, str]) -> list[ev.Method]:
        return [m for v in values for m in methods_at(store, names, v)]

    if args.rebuild is None:
        runs = [set_run(name, args, counter, methods, log) for name in args.sets]
    else:
        runs = [rebuilt_runs(n, args, counter, values, methods_at, log) for n in args.sets]
    head = ["left out", "metric", "tuning mean of the others", "chosen"]
    head += ["report @chosen", f"report @{current:g}", "difference [95%]"]
    for mode in args.modes:
        print(f"\n{args.constant}, Folio {mode}, {args.budget} tokens\n")
        rows = loso_rows(runs, mode, values, current, args.budget)
        print("\n".join(ev.table([head, *rows], "<<<>>>>")))
        for run in runs:
            cells = [
                f"{v:g}: "
                + "/".join(
                    f"{half_mean(run, f'Folio {mode} @{v:g}', args.budget, h):.1f}" for h in HALVES
                )
                for v in values
            ]
            print(f"  {run.name} (tuning/report): " + "  ".join(cells))
            for v in values:
                if v != current:
                    d, lo, hi = report_difference(run, mode, v, current, args.budget)
                    print(f"    report @{v:g} - @{current:g}: {d:+.1f} [{lo:+.1f}, {hi:+.1f}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
