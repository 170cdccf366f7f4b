"""The README and docs/ cannot drift from the commands, the code, or each other.

- Every option and subcommand of app-run, app-new and app-convert, read from its ``--help``,
  is named in the command's docs page: a subcommand's options in its own section (the heading
  that names it, `` `app-run run` ``) or in the page's "Common options"; the top-level options
  in "Common options". A new option without docs fails with the option and the page.
- The exit codes in each page's table equal those of the command's ``--help`` epilog and of
  its module docstring.
- Every relative link of README.md and docs/ resolves to a file, and its #anchor to a heading.
- README.md stays a short guide (at most 220 lines) and names every dependency with a reason.
- Every APP_RUN_* variable the code reads and every config key is in docs/configuration.md;
  every module is in docs/layout.md.
- The examples in the docs run: the long pipeline.yaml passes `app-run check`, the plan file
  renders, verifies and passes --smoke, the host pause has the documented keys.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
BIN = Path(sys.executable).parent
VENDORED = {DOCS / "spec" / "APP-SPEC-v0.4.md", DOCS / "spec" / "APP-design-principles.md"}
UNIVERSAL = {"-h", "--help"}  # every command has them; not listed per command

# -- reading --help --------------------------------------------------------------------------


def app_run_help(*words: str) -> str:
    from skill2app.runtime.cli import app_run

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = app_run([*words, "--help"])
    assert code == 0, words
    return out.getvalue()


def typer_help(module: str) -> Callable[..., str]:
    def read(*words: str) -> str:
        from importlib import import_module

        from typer.testing import CliRunner

        result = CliRunner().invoke(import_module(module).cli, [*words, "--help"])
        assert result.exit_code == 0, (words, result.output)
        return result.stdout

    return read


PROGRAMS: dict[str, tuple[str, Callable[..., str]]] = {
    "app-run": ("app-run.md", app_run_help),
    "app-new": ("app-new.md", typer_help("skill2app.scaffold.cli")),
    "app-convert": ("app-convert.md", typer_help("skill2app.converter.cli")),
}
_OPTION_LINE = re.compile(r"^  (-\S.*?)(?: {2,}|$)", re.M)
_OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")
_COMMAND_LINE = re.compile(r"^ {2,4}([a-z][\w-]*)(?: {2,}|$)")


def help_options(text: str) -> set[str]:
    """Every option --help lists (hidden ones are not listed), without -h/--help."""
    found = {o for line in _OPTION_LINE.findall(text) for o in _OPTION.findall(line)}
    return found - UNIVERSAL


def help_commands(text: str) -> list[str]:
    """The subcommands a group's --help lists (argparse `commands:`, click `Commands:`)."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.lower() == "commands:"), None)
    if start is None:
        return []
    names = []
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        match = _COMMAND_LINE.match(line)
        if match:
            names.append(match.group(1))
    return names


def subcommands(program: str) -> list[str]:
    return help_commands(PROGRAMS[program][1]())


CASES = [(p, None) for p in PROGRAMS] + [(p, c) for p in PROGRAMS for c in subcommands(p)]


def introspected(program: str, command: str | None) -> set[str]:
    """The same options, read from the parser objects (to check the --help reading above)."""
    if program == "app-run":
        import argparse

        from skill2app.runtime.cli import build_parser

        parser = build_parser()
        if command is not None:
            [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
            parser = sub.choices[command]
        strings = {
            o
            for a in parser._actions
            if a.help != argparse.SUPPRESS and not isinstance(a, argparse._SubParsersAction)
            for o in a.option_strings
        }
        return strings - UNIVERSAL
    from importlib import import_module

    import typer

    module = "skill2app.scaffold.cli" if program == "app-new" else "skill2app.converter.cli"
    group = typer.main.get_command(import_module(module).cli)
    target = group.commands[command] if command else group
    return {
        o
        for p in target.params
        if p.param_type_name == "option" and not getattr(p, "hidden", False)
        for o in (*p.opts, *p.secondary_opts)
    } - UNIVERSAL


# -- reading the docs ------------------------------------------------------------------------


def page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def headings(text: str) -> list[tuple[int, int, str]]:
    """(line index, level, text) of every Markdown heading outside code blocks."""
    found, fenced = [], False
    for i, line in enumerate(text.splitlines()):
        if re.match(r"\s*```", line):
            fenced = not fenced
            continue
        match = re.match(r"(#{1,6}) +(.*?)\s*#*\s*$", line)
        if match and not fenced:
            found.append((i, len(match.group(1)), match.group(2)))
    return found


def section(text: str, title: Callable[[str], bool]) -> str | None:
    """The text under the first heading whose title passes, up to the next heading of its
    level or above."""
    lines = text.splitlines()
    marks = headings(text)
    for n, (index, level, heading) in enumerate(marks):
        if title(heading):
            end = next((i for i, lv, _ in marks[n + 1 :] if lv <= level), len(lines))
            return "\n".join(lines[index:end])
    return None


def command_section(text: str, program: str, command: str) -> str | None:
    return section(text, lambda h: f"`{program} {command}`" in h)


def common_options(text: str) -> str:
    found = section(text, lambda h: h == "Common options")
    assert found is not None, "the page has no '## Common options' section"
    return found


def mentions(text: str, option: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text) is not None


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for _, _, heading in headings(path.read_text(encoding="utf-8")):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


# -- options and subcommands -----------------------------------------------------------------


@pytest.mark.parametrize(("program", "command"), CASES, ids=lambda v: v or "-")
def test_every_option_is_in_the_commands_docs_page(program: str, command: str | None) -> None:
    name, read = PROGRAMS[program]
    text = page(name)
    where = "Common options"
    allowed = common_options(text)
    if command is not None:
        own = command_section(text, program, command)
        assert own is not None, (
            f"`{program} {command}` (from `{program} --help`) has no section in docs/{name}: "
            f"add a heading `{program} {command}` with its synopsis and options"
        )
        where = f"`{program} {command}` or Common options"
        allowed = own + "\n" + allowed
    words = (command,) if command else ()
    options = help_options(read(*words))
    missing = sorted(o for o in options if not mentions(allowed, o))
    assert not missing, (
        f"{program} {command or ''} --help lists {', '.join(missing)}, which docs/{name} does "
        f"not mention (section {where}): document each option there"
    )


@pytest.mark.parametrize(("program", "command"), CASES, ids=lambda v: v or "-")
def test_the_help_reading_finds_every_option(program: str, command: str | None) -> None:
    """The test above reads --help; here the parsers themselves say the same (non-hidden)."""
    words = (command,) if command else ()
    assert help_options(PROGRAMS[program][1](*words)) == introspected(program, command)


def test_every_program_has_subcommands_read_from_its_help() -> None:
    assert subcommands("app-run")[:2] == ["check", "list"]
    assert set(subcommands("app-new")) == {"app", "pipeline", "step", "constructor", "destructor"}
    assert {"convert", "resume", "abandon", "sessions"} <= set(subcommands("app-convert"))


def test_hidden_options_are_not_demanded() -> None:
    """The old spellings (-o/--output) are hidden: --help does not list them."""
    assert "--output" not in help_options(app_run_help("resume"))
    assert "--output" not in help_options(PROGRAMS["app-convert"][1]("convert"))


def test_a_missing_option_fails_naming_option_and_page(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check fails when an option's mention is removed from its docs page."""
    text = page("app-run.md")
    cut = re.sub(r"(?<![\w-])--older-than(?![\w-])", "--elder", text)
    assert cut != text
    monkeypatch.setattr(sys.modules[__name__], "page", lambda name: cut)
    with pytest.raises(AssertionError) as failure:
        test_every_option_is_in_the_commands_docs_page("app-run", "sessions")
    assert "--older-than" in str(failure.value) and "docs/app-run.md" in str(failure.value)


# -- exit codes ------------------------------------------------------------------------------

# Reported, not fixed by the docs change (runtime code): the app-run --help epilog leaves out
# 74, and runtime/cli/output.py's docstring lists only 0-5, 70, 130/143 and 141. When the
# source is fixed, the test fails until the code is taken out of these sets.
KNOWN_GAPS: dict[tuple[str, str], set[int]] = {}
DOCSTRINGS = {
    "app-run": "skill2app.runtime.cli.output",
    "app-new": "skill2app.scaffold.cli",
    "app-convert": "skill2app.converter.cli",
}


def table_codes(text: str) -> set[int]:
    """The codes of the first column of the page's '## Exit codes' table."""
    table = section(text, lambda h: h == "Exit codes")
    assert table is not None, "no '## Exit codes' section"
    rows = re.findall(r"^\| ([\d /]+) \|", table, re.M)
    return {int(code) for row in rows for code in row.split("/")}


def prose_codes(text: str) -> set[int]:
    """The codes listed after 'Exit codes:' in an epilog or docstring ('0 ok, 1 failed, …',
    '130/143 interrupted', one per line, or separated by ';' or '·')."""
    marker = list(re.finditer(r"exit codes[^:\n]*:", text, re.I))
    assert marker, "no 'Exit codes:' in the text"
    rest = text[marker[-1].end() :]
    found = re.findall(r"(?:^|[,;·]|\n)\s*(\d+(?:/\d+)*)\s+[A-Za-z(]", rest)
    return {int(code) for item in found for code in item.split("/")}


@pytest.mark.parametrize("program", list(PROGRAMS))
@pytest.mark.parametrize("source", ["help", "docstring"])
def test_exit_codes_match_the_help_and_the_docstring(program: str, source: str) -> None:
    from importlib import import_module

    name, read = PROGRAMS[program]
    documented = table_codes(page(name))
    text = read() if source == "help" else import_module(DOCSTRINGS[program]).__doc__ or ""
    listed = prose_codes(text)
    gap = KNOWN_GAPS.get((program, source), set())
    assert not gap & listed, f"{program} {source} now lists {gap & listed}: drop from KNOWN_GAPS"
    assert documented == listed | gap, (
        f"docs/{name} lists exit codes {sorted(documented)}, the {program} {source} "
        f"{sorted(listed)}"
    )


def test_subcommand_epilogs_agree_with_the_top_level_one() -> None:
    read = PROGRAMS["app-convert"][1]
    top = prose_codes(read())
    for command in ("convert", "resume"):
        assert prose_codes(read(command)) == top, command


def test_the_exit_code_readers_read_each_form() -> None:
    assert prose_codes("Exit codes: 0 done, 2 bad,\n  3 exists, 130/143 interrupted.") == {
        0,
        2,
        3,
        130,
        143,
    }
    assert table_codes("## Exit codes\n\n| code | x |\n|---|---|\n| 0 | ok |\n| 4 | no |\n") == {
        0,
        4,
    }


# -- links, length ---------------------------------------------------------------------------


def markdown_files() -> list[Path]:
    files = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]
    return [f for f in files if f not in VENDORED]


_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def links(path: Path) -> list[str]:
    found, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if re.match(r"\s*```", line):
            fenced = not fenced
        elif not fenced:
            found += _LINK.findall(re.sub(r"`[^`]*`", "", line))
    return found


def broken_links(path: Path) -> list[str]:
    broken = []
    for target in links(path):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        resolved = (path.parent / file).resolve() if file else path
        if not resolved.exists():
            broken.append(f"{target} (no {os.path.relpath(resolved, ROOT)})")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            broken.append(f"{target} (no heading #{anchor})")
    return broken


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(path: Path) -> None:
    assert broken_links(path) == [], path


def test_the_link_check_can_fail(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# Title `x`\n\n## Spec §3 — the file\n", encoding="utf-8")
    page_ = tmp_path / "b.md"
    page_.write_text(
        "[ok](a.md#title-x) [ok](a.md#spec-3--the-file) [gone](c.md) [bad](a.md#nope) "
        "`[code](c.md)` [web](https://example.com/x)\n",
        encoding="utf-8",
    )
    broken = broken_links(page_)
    assert [b.split(" ")[0] for b in broken] == ["c.md", "a.md#nope"]


def test_every_docs_page_is_linked_from_the_index() -> None:
    index = page("index.md")
    for path in DOCS.glob("*.md"):
        assert path.name == "index.md" or f"({path.name}" in index, path.name


def test_the_readme_is_a_short_guide() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 220, f"README.md has {len(lines)} lines: move reference text to docs/"


# -- dependencies, configuration, layout ------------------------------------------------------


def test_the_readme_names_every_dependency_with_its_reason() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = list(project["dependencies"])
    for extra, items in project["optional-dependencies"].items():
        requirements += [] if extra == "test" else items
    names = {re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0].lower() for r in requirements}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = section(readme, lambda h: h == "Dependencies") or ""
    rows = {
        row.split("|")[1].strip().lower(): row.split("|")[2].strip()
        for row in table.splitlines()
        if row.startswith("| ") and not row.startswith("| package")
    }
    for name in sorted(names):
        row = next(
            (
                why
                for package, why in rows.items()
                if re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])", package)
            ),
            "",
        )
        assert row, f"README.md's Dependencies table does not name {name} (pyproject.toml)"


def code_files() -> list[Path]:
    return sorted(
        p for top in ("runtime", "converter", "scaffold") for p in (ROOT / top).rglob("*.py")
    )


def test_every_environment_variable_is_documented() -> None:
    from skill2app.runtime.app.model import TIERS

    names: set[str] = set()
    for path in code_files():
        names |= set(re.findall(r"APP_RUN_[A-Z_]*[A-Z]", path.read_text(encoding="utf-8")))
    assert "APP_RUN_HOME" in names and "APP_RUN_MODEL" in names  # the reading works
    names -= {"APP_RUN_MODEL"}  # read as APP_RUN_MODEL_<TIER>
    names |= {f"APP_RUN_MODEL_{tier.upper()}" for tier in TIERS}
    configuration, app_run = page("configuration.md"), page("app-run.md")
    for name in sorted(names):
        where = app_run if name == "APP_RUN_ID" else configuration  # a step's, not the user's
        assert mentions(where, name), f"{name} is read by the code but not in the docs"


def test_every_config_key_is_documented() -> None:
    from skill2app.runtime.app.config import KEYS, OPENAI_KEYS

    text = page("configuration.md")
    for key in [*KEYS, *(f"openai.{k}" for k in OPENAI_KEYS)]:
        assert f"`{key}`" in text, f"config key {key} is not in docs/configuration.md"


def test_every_module_is_in_the_layout() -> None:
    text = page("layout.md")
    for path in code_files():
        name = path.parent.name if path.stem == "__init__" else path.stem
        if path.stem == "__main__":
            continue
        assert re.search(rf"(?<![\w]){name}(?![\w])", text), f"{path.relative_to(ROOT)}"


# -- the examples in the docs ----------------------------------------------------------------


def block(text: str, after: str, language: str) -> str:
    found = re.search(rf"```{language}\n(.*?)\n\s*```", text.split(after, 1)[1], re.S)
    assert found, f"no {language} block after {after!r}"
    return found.group(1)


def test_the_pipeline_yaml_example_passes_check(tmp_path: Path) -> None:
    from helpers import invoke, write_tree

    app = tmp_path / "app"
    write_tree(
        app,
        {
            "SKILL.md": "# app\n",
            "pipelines/triage/pipeline.yaml": block(
                page("pipeline-yaml.md"), "## An example", "yaml"
            ),
            "pipelines/triage/steps/facts.py": "print('{\"output\": 1}')\n",
            "pipelines/triage/steps/validate_label.py": "print('{\"valid\": true}')\n",
            "pipelines/triage/schemas/label.json": '{"type": "object"}\n',
        },
    )
    result = invoke("check", app)
    assert result.exit_code == 0, result.stderr
    assert "0 errors, 0 warnings" in result.stderr


def test_the_plan_file_example_renders_and_passes_smoke(tmp_path: Path) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(block(page("app-convert.md"), "## The plan file", "yaml") + "\n")
    done = subprocess.run(
        [
            str(BIN / "app-convert"),
            str(ROOT / "examples" / "skills" / "csv-report"),
            "--plan",
            str(plan),
            "--out",
            str(tmp_path / "app"),
            "--smoke",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "ANTHROPIC_API_KEY": ""},
    )
    assert done.returncode == 0, done.stderr
    assert "Smoke test: 3 of 3 steps passed" in done.stderr


def test_the_host_pause_has_the_documented_keys(tmp_path: Path) -> None:
    documented = set(
        re.findall(r'"(\w+)":', block(page("app-convert.md"), "## The host analyst's", ""))
    )
    done = subprocess.run(
        [
            str(BIN / "app-convert"),
            str(ROOT / "examples" / "skills" / "csv-report"),
            "--analyzer",
            "host",
            "--out",
            str(tmp_path / "app"),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 6, done.stderr
    assert set(json.loads(done.stdout)) == documented
