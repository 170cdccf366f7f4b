"""runtime/app/bounds.py: the one test of "inside the APP" that references, schema $refs,
agent programs and recorded fixtures share (three copies of it before, each a little
different: one resolved the root, one did not, one raised on a link loop)."""

from __future__ import annotations

import os
from pathlib import Path

from skill2app.runtime.app.bounds import inside


def test_inside_follows_links_and_dots(tmp_path: Path) -> None:
    app, other = tmp_path / "app", tmp_path / "app2"
    (app / "samples").mkdir(parents=True)
    other.mkdir()
    (other / "secret.txt").write_text("x", encoding="utf-8")
    (app / "samples" / "in.txt").write_text("x", encoding="utf-8")
    os.symlink(other / "secret.txt", app / "samples" / "out.txt")
    os.symlink(app / "samples" / "in.txt", app / "alias.txt")
    assert inside(app, app)
    assert inside(app / "samples" / "in.txt", app)
    assert inside(app / "alias.txt", app)  # a link that stays in
    assert inside(app / "not-yet-written.json", app)  # a file to be written
    assert not inside(app / "samples" / "out.txt", app)  # a link out
    assert not inside(app / ".." / "app2" / "secret.txt", app)  # a sibling sharing a prefix
    assert not inside(other, app)


def test_a_link_loop_is_no_error(tmp_path: Path) -> None:
    app = tmp_path / "app"
    app.mkdir()
    os.symlink(app / "b", app / "a")
    os.symlink(app / "a", app / "b")
    assert inside(app / "a", app)  # realpath stops inside the loop's own folder


def test_a_root_given_through_a_link_is_the_same_root(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / "pipelines").mkdir(parents=True)
    os.symlink(real, tmp_path / "via")
    assert inside(tmp_path / "via" / "pipelines", real)
    assert inside(real / "pipelines", tmp_path / "via")


def test_a_schema_ref_into_a_link_loop_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    """Review of this change: `Path.resolve()` raised RuntimeError on a link loop in the
    places that say where a link leads; they follow links as `inside` does."""
    from skill2app.runtime.app.references import ref_problems

    app = tmp_path / "app"
    (app / "schemas").mkdir(parents=True)
    os.symlink(tmp_path / "b", tmp_path / "a")
    os.symlink(tmp_path / "a", tmp_path / "b")
    os.symlink(tmp_path / "a", app / "schemas" / "out.json")  # out of the APP, into a loop
    os.symlink(app / "schemas" / "y.json", app / "schemas" / "x.json")  # a loop inside it
    os.symlink(app / "schemas" / "x.json", app / "schemas" / "y.json")
    schema = {"properties": {"a": {"$ref": "out.json"}, "b": {"$ref": "x.json"}}}
    problems = ref_problems(schema, app / "schemas" / "main.json", app)
    assert problems[0].startswith("schema $ref 'out.json' is outside the APP: a symlink takes it")
    assert problems[1] == "schema $ref 'x.json': file not found"


def test_a_session_whose_app_is_a_link_loop_is_unbound_not_a_crash(tmp_path: Path) -> None:
    """The twin of the loops above (a second read): a session naming an APP folder that is a
    link loop made `binding` raise RuntimeError from Path.resolve."""
    from skill2app.runtime.host.session import binding

    os.symlink(tmp_path / "y", tmp_path / "x")
    os.symlink(tmp_path / "x", tmp_path / "y")
    data = {"session": "s1", "pipeline": "p", "app": str(tmp_path / "x")}
    (tmp_path / "home").mkdir()
    assert len(binding(tmp_path / "home", data)) == 64
