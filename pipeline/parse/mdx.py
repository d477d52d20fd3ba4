"""MDX block rules for markdown-it: JSX tag lines and ``{expression}`` blocks.

MDX reads what lies between JSX tags as markdown, so a tag line is a block of its own and
the children around it go through CommonMark as usual: a fence indented inside
``<Tabs>`` is a fence, blank lines inside it included, and its ``# comment`` lines are
code. (CommonMark's HTML block would end at the first blank line and read the rest of the
fence as markdown.) MDX has no indented code, so that rule is off and fences and headings
are found at any indentation, as MDX finds them.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock

_JSX_START = re.compile(r"<(?:/?[A-Za-z][\w.:-]*|/?>)")
_TAGS_ONLY = re.compile(r"(?:<[^<>]*>\s*)+")
_QUOTES = "\"'`"


def use_mdx(md: MarkdownIt) -> None:
    """Install the MDX block rules on ``md`` (before CommonMark's HTML block)."""
    md.disable("code")
    md.block.ruler.before("html_block", "mdx_jsx", _jsx_block, {"alt": ["paragraph"]})
    md.block.ruler.before("html_block", "mdx_expression", _expression_block)


def _line(state: StateBlock, line: int) -> str:
    return state.src[state.bMarks[line] + state.tShift[line] : state.eMarks[line]]


def _jsx_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Consecutive lines that start with a JSX tag (a tag may run over several lines)."""
    first = _line(state, start)
    if not _JSX_START.match(first):
        return False
    if silent:  # asked whether it ends a paragraph: only a line of nothing but tags does
        return _TAGS_ONLY.fullmatch(first) is not None
    in_tag = False
    line = start
    while line < end:
        text = _line(state, line)
        if line > start and (not text.strip() or (not in_tag and not _JSX_START.match(text))):
            break
        in_tag = _ends_inside_tag(text, in_tag)
        line += 1
    _push(state, start, line)
    return True


def _ends_inside_tag(text: str, in_tag: bool) -> bool:
    """Whether a tag is still open at the end of ``text`` (quotes and braces respected)."""
    quote = ""
    depth = 0
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif not in_tag:
            in_tag = ch == "<"
        elif ch in _QUOTES:
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        elif ch == ">" and depth == 0:
            in_tag = False
    return in_tag


def _expression_block(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """A ``{…}`` expression (a JSX comment ``{/* … */}`` among them) that may hold blank
    lines; the line its closing brace is on must end there."""
    if not _line(state, start).startswith("{"):
        return False
    scan = _BraceScan()
    line = start
    while line < end:
        rest = scan.feed(_line(state, line))
        line += 1
        if rest is not None:
            if rest.strip():
                return False
            if not silent:
                _push(state, start, line)
            return True
    return False


class _BraceScan:
    """Brace depth through JavaScript strings and comments, line by line."""

    def __init__(self) -> None:
        self.depth = 0
        self.quote = ""
        self.comment = False

    def feed(self, text: str) -> str | None:
        """The text after the brace closing the expression, or None while it is open."""
        i = 0
        while i < len(text):
            ch, two = text[i], text[i : i + 2]
            if self.comment:
                if two == "*/":
                    self.comment = False
                    i += 1
            elif self.quote:
                if ch == "\\":
                    i += 1
                elif ch == self.quote:
                    self.quote = ""
            elif two == "/*":
                self.comment = True
                i += 1
            elif two == "//":
                break
            elif ch in _QUOTES:
                self.quote = ch
            elif ch == "{":
                self.depth += 1
            elif ch == "}":
                self.depth -= 1
                if self.depth == 0:
                    return text[i + 1 :]
            i += 1
        if self.quote != "`":
            self.quote = ""  # only template literals run over lines
        return None


def _push(state: StateBlock, start: int, end: int) -> None:
    token = state.push("html_block", "", 0)
    token.map = [start, end]
    token.content = state.getLines(start, end, state.blkIndent, True)
    state.line = end
