"""Long fuzz run of the chunker: random mixtures of every block type, MDX constructs and
hostile text (NUL, invalid UTF-8 replaced, RTL/CJK, ZWJ emoji, mixed newlines), checked
against the invariants of docs/design.md and determinism. Failing inputs are saved.

    python scripts/check/fuzz_chunker.py --minutes 10 [--out fuzz-failures] [--seed N]
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from pipeline import chunk_document, make_config  # noqa: E402
from pipeline.chunk.invariants import check_chunks  # noqa: E402
from pipeline.model import Document  # noqa: E402
from pipeline.parse.blocks import parse_markdown  # noqa: E402
from pipeline.parse.document import uses_mdx  # noqa: E402
from tests.strategies import fuzz_doc, normalized  # noqa: E402

CONFIGS = [
    make_config(),
    make_config({"preset": "small", "overlap": "high"}),
    make_config({"preset": "small", "min_tokens": 0, "frontmatter": "include"}),
]


def check(src: str, mode: str, config_index: int) -> None:
    config = CONFIGS[config_index]
    text = normalized(src)
    doc = Document(text=text, format=mode, markup="text" if mode == "text" else "markdown")
    chunks = chunk_document(doc, config)
    markup = "mdx" if doc.markup == "markdown" and uses_mdx(doc, config) else doc.markup
    excluded: list[tuple[int, int]] = []
    if markup != "text" and config.frontmatter != "include":
        blocks, _ = parse_markdown(text, mdx=markup == "mdx")
        excluded = [(b.start, b.end) for b in blocks[:1] if b.kind == "frontmatter"]
    problems = check_chunks(text, chunks, config, excluded=excluded, markup=markup)
    if [c.to_dict() for c in chunks] != [c.to_dict() for c in chunk_document(doc, config)]:
        problems.append("determinism: a second run differs")
    if problems:
        raise AssertionError("; ".join(problems[:5]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=1.0)
    ap.add_argument("--out", default="fuzz-failures", help="folder for failing inputs")
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args()
    out = Path(args.out)
    deadline = time.monotonic() + args.minutes * 60
    stats = {"examples": 0, "failures": 0}

    @settings(
        max_examples=500, deadline=None, database=None, suppress_health_check=list(HealthCheck)
    )
    @given(fuzz_doc(), st.sampled_from(["markdown", "mdx", "text"]), st.integers(0, 2))
    def one(src: str, mode: str, config_index: int) -> None:
        stats["examples"] += 1
        try:
            check(src, mode, config_index)
        except Exception:
            stats["failures"] += 1
            out.mkdir(parents=True, exist_ok=True)
            name = hashlib.sha256(src.encode("utf-8", "surrogatepass")).hexdigest()[:16]
            (out / f"{name}.{mode}.txt").write_text(src, encoding="utf-8", errors="surrogatepass")
            (out / f"{name}.{mode}.error.txt").write_text(
                f"config {config_index}\n{traceback.format_exc()}", encoding="utf-8"
            )
            raise

    rounds = 0
    while time.monotonic() < deadline:
        test = seed(args.seed + rounds)(one) if args.seed is not None else one
        rounds += 1
        try:
            test()
        except Exception as exc:
            print(f"failure saved under {out}/: {str(exc)[:300]}", file=sys.stderr)
    print(f"{stats['examples']} examples in {args.minutes:g} min, {stats['failures']} failures")
    return 1 if stats["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
