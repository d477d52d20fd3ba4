"""PDF: the text layer (PDFium or pypdf, or marker when installed), laid out into lines,
headings from the outline, fonts or text, tables and statements, page boilerplate removed."""
