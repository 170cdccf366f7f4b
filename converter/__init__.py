"""app-convert: an Agent Skill in, an APP out (APP spec section 7).

The data flows through the stage subpackages: skill folder -> ``inventory`` (the facts) ->
``analyzers`` (heuristic, llm, host: a plan) -> ``plan`` (model, file, check) -> ``render``
(files, written) -> ``verify`` (check, smoke, report).  ``convert`` ties them together,
``cli`` is the command, ``errors`` every error it raises on purpose.
"""
