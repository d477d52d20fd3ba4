"""Parsing stages: markdown blocks, flat-text headings, boilerplate."""
