"""Stage 4 of app-convert: the written APP verified (``verify``: app-run check, compiling,
argument mappings, smoke runs) and the ``report`` of the whole conversion."""
