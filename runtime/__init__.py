"""app-run: the standalone Pipeline Runner for APPs (Agent Pipeline Protocol v0.4).

Data flows through the stage subpackages: APP folder -> ``app`` (loaded, checked) ->
``routing`` (request -> pipeline, inputs) -> ``run`` (lifecycle, steps) -> ``host`` (paused
sessions, Skill mode) -> ``records`` (results, run records).  ``ask`` orchestrates a request
through them; ``providers`` answer llm steps; ``cli`` is the only package that prints.

``__version__`` is the one version of the distribution (pyproject.toml reads it).
"""

__version__ = "0.2.0"
