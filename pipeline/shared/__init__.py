"""The layer every stage and every surface may use, and which imports none of them:
chunking settings (``config``) and config files (``config_files``), resource limits
(``limits``), the home folder (``home``), log context (``logs``), input checks
(``inputs``) and file names as text (``pathtext``). The records and errors they pass
around are ``pipeline.model`` and ``pipeline.errors``."""
