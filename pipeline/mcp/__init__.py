"""``folio mcp``: search and retrieval for agents over MCP, one of the four ways in over
``pipeline.Library``. ``server`` builds and runs it, ``tools`` are the calls on the
``Library``, ``schema`` what they take and give. Imports of ``mcp.*`` in here are the MCP
SDK (imports are absolute), never this package."""
