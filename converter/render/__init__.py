"""Stage 3 of app-convert: the plan rendered into files (``render``: templates, ``literals``,
validate ``rules``), what ``--force`` would replace (``survey``), and the files written
(``write``)."""
