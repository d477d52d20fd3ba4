"""Measure the token estimator against real tokenizers (all-MiniLM WordPiece and cl100k).

Usage: python scripts/bench/bench_tokens.py [--corpus DIR] [--tokenizers DIR] [--json] [--baseline]

The corpus is cut into ~420-WordPiece-token windows at paragraph boundaries, per source file:

- prose: plain paragraphs (no markup) of the markdown docs and of the qa text corpora;
- docs:  every top-level block of each file in order (mixed markdown, code fences included);
- code:  the contents of fenced / indented code blocks.

For each content type and bias it prints n windows, mean absolute % error, p95 absolute % error
and signed mean % error against each reference tokenizer, then a packing check (blocks packed
greedily up to 512 *estimated* tokens: the share of chunks whose true WordPiece count exceeds
512) and the estimator's throughput (CPU time of per-block calls: the first, cold pass
includes loading the vocabulary and filling the memos). ``--baseline`` adds the first-draft word
rule as a reference row. Needs the ``exact`` extra (tokenizers, tiktoken).
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import re
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))  # scripts/shared
import rooms  # noqa: E402, F401  (puts every room of scripts/ on the path)
from common import add_corpus  # noqa: E402  (scripts/ is on the path)
from markdown_it import MarkdownIt  # noqa: E402
from stats import percentile  # noqa: E402

from pipeline.chunk import tokens  # noqa: E402

KINDS = ("prose", "docs", "code")
BIASES = ("prose", "balanced", "code")
TARGET = 420
MAX = 512

Count = Callable[[str], int]


@dataclass
class Stream:
    """Blocks of one content type from one source file, in document order."""

    kind: str
    source: str
    blocks: list[str] = field(default_factory=list)


# --- corpus -------------------------------------------------------------------------------

_MARKUP_START = re.compile(r"\s*(?:[#>*+|<{:]|-\s|\d+[.)]\s|={3,}|-{3,}|\[\^?\w)")
_SENTENCE = re.compile(r"(?<=[.!?;:])\s+")


def is_prose(block: str) -> bool:
    """A plain-text paragraph: no markup, no code, mostly letters."""
    if any(mark in block for mark in ("`", "](", "<", "{{", "{%", " | ", "://")):
        return False
    if any(_MARKUP_START.match(line) for line in block.splitlines()):
        return False
    chars = [c for c in block if not c.isspace()]
    return len(chars) >= 40 and sum(c.isalpha() for c in chars) >= 0.7 * len(chars)


def markdown_streams(path: str, md: MarkdownIt) -> list[Stream]:
    text = Path(path).read_text(encoding="utf-8", errors="replace").replace("\r\n", "\n")
    lines = text.split("\n")
    prose, docs, code = Stream("prose", path), Stream("docs", path), Stream("code", path)
    for tok in md.parse(text):
        if tok.level != 0 or tok.map is None or tok.type.endswith("_close"):
            continue
        source = "\n".join(lines[tok.map[0] : tok.map[1]]).strip("\n")
        if not source.strip():
            continue
        docs.blocks.append(source)
        if tok.type in ("fence", "code_block"):
            code.blocks.extend(p for p in re.split(r"\n\s*\n", tok.content) if p.strip())
        elif tok.type == "paragraph_open" and is_prose(source):
            prose.blocks.append(source)
    return [prose, docs, code]


def text_streams(path: str) -> list[Stream]:
    text = Path(path).read_text(encoding="utf-8", errors="replace").replace("\r\n", "\n")
    paras = [p.strip("\n") for p in re.split(r"\n\s*\n", text) if p.strip()]
    prose = Stream("prose", path, [p for p in paras if is_prose(p)])
    return [prose, Stream("docs", path, paras)]


def load_streams(corpus: Path) -> list[Stream]:
    md = MarkdownIt("commonmark").enable("table")
    streams: list[Stream] = []
    for path in sorted(glob.glob(str(corpus / "markdown" / "**" / "*.md*"), recursive=True)):
        streams += markdown_streams(path, md)
    for path in sorted(glob.glob(str(corpus / "qa" / "*" / "corpora" / "*"))):
        streams += text_streams(path)
    return [s for s in streams if s.blocks]


# --- windows ------------------------------------------------------------------------------


def split_block(block: str, count: Count, limit: int) -> list[str]:
    """Cut a block larger than ``limit`` true tokens at lines, then sentences, then words."""
    if count(block) <= limit:
        return [block]
    for splitter in (lambda b: b.split("\n"), _SENTENCE.split, str.split):
        parts = [p for p in splitter(block) if p.strip()]
        if len(parts) > 1:
            break
    else:
        return [block]
    joiner = " " if splitter is _SENTENCE.split or splitter is str.split else "\n"
    out: list[str] = []
    cur: list[str] = []
    cur_n = 0
    for part in parts:
        n = count(part)
        if cur and cur_n + n > limit:
            out.append(joiner.join(cur))
            cur, cur_n = [], 0
        if n > limit:
            out += split_block(part, count, limit)
            continue
        cur.append(part)
        cur_n += n
    if cur:
        out.append(joiner.join(cur))
    return out


def windows(stream: Stream, count: Count, target: int = TARGET) -> list[str]:
    """Consecutive blocks joined by blank lines, each window up to ``target`` true tokens."""
    out: list[str] = []
    cur: list[str] = []
    cur_n = 0
    for block in stream.blocks:
        for part in split_block(block, count, target):
            n = count(part)
            if cur and cur_n + n > target:
                out.append("\n\n".join(cur))
                cur, cur_n = [], 0
            cur.append(part)
            cur_n += n
    if cur and cur_n >= target // 2:
        out.append("\n\n".join(cur))
    return [w for w in out if count(w) >= target // 2]


def pack(blocks: Iterable[str], estimate: Count, limit: int = MAX) -> list[str]:
    """Greedy packing up to ``limit`` estimated tokens, as a chunker filling to max would."""
    out: list[str] = []
    cur: list[str] = []
    cur_n = 0
    for block in blocks:
        n = estimate(block)
        if cur and cur_n + n > limit:
            out.append("\n\n".join(cur))
            cur, cur_n = [], 0
        if n <= limit:  # an oversized block alone is the splitter's job, not counted here
            cur.append(block)
            cur_n += n
    if cur:
        out.append("\n\n".join(cur))
    return out


# --- stats --------------------------------------------------------------------------------


def error_stats(est: Sequence[int], true: Sequence[int]) -> dict[str, float]:
    rel = [100.0 * (e - t) / t for e, t in zip(est, true, strict=True) if t > 0]
    absolute = [abs(r) for r in rel]
    return {
        "n": len(rel),
        "mae_pct": sum(absolute) / len(absolute) if absolute else math.nan,
        "p95_pct": percentile(absolute, 95),
        "bias_pct": sum(rel) / len(rel) if rel else math.nan,
    }


def legacy_count(text: str) -> int:
    """The first-draft word rule (``balanced``, x1.04), the reference calibration started from."""
    total = 0.0
    for word in re.findall(r"[^\W\d_]+", text):
        n = len(word)
        total += 1.0 if n <= 4 else 1.3 if n <= 8 else math.ceil(n / 4)
    total += sum(math.ceil(len(d) / 2) for d in re.findall(r"\d+", text))
    total += len(re.findall(r"[^\w\s]|_", text))
    return math.ceil(total * 1.04)


# --- main ---------------------------------------------------------------------------------


def throughput(streams: Sequence[Stream]) -> dict[str, float]:
    """MB/s of per-block calls (as the chunker makes them), by process CPU time so that other
    work on a shared machine does not count; the cold pass includes loading the vocabulary."""
    blocks = [b for s in streams if s.kind == "docs" for b in s.blocks]
    size = sum(len(b.encode("utf-8")) for b in blocks) / 1e6
    est = tokens.Estimator("balanced")
    result: dict[str, float] = {"mb": size}
    t0 = time.process_time()
    for b in blocks:
        est.count(b)
    result["cold_mb_s"] = size / (time.process_time() - t0)
    warm = []
    for _ in range(3):
        t0 = time.process_time()
        for b in blocks:
            est.count(b)
        warm.append(time.process_time() - t0)
    result["warm_mb_s"] = size / min(warm)
    docs = "\n\n".join(blocks)
    t0 = time.process_time()
    est.count(docs)
    result["whole_text_mb_s"] = size / (time.process_time() - t0)
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_corpus(ap)
    ap.add_argument("--tokenizers", type=Path, default=None, help="default: CORPUS/../tokenizers")
    ap.add_argument("--json", action="store_true", help="also print the numbers as JSON")
    ap.add_argument("--baseline", action="store_true", help="also measure the first-draft rule")
    args = ap.parse_args(argv)
    tok_dir = args.tokenizers or args.corpus.parent / "tokenizers"

    streams = load_streams(args.corpus)
    if not streams:
        ap.error(f"no markdown or qa text found under {args.corpus}")
    speed = throughput(streams)  # first, so the cold pass is really cold

    wordpiece = tokens.WordPieceCounter(str(tok_dir / "all-MiniLM-L6-v2.tokenizer.json"))
    cl100k = tokens.TiktokenCounter(str(tok_dir / "cl100k_base.tiktoken.gz"))
    memo: dict[str, int] = {}

    def wp(text: str) -> int:
        n = memo.get(text)
        if n is None:
            n = memo[text] = wordpiece.count(text)
        return n

    wins = {k: [w for s in streams if s.kind == k for w in windows(s, wp)] for k in KINDS}
    truth = {
        "wordpiece": {k: [wp(w) for w in ws] for k, ws in wins.items()},
        "cl100k": {k: [cl100k.count(w) for w in ws] for k, ws in wins.items()},
    }
    estimators: dict[str, Count] = {b: tokens.Estimator(b).count for b in BIASES}
    if args.baseline:
        estimators = {"draft-rule": legacy_count, **estimators}

    errors = error_rows(estimators, wins, truth)
    packing = packing_rows(estimators, streams, wp)
    print_tables(args.corpus, speed, list(estimators), errors, packing)
    if args.json:
        report = {"corpus": str(args.corpus), "throughput": speed, "errors": errors,
                  "packing": packing}  # fmt: skip
        print(json.dumps(report, indent=2))
    return 0


def error_rows(
    estimators: dict[str, Count], wins: dict[str, list[str]], truth: dict[str, dict[str, list[int]]]
) -> list[dict[str, object]]:
    """Each estimator's error on each kind's windows, against each reference tokenizer."""
    errors: list[dict[str, object]] = []
    for name, est in estimators.items():
        for kind, ws in wins.items():
            guesses = [est(w) for w in ws]
            for ref, counts in truth.items():
                row: dict[str, object] = {"estimator": name, "kind": kind, "reference": ref}
                row.update(error_stats(guesses, counts[kind]))
                errors.append(row)
    return errors


def packing_rows(
    estimators: dict[str, Count], streams: Sequence[Stream], wp: Count
) -> list[dict[str, object]]:
    """Blocks packed by each estimator: how many chunks are over MAX true WordPiece tokens."""
    packing: list[dict[str, object]] = []
    for name, est in estimators.items():
        for kind in KINDS:
            chunks = [c for s in streams if s.kind == kind for c in pack(s.blocks, est)]
            over = sum(wp(c) > MAX for c in chunks)
            worst = max((wp(c) for c in chunks), default=0)
            packing.append(
                {
                    "estimator": name,
                    "kind": kind,
                    "chunks": len(chunks),
                    "over_512": over,
                    "over_512_pct": 100.0 * over / max(1, len(chunks)),
                    "max_true": worst,
                }
            )
    return packing


def print_tables(
    corpus: Path,
    speed: dict[str, float],
    names: list[str],
    errors: list[dict[str, object]],
    packing: list[dict[str, object]],
) -> None:
    print(f"corpus: {corpus}  ({speed['mb']:.1f} MB of blocks)")
    print(f"windows: ~{TARGET} WordPiece tokens at paragraph boundaries")
    print()
    print(
        f"{'estimator':<11} {'kind':<6} {'n':>5} | {'WordPiece MAE%':>14} {'p95%':>6} {'bias%':>7}"
        f" | {'cl100k MAE%':>11} {'p95%':>6} {'bias%':>7}"
    )
    print("-" * 86)
    by_key = {(r["estimator"], r["kind"], r["reference"]): r for r in errors}
    for name in names:
        for kind in KINDS:
            a, b = by_key[(name, kind, "wordpiece")], by_key[(name, kind, "cl100k")]
            print(
                f"{name:<11} {kind:<6} {a['n']:>5} | {a['mae_pct']:>14.2f} {a['p95_pct']:>6.2f}"
                f" {a['bias_pct']:>+7.2f} | {b['mae_pct']:>11.2f} {b['p95_pct']:>6.2f}"
                f" {b['bias_pct']:>+7.2f}"
            )
    print()
    print(f"packing to {MAX} estimated tokens: chunks whose true WordPiece count exceeds {MAX}")
    for row in packing:
        print(
            f"  {row['estimator']:<11} {row['kind']:<6} {row['over_512']:>5} / {row['chunks']:<5}"
            f" ({row['over_512_pct']:.2f}%)  max true {row['max_true']}"
        )
    print()
    print(
        f"throughput (Estimator.count per block, CPU time): cold {speed['cold_mb_s']:.1f} MB/s,"
        f" warm {speed['warm_mb_s']:.1f} MB/s (best of 3); one {speed['mb']:.1f} MB string:"
        f" {speed['whole_text_mb_s']:.1f} MB/s"
    )


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    raise SystemExit(main())
