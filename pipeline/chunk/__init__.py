"""Chunking stages: tokens, split, pack, tiers, hints."""
