"""Stage 2 of app-convert, the plan: pipelines to create, for a person or an LLM to review.
The ``model``, its ``file`` format (JSON Schema in ``schemas/``, YAML out and in), its
``check`` against the skill, and ``samples`` (inputs and recorded answers)."""
