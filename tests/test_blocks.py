"""Markdown block parsing: every block type and the cases regex parsers get wrong."""

from __future__ import annotations

import itertools

import pytest

from pipeline.model import Block
from pipeline.parse.blocks import parse_markdown, split_row, table_headers


def kinds(src: str, mdx: bool = False) -> list[str]:
    return [b.kind for b in parse_markdown(src, mdx=mdx)[0]]


def texts(src: str) -> list[str]:
    return [src[b.start : b.end] for b in parse_markdown(src)[0]]


def only(src: str, kind: str) -> Block:
    found = [b for b in parse_markdown(src)[0] if b.kind == kind]
    assert len(found) == 1, found
    return found[0]


def test_every_block_type_with_offsets() -> None:
    src = (
        "---\ntitle: T\n---\n"
        "# Heading\n\n"
        "A paragraph\nover two lines.\n\n"
        "- item one\n- item two\n\n"
        "```python\nprint(1)\n```\n\n"
        "| a | b |\n|---|---|\n| 1 | 2 |\n\n"
        "> quoted\n\n"
        "<div>\nraw\n</div>\n\n"
        "***\n"
    )
    blocks = parse_markdown(src)[0]
    assert [b.kind for b in blocks] == [
        "frontmatter",
        "heading",
        "paragraph",
        "list",
        "code",
        "table",
        "quote",
        "html",
        "hr",
    ]
    assert [src[b.start : b.end] for b in blocks][2] == "A paragraph\nover two lines."
    para = blocks[2]
    assert (para.line_start, para.line_end) == (6, 7)
    assert blocks[1].level == 1 and blocks[1].title == "Heading"
    assert blocks[4].lang == "python"


def test_hash_lines_inside_fences_are_not_headings() -> None:
    src = "```bash\n# not a heading\n## nor this\n```\n\n~~~~\n# tilde fence\n~~~~\n"
    assert kinds(src) == ["code", "code"]


def test_setext_headings() -> None:
    src = "Title One\n=========\n\nSub Title\n---------\n\ntext\n"
    blocks = parse_markdown(src)[0]
    assert [(b.kind, b.level, b.title) for b in blocks[:2]] == [
        ("heading", 1, "Title One"),
        ("heading", 2, "Sub Title"),
    ]
    assert src[blocks[0].start : blocks[0].end] == "Title One\n========="


def test_longer_fence_needs_longer_close() -> None:
    src = "`````\n```\ninner\n```\n`````\n\nafter\n"
    blocks = parse_markdown(src)[0]
    assert [b.kind for b in blocks] == ["code", "paragraph"]
    assert src[blocks[0].start : blocks[0].end].endswith("`````")


def test_unclosed_fence_runs_to_end() -> None:
    src = "intro\n\n```js\nlet a = 1;\n# still code\n\nmore code"
    blocks = parse_markdown(src)[0]
    assert [b.kind for b in blocks] == ["paragraph", "code"]
    assert blocks[1].end == len(src)


def test_indented_code() -> None:
    src = "para\n\n    code line\n    # not heading\n\nafter\n"
    assert kinds(src) == ["paragraph", "code", "paragraph"]


def test_table_without_outer_pipes_and_escaped_pipe() -> None:
    src = "a | b\n--|--\nx \\| y | z\n"
    block = only(src, "table")
    assert table_headers(src, block) == ("a", "b")
    assert split_row("x \\| y | z") == ("x | y", "z")


def test_nested_list_with_code_is_one_block() -> None:
    src = "- one\n  - nested\n\n    ```\n    # code\n    ```\n- two\n\nafter\n"
    blocks = parse_markdown(src)[0]
    assert [b.kind for b in blocks] == ["list", "paragraph"]
    assert "# code" in src[blocks[0].start : blocks[0].end]


def test_html_block() -> None:
    src = "<table>\n<tr><td># x</td></tr>\n</table>\n\ntext\n"
    assert kinds(src) == ["html", "paragraph"]


def test_tabs_and_lazy_continuation() -> None:
    src = "> quote line\nlazy continuation\n\n\tindented with tab\n"
    blocks = parse_markdown(src)[0]
    assert [b.kind for b in blocks] == ["quote", "code"]
    assert src[blocks[0].start : blocks[0].end] == "> quote line\nlazy continuation"


def test_frontmatter_only_at_offset_zero() -> None:
    assert kinds("---\na: 1\n---\ntext\n")[0] == "frontmatter"
    later = kinds("text\n\n---\na: 1\n---\n")
    assert "frontmatter" not in later


def test_link_reference_definitions_are_kept_as_blocks() -> None:
    src = "[ref]: https://example.com\n\nSee [ref].\n"
    assert texts(src) == ["[ref]: https://example.com", "See [ref]."]


def test_heading_title_cleanup() -> None:
    block = only("## Install { #install }\n", "heading")
    assert block.title == "Install"
    assert only("# **Bold**\n", "heading").title == "Bold"
    assert only("# a *b* c\n", "heading").title == "a *b* c"


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        ("import X from './x'\nexport const a = 1\n\n# T\n", ["mdx_esm", "heading"]),
        ('<Tabs>\n  <Tab label="a">x</Tab>\n</Tabs>\n\ntext\n', ["mdx_component", "paragraph"]),
        ("{props.value}\n\n<Foo bar={1} />\n", ["mdx_component", "mdx_component"]),
        ("<Unclosed\n\n```\ncode\n", ["mdx_component", "code"]),
    ],
)
def test_mdx_blocks(src: str, expected: list[str]) -> None:
    assert kinds(src, mdx=True) == expected


def test_deep_nesting_does_not_recurse_forever() -> None:
    src = "> " * 5000 + "deep\n\n" + "".join("  " * i + "- x\n" for i in range(3000))
    blocks = parse_markdown(src)[0]
    assert blocks[0].start == 0
    assert blocks[-1].end == len(src.rstrip())


@pytest.mark.parametrize("tail", ["\n", "\n\n", "\n\n# After\n\ntext\n", "\n- item\n"])
def test_a_paragraph_longer_than_the_window_is_parsed_once_more(
    monkeypatch: pytest.MonkeyPatch, tail: str
) -> None:
    from pipeline.parse import blocks as parse_blocks

    src = "# Links\n\n" + "".join(f"[r{i}]: https://x.org/{i}\n" for i in range(2000))
    src = src.rstrip("\n") + tail
    whole = parse_markdown(src)[0]
    parsed: list[int] = []
    top_blocks = parse_blocks._top_blocks

    def counting(src: str, text: str, *args: object, **kwargs: bool) -> list[Block]:
        parsed.append(len(text))
        return top_blocks(src, text, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(parse_blocks, "WINDOW_CHARS", 1000)
    monkeypatch.setattr(parse_blocks, "_top_blocks", counting)
    assert parse_markdown(src)[0] == whole
    # the first window, the paragraph's own first window, then once to its end (widening
    # by 8 parsed 1,000 + 8,000 characters of it in vain)
    assert sum(parsed) <= len(src) + 3 * 1000


# The shape of Astro's docs/src/content/docs/en/reference/cli-reference.mdx: fenced code
# indented inside JSX components, shell comments in the fences, a blank line inside a fence,
# and a JSX comment expression spanning blank lines.
CLI_REFERENCE_SHAPE = """---
title: CLI Commands
---
import PackageManagerTabs from '~/components/tabs/PackageManagerTabs.astro'

### `package.json` scripts

Add flags to the command when you want to customize the command's behavior.

<PackageManagerTabs>
  <Fragment slot="npm">
  ```shell
  # run the dev server on port 8080 using the `start` script in `package.json`
  npm run start -- --port 8080

  # build your site with verbose logs using the `build` script in `package.json`
  npm run build -- --verbose
  ```
  </Fragment>
  <Fragment slot="pnpm">
  ```shell
  # run the dev server on port 8080 using the `start` script in `package.json`
  pnpm start --port 8080

  # build your site with verbose logs using the `build` script in `package.json`
  pnpm build --verbose
  ```
  </Fragment>
</PackageManagerTabs>

{/*

ORIGINAL CONTENT

# not a heading either

*/}

## `astro dev`

Runs Astro's development server.

<Tabs>
    <TabItem label="deep">
        ```sh
        # still a comment in a fence
        astro dev

        # and another
        ```
    </TabItem>
</Tabs>

## `astro build`

Builds your site for deployment.
"""


def test_mdx_fences_inside_jsx_are_fences() -> None:
    src = CLI_REFERENCE_SHAPE
    blocks = parse_markdown(src, mdx=True)[0]
    assert [b.title for b in blocks if b.kind == "heading"] == [
        "`package.json` scripts",
        "`astro dev`",
        "`astro build`",
    ]
    code = [src[b.start : b.end] for b in blocks if b.kind == "code"]
    assert len(code) == 3
    assert all(c.lstrip().startswith("```") and c.rstrip().endswith("```") for c in code)
    assert "npm run build -- --verbose" in code[0] and "pnpm build --verbose" in code[1]
    assert "and another" in code[2]
    comment = next(b for b in blocks if src[b.start : b.end].startswith("{/*"))
    assert comment.kind == "mdx_component" and src[comment.start : comment.end].endswith("*/}")
    # blocks tile the source in order, as always
    assert all(a.end <= b.start for a, b in itertools.pairwise(blocks))


def test_mdx_breadcrumbs_after_a_jsx_block() -> None:
    from pipeline import chunk_document
    from pipeline.model import Document

    text = CLI_REFERENCE_SHAPE
    for sentence in ("Runs Astro's development server.", "Builds your site for deployment."):
        text = text.replace(sentence, " ".join([sentence] * 300))  # no section merges
    doc = Document(text=text, source="cli-reference.mdx", format="mdx")
    chunks = chunk_document(doc)
    assert all("build your site" not in " ".join(c.breadcrumb) for c in chunks)
    assert {c.breadcrumb[1:] for c in chunks if "Builds your site" in c.text} == {
        ("`astro build`",)
    }
