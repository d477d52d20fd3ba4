"""``folio config show``: the settings in force and where each came from."""

from __future__ import annotations

import argparse
import dataclasses
import os

from ..library import MODEL_ENV, Library, model_dir
from ..shared import config_files
from ..shared.config_files import ConfigFiles
from ..shared.home import folio_home
from .common import Commands, add_command, config_option, out, print_json
from .terminal import markup

_SIZES = ("section_target", "section_max", "snippet_target", "snippet_max")
_OVERLAPS = ("section_overlap", "snippet_overlap")


def _chunk(files: ConfigFiles) -> dict[str, tuple[object, str]]:
    config = config_files.load_config(None)
    shown: dict[str, tuple[object, str]] = {}
    for field in dataclasses.fields(config):
        setting = files.get("chunk", field.name)
        if setting is not None:
            origin = setting.origin
        elif field.name in _SIZES:
            origin = f"preset {config.preset}"
        elif field.name in _OVERLAPS:
            origin = f"preset {config.preset}, overlap {config.overlap}"
        else:
            origin = "default"
        shown[f"chunk.{field.name}"] = (getattr(config, field.name), origin)
    return shown


def _typesense(files: ConfigFiles) -> dict[str, tuple[object, str]]:
    settings = Library.settings(None)
    if os.environ.get("TYPESENSE_URL"):
        where: tuple[object, str] = (os.environ["TYPESENSE_URL"], "$TYPESENSE_URL")
    elif settings.nodes:
        setting = files.get("typesense", "url") or files.get("typesense", "nodes")
        where = (", ".join(n.url() for n in settings.nodes), setting.origin if setting else "")
    else:
        where = ("embedded server under the home", "default")
    key = "$TYPESENSE_API_KEY" if os.environ.get("TYPESENSE_API_KEY") else None
    shown = {"typesense.url": where}
    if settings.api_key:
        found = files.get("typesense", "api_key")
        shown["typesense.api_key"] = ("(set)", key or (found.origin if found else ""))
    for name in ("timeout_seconds", "retries", "retry_interval_seconds"):
        setting = files.get("typesense", name)
        shown[f"typesense.{name}"] = (
            getattr(settings, name),
            setting.origin if setting else "default",
        )
    return shown


def _dense(files: ConfigFiles) -> dict[str, tuple[object, str]]:
    setting = files.get("dense", "model")
    origin = (
        f"${MODEL_ENV}"
        if os.environ.get(MODEL_ENV)
        else setting.origin
        if setting
        else "default (the weights package)"
    )
    return {"dense.model": (str(model_dir() or ""), origin)}


def cmd_config(args: argparse.Namespace) -> int:
    """Show the settings in force and where each came from.

    Settings come from the user config directory's folio.yaml, then ./folio.yaml, then the
    file named by --config or $FOLIO_CONFIG (later wins), then environment variables and
    flags. `folio config show` prints every setting in force with its source (the chunk
    presets are small, medium and large).
    """
    files = config_files.read(None)
    home = "$FOLIO_HOME" if os.environ.get("FOLIO_HOME") else "default (user data directory)"
    shown: dict[str, tuple[object, str]] = {"home": (str(folio_home()), home)}
    shown |= _chunk(files) | _typesense(files) | _dense(files)
    if args.json:
        print_json(
            {
                "files": [str(f) for f in files.files],
                "settings": {k: {"value": v, "from": o} for k, (v, o) in shown.items()},
            }
        )
        return 0
    searched = [str(config_files.user_config_file()), f"./{config_files.FILE_NAME}"]
    read = ", ".join(str(f) for f in files.files) or "none"
    out.print(markup(f"config files read (later wins): {read}"), highlight=False)
    out.print(markup(f"looked for: {', '.join(searched)}, $FOLIO_CONFIG/--config"), highlight=False)
    width = max(len(k) for k in shown)
    for key, (value, origin) in shown.items():
        line = f"{key:<{width}}  {value!s:<12}  {origin}"
        out.print(markup(line), highlight=False, soft_wrap=True)
    return 0


def add_config(sub: Commands) -> None:
    p = add_command(sub, cmd_config, parents=[config_option()], json="settings and sources as JSON")
    p.add_argument("action", choices=("show",), help="show: print the settings in force")
