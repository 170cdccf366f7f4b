"""app-run: the standalone Pipeline Runner for APPs (Agent Pipeline Protocol v0.4).

Data flows through nouns: APP folder -> ``app`` (loaded model) -> ``check`` -> ``runner``
(steps, lifecycle) -> ``record`` (run record).  ``cli`` is the only module that prints.
"""

__version__ = "0.1.0"
