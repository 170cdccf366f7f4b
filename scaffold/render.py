"""Rendered text: every file app-new writes comes from templates/new/ through this module.

Template names mirror what they produce: ``new/step/code.py.j2`` renders a Python code step,
``new/lifecycle/_constructor/pipeline.yaml.j2`` renders ``pipelines/_constructor/pipeline.yaml``.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skill2app.scaffold import files

if TYPE_CHECKING:
    import jinja2


@functools.cache
def _environment() -> jinja2.Environment:
    from skill2app.templates import environment

    return environment()


def render(template: str, **context: Any) -> str:
    """The text of ``template`` (a name under templates/) rendered with ``context``."""
    return _environment().get_template(template).render(**context)


def file(path: Path, template: str, *, executable: bool = False, **context: Any) -> files.Change:
    """A ``Change`` that writes ``template`` rendered with ``context`` to ``path``."""
    text = render(template, **context)
    return files.new_file(path, text, template=template, executable=executable)
