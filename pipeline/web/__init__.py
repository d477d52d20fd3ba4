"""``folio serve``: a local web reader over the library (search-only key)."""
