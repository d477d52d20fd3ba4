"""The ``folio`` command line, one of the four ways in over ``pipeline.Library`` (with
``mcp``, ``web`` and ``integrations``). ``folio`` is the parser, ``main`` and the offline commands
(chunk, extract, outline); ``index`` and ``read`` hold the library's commands, ``config``
shows the settings in force, ``serve`` starts the web reader; ``common`` and ``terminal``
are their shared console, options and text."""

from .folio import main

__all__ = ["main"]
