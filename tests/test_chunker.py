"""Two-tier chunking: structure, splitting by type, overlap, metadata."""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from pipeline import chunk_markdown, chunk_text, make_config
from pipeline.chunk.concepts import top_terms
from pipeline.chunk.tokens import estimate_tokens

from .helpers import assert_invariants, sections, snippets

PARA = (
    "Ownership is a set of rules that govern how a program manages memory. Some languages "
    "have garbage collection that regularly looks for no-longer-used memory as the program "
    "runs; in other languages, the programmer must explicitly allocate and free the memory."
)


def doc(*parts: str) -> str:
    return "\n\n".join(parts) + "\n"


def test_breadcrumbs_h1_clears_stack_and_level_jumps_kept() -> None:
    body = "\n\n".join([PARA] * 12)
    src = doc("# Book", body, "### Deep", body, "## Mid", body, "# Second", body, "#### Jump", body)
    chunks = chunk_markdown(src)
    assert_invariants(src, chunks)
    crumbs = {c.breadcrumb for c in snippets(chunks)}
    assert ("Book", "Deep") in crumbs  # doc title is the first H1, not repeated
    assert ("Book", "Mid") in crumbs  # ## pops ###
    assert ("Book", "Second") in crumbs  # new H1 clears the stack
    assert ("Book", "Second", "Jump") in crumbs  # level jump kept as observed


def test_sections_hold_snippets_and_budgets() -> None:
    src = doc("# T", *([PARA] * 80))
    chunks = chunk_markdown(src)
    assert_invariants(src, chunks)
    secs, snips = sections(chunks), snippets(chunks)
    assert len(secs) >= 2 and len(snips) > len(secs)
    cfg = make_config()
    assert all(c.est_tokens <= cfg.section_max for c in secs)
    assert all(c.est_tokens <= cfg.snippet_max for c in snips)
    # balanced packing: no tiny tail section
    assert min(c.est_tokens for c in secs) > cfg.section_target // 3
    assert all(c.parent_id in {s.id for s in secs} for c in snips)


def test_small_sibling_sections_merge() -> None:
    src = doc("# Guide", "## A", "alpha text", "## B", "beta text", "## C", "gamma text")
    secs = sections(chunk_markdown(src))
    assert len(secs) == 1
    assert secs[0].breadcrumb == ("Guide",)


def test_code_split_repeats_fence_and_closes_every_piece() -> None:
    code = "\n".join(f'let value_{i} = compute({i}, "{"x" * 20}");' for i in range(400))
    src = doc("# Code", "```rust", code + "\n```")
    src = src.replace("```rust\n\n", "```rust\n")
    chunks = chunk_markdown(src)
    assert_invariants(src, chunks)
    pieces = [c for c in chunks if "code" in c.content_hints]
    assert len(pieces) > 3
    for c in pieces:
        assert c.text.lstrip().startswith(("```rust", "# Code"))
        assert c.text.rstrip().endswith("```")
        assert c.text.count("```") % 2 == 0
    middle = [c for c in pieces if c.prefix_chars and c.suffix_chars]
    assert middle and all(c.text.startswith("```rust\n") for c in middle)


def test_table_split_repeats_header_never_cuts_rows() -> None:
    rows = "\n".join(f"| row {i} | {'value ' * 8}| {i * 3} |" for i in range(300))
    src = doc("# Data", "| name | description | count |\n|---|---|---|\n" + rows)
    chunks = chunk_markdown(src)
    assert_invariants(src, chunks)
    tables = [c for c in chunks if c.contains_table]
    assert len(tables) > 3
    for c in tables:
        lines = c.text.split("\n")
        start = lines.index("| name | description | count |")
        assert lines[start + 1] == "|---|---|---|"
        assert all(
            re.fullmatch(r"\| row \d+ \| (value )+\| \d+ \|", ln) for ln in lines[start + 2 :]
        )
        assert c.table_headers == ("name", "description", "count")
        assert c.table_columns == 3
        assert "[TABLE: name | description | count]" in c.retrieval_text
        assert "table" in c.content_hints


def test_table_caption_and_headers_travel_with_every_part_of_the_table() -> None:
    rows = "\n".join(f"| Item {i} | {i},000 | ({i}0) |" for i in range(300))
    caption = "Consolidated Balance Sheets (in millions)"
    src = doc("# Report", PARA, caption, "|  | 2019 | 2018 |\n|---|---|---|\n" + rows)
    chunks = chunk_markdown(src)
    assert_invariants(src, chunks)
    parts = [c for c in snippets(chunks) if c.contains_table]
    assert len(parts) > 3
    for c in parts:
        assert f"[TABLE: {caption} — 2019 | 2018]" in c.retrieval_text
        assert c.table_headers == ("", "2019", "2018")


def test_only_a_short_paragraph_right_before_a_table_is_its_caption() -> None:
    table = "| a | b |\n|---|---|\n| 1 | 2 |"
    for before in (PARA * 2, "## A heading"):
        chunks = chunk_markdown(doc("# T", before, table))
        (c,) = [c for c in snippets(chunks) if c.contains_table]
        assert "[TABLE: a | b]" in c.retrieval_text


def test_long_paragraph_splits_by_sentences_then_words() -> None:
    sentence_para = " ".join([PARA] * 40)
    word_para = " ".join(["word"] * 3000)
    src = doc("# P", sentence_para, word_para)
    chunks = chunk_markdown(src)
    assert_invariants(src, chunks)
    assert not any(c.oversized for c in chunks)


def test_giant_word_is_cut_not_oversized() -> None:
    src = "x" * 50_000
    chunks = chunk_markdown(src)
    assert_invariants(src, chunks)
    assert not any(c.oversized for c in chunks)


def test_huge_row_splits_inside_its_cells_and_every_part_names_its_row() -> None:
    text = " ".join(f"Sentence {i} says what the parameter does." for i in range(300))
    assert len(text) > 12_000
    header = "| Parameter | Required | Description |\n|---|---|---|"
    src = doc("# API", header + "\n| q | yes | " + text + " |\n| page | no | The page. |")
    cfg = make_config()
    chunks = chunk_markdown(src, cfg)
    assert_invariants(src, chunks, cfg)
    assert not any(c.oversized for c in chunks)
    assert all(c.est_tokens <= cfg.snippet_max for c in snippets(chunks))
    parts = [c for c in snippets(chunks) if "Sentence" in c.text]
    assert len(parts) > 5
    for c in parts:
        assert header + "\n| q |" in c.text  # a valid table that names its row
        (row,) = [ln for ln in c.text.split("\n") if ln.startswith("| q |")]
        # cut between sentences, never inside one; later parts leave "Required" empty
        assert re.fullmatch(
            r"\| q \| (yes )?\| (Sentence \d+ says what the parameter does\. ?)+\|", row
        )
    joined = " ".join(c.text[c.prefix_chars : len(c.text) - c.suffix_chars] for c in parts)
    assert all(f"Sentence {i} says" in joined for i in range(300))


def test_row_part_in_a_later_cell_keeps_the_columns() -> None:
    words = " ".join(f"w{i}" for i in range(4000))
    src = doc("| key | a | b |\n|---|---|---|\n| k1 | short | " + words + " |")
    cfg = make_config({"preset": "small"})
    chunks = chunk_markdown(src, cfg)
    assert_invariants(src, chunks, cfg)
    later = [c for c in snippets(chunks) if c.prefix_chars and "w3999" in c.text]
    assert later and later[0].text.split("\n")[2].startswith("| k1 | | w")


def test_a_word_longer_than_the_budget_in_a_cell_is_the_only_oversized_part() -> None:
    row = "| key | " + "intro words here " * 5 + "x" * 6000 + " tail words |"
    src = doc("| a | b |\n|---|---|\n" + row)
    cfg = make_config()
    chunks = chunk_markdown(src, cfg)
    assert_invariants(src, chunks, cfg)
    over = [c for c in snippets(chunks) if c.oversized]
    assert len(over) == 1 and "x" * 6000 in over[0].text
    assert all(c.est_tokens <= cfg.snippet_max for c in snippets(chunks) if not c.oversized)


def test_list_split_by_items() -> None:
    items = "\n".join(f"- item {i}: {PARA}" for i in range(40))
    src = doc("# L", items)
    chunks = chunk_markdown(src)
    assert_invariants(src, chunks)
    for c in snippets(chunks):
        body = c.text[c.text.find("- item") :]
        assert body.startswith("- item")


def test_overlap_is_whole_blocks_and_not_before_headings() -> None:
    paras = [f"Paragraph {i}. {PARA}" for i in range(60)]
    src = doc("# O", *paras)
    snips = snippets(chunk_markdown(src))
    overlapping = [(a, b) for a, b in itertools.pairwise(snips) if b.char_start < a.char_end]
    assert overlapping
    for a, b in overlapping:
        assert src[b.char_start : b.char_start + 10].startswith("Paragraph")
        assert estimate_tokens(src[b.char_start : a.char_end]) <= make_config().snippet_overlap
    none = snippets(chunk_markdown(src, make_config({"overlap": "none"})))
    assert all(b.char_start >= a.char_end for a, b in itertools.pairwise(none))


def test_frontmatter_modes() -> None:
    src = "---\ntitle: My Doc\ntags: [a, b]\n---\n# Heading\n\nBody text.\n"
    meta = chunk_markdown(src)
    assert meta[0].doc_title == "My Doc"
    assert meta[0].frontmatter == {"title": "My Doc", "tags": ["a", "b"]}
    assert "tags:" not in meta[0].text
    include = chunk_markdown(src, make_config({"frontmatter": "include"}))
    assert include[0].text.startswith("---\ntitle: My Doc")
    strip = chunk_markdown(src, make_config({"frontmatter": "strip"}))
    assert strip[0].frontmatter is None and "title:" not in strip[0].text


def test_broken_frontmatter_is_kept_raw() -> None:
    chunks = chunk_markdown("---\n: [unclosed\n---\nbody\n")
    assert chunks[0].frontmatter is not None and "_raw" in chunks[0].frontmatter


def test_crlf_bom_are_normalized() -> None:
    src = "\ufeff# Title\r\n\r\nline one\r\nline two\r\n"
    chunks = chunk_markdown(src)
    assert chunks[0].text == "# Title\n\nline one\nline two"
    assert chunks[0].line_end == 4


def test_metadata_fields() -> None:
    src = doc(
        "# Guide", "Intro " + PARA, "```py\nprint('hi')\n```", "> " + PARA, "- " + PARA + "\n- b"
    )
    c = sections(chunk_markdown(src, source="guide.md"))[0]
    assert c.source == "guide.md" and c.doc_title == "Guide"
    assert c.line_start == 1 and c.char_start == 0
    assert c.block_start == 0 and c.block_end == 4
    assert c.page_start is None
    assert c.retrieval_text.startswith("[DOC: Guide] [CONCEPTS: ")
    assert set(c.content_hints) >= {"prose", "code", "quote", "list"}
    assert "mixed" in c.content_hints
    assert c.est_tokens == estimate_tokens(c.retrieval_text)


def test_ids_are_deterministic_and_unique() -> None:
    src = doc("# T", *([PARA] * 30))
    a, b = chunk_markdown(src), chunk_markdown(src)
    assert [c.id for c in a] == [c.id for c in b]
    assert len({c.id for c in a}) == len(a)
    other = chunk_markdown(src + "changed\n")
    assert a[0].doc_id != other[0].doc_id and a[0].id != other[0].id


def test_empty_and_blank_inputs() -> None:
    assert chunk_markdown("") == []
    assert chunk_markdown("\n\n   \n") == []
    assert chunk_text("") == []


def test_only_frontmatter() -> None:
    src = "---\ntitle: x\n---\n"
    assert chunk_markdown(src) == []
    inc = chunk_markdown(src, make_config({"frontmatter": "include"}))
    assert len(inc) == 2 and inc[0].text == "---\ntitle: x\n---"


def test_prefix_shortened_before_content_moves() -> None:
    deep = "\n\n".join(f"{'#' * (i + 1)} Heading level {i + 1} with a long title" for i in range(6))
    src = doc(deep, PARA)
    cfg = make_config({"snippet_target": 60, "snippet_max": 80, "min_tokens": 0})
    chunks = chunk_markdown(src, cfg)
    assert_invariants(src, chunks, cfg)
    assert any("…" in c.retrieval_text or "CONCEPTS" not in c.retrieval_text for c in chunks)


def test_heading_depth_limits_sections() -> None:
    body = "\n\n".join([PARA] * 14)
    src = doc("# A", body, "## B", body, "### C", body)
    chunks = chunk_markdown(src, make_config({"heading_depth": 2}))
    assert all("C" not in c.breadcrumb for c in chunks)


def test_a_header_row_over_budget_in_flat_text_splits_into_valid_tables() -> None:
    """PDF tables arrive as flat text; their header cells sometimes caught a paragraph."""
    cell = " ".join(f"Obligations clause {i} applies here." for i in range(120))
    src = doc("Intro line.", f"| {cell} | {cell} |\n|---|---|\n| 2016 | $42,545 |")
    cfg = make_config()
    chunks = chunk_text(src, cfg)
    assert_invariants(src, chunks, cfg, markup="text")
    parts = [c for c in snippets(chunks) if "Obligations clause" in c.text[c.prefix_chars :]]
    assert len(parts) > 2 and not any(c.oversized for c in chunks)
    for c in parts:
        head, sep, first = c.text.split("\n", 3)[:3]
        assert head.startswith("| Obligations clause 0") and head.endswith(" |")
        assert sep == "|---|---|" and first.startswith("| ")


def test_sentence_split_keeps_closing_quotes_and_brackets() -> None:
    para = " ".join(f"She said “line {i} is done.” (See note {i}.)" for i in range(300))
    src = doc("# Q", para)
    chunks = chunk_markdown(src)
    assert_invariants(src, chunks)  # every character of a section is in a snippet
    texts = [c.text for c in snippets(chunks)]
    assert all(t.count("“") == t.count("”") and t.count("(") == t.count(")") for t in texts)


_terms = st.text(alphabet="abcde", min_size=3, max_size=5)


@given(
    st.dictionaries(_terms, st.integers(1, 9), max_size=80),
    st.dictionaries(_terms, st.integers(0, 40)),
    st.integers(1, 50),
    st.integers(1, 12),
)
def test_top_terms_rank_by_tf_idf_then_alphabetically(
    tf: dict[str, int], df: dict[str, int], n: int, k: int
) -> None:
    """A few terms are scored one by one, many through per-value tables: one ranking."""

    def score(t: str) -> float:
        return -(1 + math.log(tf[t])) * math.log((1 + n) / (1 + df.get(t, 0)) + 1)

    expected = sorted(tf, key=lambda t: (score(t), t))[:k]
    assert top_terms(Counter(tf), Counter(df), n, k) == tuple(expected)
