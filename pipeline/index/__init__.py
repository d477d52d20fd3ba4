"""Typesense: settings, the embedded server, collection schemas and the store."""
