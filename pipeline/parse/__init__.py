"""The parse stage (``parse.document.parse``): markdown blocks, headings, titles, boilerplate."""
