"""Property tests of invariants 1-4 of docs/design.md on generated and pathological inputs."""

from __future__ import annotations

import itertools
import re
import time
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pipeline import ChunkConfig, chunk_markdown, chunk_text, make_config

from .helpers import TIMED, assert_invariants, sections
from .strategies import PARAGRAPH, fuzz_doc, long_atoms_doc, markdown_doc, normalized

SMALL = make_config({"preset": "small"})
TOKENIZER = Path(__file__).parent / "fixtures" / "tokenizers" / "all-MiniLM-L6-v2.tokenizer.json"
CONFIGS = st.sampled_from([make_config(), SMALL, make_config({"overlap": "high"})])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(markdown_doc(), CONFIGS)
def test_markdown_invariants(src: str, config: object) -> None:
    from pipeline import ChunkConfig

    assert isinstance(config, ChunkConfig)
    chunks = chunk_markdown(src, config)
    assert_invariants(normalized(src), chunks, config)
    again = chunk_markdown(src, config)
    assert [c.to_dict() for c in chunks] == [c.to_dict() for c in again]


EXACT = make_config({"tokenizer": str(TOKENIZER), "preset": "small"})
MARKER = re.compile(r"(?:[-+*]|\d{1,9}[.)]|>(?: ?>)*) ")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(long_atoms_doc(), st.sampled_from([make_config(), SMALL, EXACT]))
def test_long_rows_items_and_code_lines_fit_the_budget(src: str, config: ChunkConfig) -> None:
    """Huge table cells, long list items, quotes and code lines are cut inside the line:
    no chunk is over budget and the offsets hold with the repeated header, key, marker or
    continuation."""
    chunks = chunk_markdown(src, config)
    assert_invariants(src, chunks, config)
    for c in chunks:
        # only a single word over budget may be oversized: here a separator of
        # thousands of dashes, which a section must keep and a snippet leaves out
        assert not c.oversized or (c.tier == "section" and max(map(len, c.text.split())) > 1000)
    for c in chunks:
        lead = c.text[: c.prefix_chars].rsplit("\n", 1)[-1]
        kind = c.content_hints[0] if c.content_hints else ""
        if c.prefix_chars and kind in ("list", "quote") and "\n" not in c.text[: c.prefix_chars]:
            assert MARKER.fullmatch(lead), (lead, c.text[:80])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=3000))
def test_arbitrary_text_never_breaks(src: str) -> None:
    assert_invariants(normalized(src), chunk_markdown(src, SMALL), SMALL)
    assert_invariants(normalized(src), chunk_text(src, SMALL), SMALL, markup="text")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(PARAGRAPH, PARAGRAPH.map(str.upper), st.just("Chapter 9")), max_size=40))
def test_flat_text_invariants(paras: list[str]) -> None:
    src = "\n\n".join(paras)
    chunks = chunk_text(src)
    assert_invariants(src, chunks, markup="text")


@TIMED
def test_one_5mb_line() -> None:
    src = ("lorem ipsum dolor sit amet " * 200_000)[:5_000_000]
    t0 = time.perf_counter()
    chunks = chunk_markdown(src)
    assert time.perf_counter() - t0 < 120
    assert_invariants(src, chunks)
    assert not any(c.oversized for c in chunks)


def test_ten_thousand_headings() -> None:
    src = "\n\n".join(f"## Heading {i}\n\ntext {i}" for i in range(10_000))
    chunks = chunk_markdown(src)
    assert_invariants(src, chunks)
    assert all(not c.text.startswith("## ") or "\n" in c.text for c in chunks)


def test_only_tables_and_only_code() -> None:
    tables = "\n\n".join(
        "| a | b |\n|---|---|\n" + "\n".join(f"| {i} | {j} |" for j in range(50)) for i in range(40)
    )
    chunks = chunk_markdown(tables)
    assert_invariants(tables, chunks)
    assert all(c.contains_table for c in chunks)
    codes = "\n\n".join(
        "```py\n" + "\n".join(f"x = {j}" for j in range(300)) + "\n```" for _ in range(10)
    )
    chunks = chunk_markdown(codes)
    assert_invariants(codes, chunks)
    assert all(c.content_hints == ("code",) for c in chunks)


def test_empty_and_frontmatter_only() -> None:
    assert chunk_markdown("") == []
    assert chunk_markdown("---\na: 1\n---\n") == []


def test_determinism_across_configs_sections_tile() -> None:
    src = "\n\n".join(f"# H{i}\n\n" + "word " * (50 * i) for i in range(1, 30))
    chunks = chunk_markdown(src)
    assert_invariants(src, chunks)
    secs = sections(chunks)
    for a, b in itertools.pairwise(secs):
        assert b.char_start >= a.char_start


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(markdown_doc(), st.integers(50, 2000))
def test_windowed_parse_equals_whole_parse(src: str, window: int) -> None:
    from pipeline.parse import blocks as parse_blocks

    text = normalized(src)
    whole = parse_blocks.parse_markdown(text)[0]
    saved = parse_blocks.WINDOW_CHARS
    parse_blocks.WINDOW_CHARS = window
    try:
        windowed = parse_blocks.parse_markdown(text)[0]
    finally:
        parse_blocks.WINDOW_CHARS = saved
    assert windowed == whole


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fuzz_doc(), st.sampled_from(["markdown", "mdx", "text"]))
# MDX has no indented code: the checker must read the source as the chunker did.
@example("    " + "002A02:0102:" * 30, "mdx")
# a heading longer than a snippet: its title is cut in the prefix, the budget stays positive
@example("intro\n\n" + "long heading words " * 400 + "\n====\n\nbody text", "markdown")
def test_fuzz_mixtures_keep_invariants(src: str, mode: str) -> None:
    from pipeline import chunk_document
    from pipeline.model import Document

    text = normalized(src)
    doc = Document(
        text=text,
        format="mdx" if mode == "mdx" else mode,
        markup="text" if mode == "text" else "markdown",
    )
    chunks = chunk_document(doc, SMALL)
    assert_invariants(text, chunks, SMALL, markup="markdown" if mode == "markdown" else mode)
    assert [c.to_dict() for c in chunks] == [c.to_dict() for c in chunk_document(doc, SMALL)]


class _SumFree:
    """The default estimator without its ``joins``: every run of atoms is counted whole."""

    additive = True

    def __init__(self) -> None:
        from pipeline import Estimator

        self._estimator = Estimator()

    def count(self, text: str) -> int:
        return self._estimator.count(text)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(fuzz_doc(), long_atoms_doc()))
@example("# Data\n\nSee ![x](data:image/png;base64," + "Qm9+/4Zx" * 900 + ").\n\nEnd.")
def test_summed_runs_equal_runs_counted_whole(src: str) -> None:
    """Splitting sums the counts of a run's atoms where ``Estimator.joins`` allows it,
    and of a block's lines, and counts character cuts through ``Slices`` (here of every
    block and run): the chunks are exactly those of counting every range whole."""
    from pipeline.chunk import tiers
    from pipeline.model import Document
    from pipeline.parse.document import parse

    parsed = parse(Document(text=normalized(src)), SMALL)
    saved = tiers.LINE_COUNTED_CHARS, tiers.SLICED_CHARS
    tiers.LINE_COUNTED_CHARS = tiers.SLICED_CHARS = 0
    try:
        summed = tiers.chunk_parsed(parsed, SMALL)
    finally:
        tiers.LINE_COUNTED_CHARS, tiers.SLICED_CHARS = saved
    whole = tiers.chunk_parsed(parsed, SMALL, _SumFree())
    assert [c.to_dict() for c in summed] == [c.to_dict() for c in whole]
