"""What every ``folio`` command shares: the two consoles (stdout is data, stderr is
progress and logs), the library, JSON output, and the help format."""

from __future__ import annotations

import argparse
import inspect
import json
import logging
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, is_dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from rich.console import Console

from ..shared.home import folio_home, secure_home
from ..shared.inputs import quoted
from ..shared.logs import NameTheFile, Once, line
from ..shared.pathtext import stored
from .terminal import markup

if TYPE_CHECKING:
    from ..library import Library

err = Console(stderr=True)
out = Console()


def open_library(args: argparse.Namespace) -> Library:
    from ..library import Library  # chunk, extract and outline never load Typesense's client

    secure_home(folio_home())  # a home made by an older Folio is tightened here
    return Library.open(config=getattr(args, "config", None))


def print_json(value: Any) -> None:
    data = asdict(value) if is_dataclass(value) and not isinstance(value, type) else value
    # One write: ``json.dump`` writes piece by piece (a report's 7,600 paths, 15,000 writes).
    sys.stdout.write(json.dumps(_utf8(data), ensure_ascii=False) + "\n")


def _utf8(value: Any) -> Any:
    """``value`` with every string valid UTF-8: a file name that is not (its bytes read
    as lone surrogates) in the reversible quoted form of ``pathtext.stored``, so that
    ``--json`` never writes invalid UTF-8."""
    if isinstance(value, str):
        return stored(value)
    if isinstance(value, dict):
        return {_utf8(k): _utf8(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_utf8(v) for v in value]
    return value


Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"  # folio's subparsers


def add_command(
    sub: Commands,
    func: Callable[[argparse.Namespace], int],
    *,
    parents: Sequence[argparse.ArgumentParser] = (),
    json: str | None = None,
) -> argparse.ArgumentParser:
    """The subcommand ``func`` runs (``cmd_NAME`` gives ``folio NAME``): the first line
    of its docstring is its line in ``folio --help``, the rest its own help; ``json``:
    the help of its ``--json`` flag, when it has one."""
    summary, _, description = inspect.cleandoc(func.__doc__ or "").partition("\n\n")
    name = func.__name__.removeprefix("cmd_")
    p = sub.add_parser(
        name,
        parents=list(parents),
        help=summary[:1].lower() + summary[1:].rstrip("."),
        description=" ".join(description.split()),
    )
    if json is not None:
        p.add_argument("--json", action="store_true", help=json)
    p.set_defaults(func=func)
    return p


def config_option() -> argparse.ArgumentParser:
    """A parent parser with ``--config``."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument(
        "--config",
        metavar="FILE",
        default=None,
        help="YAML config (chunk:, typesense: and dense: sections) read after the user "
        "config directory's folio.yaml and ./folio.yaml (default $FOLIO_CONFIG)",
    )
    return parent


class ConsoleLog(logging.Handler):
    """Log lines on the stderr console, so that they print above a live progress bar
    instead of through it: one line each, naming its file, each said once."""

    def __init__(self, level: int = logging.NOTSET) -> None:
        super().__init__(level)
        self.addFilter(NameTheFile())
        self.addFilter(Once())

    def emit(self, record: logging.LogRecord) -> None:
        text = " ".join(line(record, record.getMessage()).split())
        err.print(f"folio: {markup(text)}", highlight=False, soft_wrap=True)


def at_least(least: int, kind: type[float] | type[int]) -> Callable[[str], float | int]:
    """An argparse type: a number of ``kind``, ``least`` or more (0 switches a limit off)."""

    def parse(raw: str) -> float | int:
        try:
            value = kind(raw)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {quoted(raw)}") from None
        if value < least:
            meaning = " (no limit)" if least == 0 else ""
            raise argparse.ArgumentTypeError(f"must be {least}{meaning} or more, not {raw}")
        return value

    return parse


class DefaultsShown(argparse.HelpFormatter):
    """Help that names each option's default (flags and unset options have none)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if action.default in (None, False, argparse.SUPPRESS) or "default" in text:
            return text
        return f"{text} (default: %(default)s)"
