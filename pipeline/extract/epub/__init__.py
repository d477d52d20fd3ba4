"""EPUB: the spine read in order, headings placed from the navigation document."""
