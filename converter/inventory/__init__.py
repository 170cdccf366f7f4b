"""Stage 1 of app-convert, the inventory: every fact about a skill before any plan.  The
``skill`` (SKILL.md: frontmatter, sections; ``markdown``), its ``programs`` and how SKILL.md
runs them (``invocations``, ``shell``), what they need (``requirements``, ``packages``);
``model`` gathers them into one ``Inventory``."""
