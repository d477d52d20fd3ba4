"""Hypothesis strategies for markdown built from random mixtures of every block type
(shared by the property tests and `scripts/check/fuzz_chunker.py`)."""

from __future__ import annotations

from hypothesis import strategies as st

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFG0123456789é中", min_size=1, max_size=12)
SENTENCE = st.lists(WORD, min_size=1, max_size=40).map(lambda ws: " ".join(ws) + ".")
PARAGRAPH = st.lists(SENTENCE, min_size=1, max_size=12).map(" ".join)


@st.composite
def heading(draw: st.DrawFn) -> str:
    return "#" * draw(st.integers(1, 6)) + " " + draw(WORD) + " " + draw(WORD)


@st.composite
def code(draw: st.DrawFn) -> str:
    fence = draw(st.sampled_from(["```", "~~~", "````"]))
    lines = draw(st.lists(st.text(alphabet="abc(){}; =#|-*>0123", max_size=50), max_size=80))
    closed = draw(st.booleans())
    return (
        fence
        + draw(st.sampled_from(["", "py", "rust"]))
        + "\n"
        + "\n".join(lines)
        + ("\n" + fence if closed else "")
    )


@st.composite
def table(draw: st.DrawFn) -> str:
    cols = draw(st.integers(1, 5))
    head = "| " + " | ".join(draw(WORD) for _ in range(cols)) + " |"
    sep = "|" + "---|" * cols
    rows = [
        "| " + " | ".join(draw(WORD) for _ in range(cols)) + " |"
        for _ in range(draw(st.integers(0, 120)))
    ]
    return "\n".join([head, sep, *rows])


@st.composite
def listing(draw: st.DrawFn) -> str:
    items = draw(st.lists(PARAGRAPH, min_size=1, max_size=20))
    marker = draw(st.sampled_from(["-", "*", "1."]))
    return "\n".join(f"{marker} {it}" for it in items)


# Text far over a small snippet budget on one line: a drawn sentence or run of words
# repeated (cheap to generate), with or without sentence ends to cut at.
LONG_LINE = st.tuples(
    st.one_of(SENTENCE, st.lists(WORD, min_size=1, max_size=8).map(" ".join)),
    st.integers(20, 120),
).map(lambda t: " ".join([t[0]] * t[1]))


@st.composite
def huge_cell_table(draw: st.DrawFn) -> str:
    """A table whose rows may hold cells far over budget; the separator may be padded
    with hundreds of dashes (WordPiece counts each)."""
    cols = draw(st.integers(1, 4))
    head = "| " + " | ".join(draw(WORD) for _ in range(cols)) + " |"
    dashes = draw(st.sampled_from([3, 40, 700]))
    sep = "|" + "|".join(draw(st.sampled_from(["", ":"])) + "-" * dashes for _ in range(cols)) + "|"
    cell = st.one_of(WORD, LONG_LINE, st.just(""))
    rows = [
        "| " + " | ".join(draw(cell) for _ in range(cols)) + " |"
        for _ in range(draw(st.integers(1, 6)))
    ]
    return "\n".join([head, sep, *rows])


@st.composite
def long_items(draw: st.DrawFn) -> str:
    marker = draw(st.sampled_from(["-", "*", "1."]))
    items = draw(st.lists(st.one_of(WORD, LONG_LINE), min_size=1, max_size=4))
    nested = draw(st.sampled_from(["", "\n  - " + draw(LONG_LINE)]))
    return "\n".join(f"{marker} {it}" for it in items) + nested


@st.composite
def long_code_lines(draw: st.DrawFn) -> str:
    lines = draw(st.lists(st.one_of(LONG_LINE, st.just("x = 1")), min_size=1, max_size=4))
    if draw(st.booleans()):
        return "\n".join("    " + ln for ln in lines)  # indented code
    return "```py\n" + "\n".join(lines) + "\n```"


LONG_ATOM = st.one_of(
    huge_cell_table(), long_items(), long_code_lines(), LONG_LINE.map(lambda t: "> " + t)
)


@st.composite
def long_atoms_doc(draw: st.DrawFn) -> str:
    blocks = draw(st.lists(st.one_of(LONG_ATOM, heading(), PARAGRAPH), min_size=1, max_size=6))
    return "\n\n".join(blocks)


BLOCK = st.one_of(
    heading(),
    PARAGRAPH,
    code(),
    table(),
    listing(),
    PARAGRAPH.map(lambda p: "> " + p),
    st.just("<div>\nhtml\n</div>"),
    st.just("---"),
    st.just("Setext\n===="),
)


@st.composite
def markdown_doc(draw: st.DrawFn) -> str:
    front = draw(st.sampled_from(["", "---\ntitle: Generated\n---\n"]))
    blocks = draw(st.lists(BLOCK, max_size=30))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return front + "\n\n".join(blocks).replace("\n", newline)


def normalized(src: str) -> str:
    """What the chunker indexes into: BOM dropped, newlines normalized."""
    return src.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


MDX_BLOCK = st.one_of(
    st.just("import X from './x'"),
    st.just("export const meta = {a: 1}"),
    st.just('<Tabs>\n  <Tab label="a">x</Tab>\n</Tabs>'),
    st.just("{props.value}"),
    st.just('<Callout type="warn">'),
)
HOSTILE_TEXT = st.one_of(
    st.text(max_size=2000),
    st.binary(max_size=2000).map(lambda b: b.decode("utf-8", "replace")),
    st.just(
        "\u200f\u05e9\u05dc\u05d5\u05dd \u4e2d\u6587 \U0001f468\u200d\U0001f469\u200d\U0001f467"
    ),
    st.just("\x00\x01\x02 nul"),
)


@st.composite
def fuzz_doc(draw: st.DrawFn) -> str:
    """Markdown/MDX mixtures with hostile text spliced between blocks."""
    parts = draw(st.lists(st.one_of(BLOCK, MDX_BLOCK, HOSTILE_TEXT, LONG_ATOM), max_size=40))
    sep = draw(st.sampled_from(["\n\n", "\n", "\r\n\r\n", "\r"]))
    return sep.join(parts)
