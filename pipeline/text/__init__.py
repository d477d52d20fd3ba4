"""Plain-text helpers that extractors and the parse stage share: line tables, code
fences, heading titles and heading lines, contents blocks and page furniture. They
depend on nothing else in Folio."""
