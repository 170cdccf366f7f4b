"""Shell completion for app-run: commands, options, APP folders, pipeline names
(``app-run run APP <TAB>``) and paused sessions (``app-run resume <TAB>``).

The shell calls app-run with ``_ARGCOMPLETE`` set; only then is argcomplete imported
(``complete_if_asked``), so a normal start pays nothing. ``--install-completion [SHELL]``
writes the shell's script where app-new's and app-convert's (typer's) go, and
``--show-completion [SHELL]`` prints it.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

SHELLS = ("bash", "zsh", "fish")
FLAGS = ("--install-completion", "--show-completion")  # app-run's options that take a word
PROGRAM = "app-run"


def complete_if_asked(
    parser: argparse.ArgumentParser,
    *,
    output: Any = None,
    exit_method: Callable[[int], Any] = os._exit,
) -> None:
    """Answer the shell's completion request and exit, if this run is one."""
    if "_ARGCOMPLETE" not in os.environ:
        return
    import argcomplete

    argcomplete.autocomplete(
        parser, always_complete_options=False, output_stream=output, exit_method=exit_method
    )


# --- what a positional completes to ----------------------------------------------------------


def complete_folders(action: argparse.Action) -> argparse.Action:
    """APP_DIR: folders."""
    action.completer = _folders  # type: ignore[attr-defined]
    return action


def complete_pipelines(action: argparse.Action) -> argparse.Action:
    """PIPELINE: the business pipelines of the APP given before it (or of the current folder)."""
    action.completer = _pipelines  # type: ignore[attr-defined]
    return action


def complete_sessions(action: argparse.Action) -> argparse.Action:
    """SESSION: the paused sessions."""
    action.completer = _sessions  # type: ignore[attr-defined]
    return action


def _folders(prefix: str, **_: Any) -> list[str]:
    head, _sep, start = prefix.rpartition("/")
    base = Path(head or ".") if head or not prefix.startswith("/") else Path("/")
    try:
        names = sorted(p.name for p in base.iterdir() if p.is_dir() and p.name.startswith(start))
    except OSError:
        return []
    return [f"{head}/{name}/" if head else f"{name}/" for name in names if not name[0] == "."]


def _pipelines(prefix: str, parsed_args: argparse.Namespace, **_: Any) -> list[str]:
    app_dir = getattr(parsed_args, "app_dir", None) or Path(".")
    folder = Path(app_dir) / "pipelines"
    try:
        found = [p.parent.name for p in folder.glob("*/pipeline.yaml")]
    except OSError:
        return []
    return sorted(n for n in found if n.startswith(prefix) and not n.startswith(("_", ".")))


def _sessions(prefix: str, **_: Any) -> list[str]:
    from skill2app.runtime.app.config import state_home
    from skill2app.runtime.host.session import list_sessions

    try:
        rows = list_sessions(state_home())
    except Exception:  # noqa: BLE001 - a completion offers nothing rather than fail
        return []
    return [
        r["session"] for r in rows if r["status"] == "paused" and r["session"].startswith(prefix)
    ]


# --- installing it ---------------------------------------------------------------------------


def add_options(parser: argparse.ArgumentParser) -> None:
    """``--install-completion [SHELL]`` and ``--show-completion [SHELL]``, as typer's."""
    how = f"SHELL: {' | '.join(SHELLS)}."
    for flag, action, text in (
        (
            "--install-completion",
            _Install,
            "Install completion for SHELL (default: yours).",
        ),
        ("--show-completion", _Show, "Print the completion script for SHELL, to customise it."),
    ):
        parser.add_argument(
            flag, action=action, nargs="?", choices=SHELLS, metavar="SHELL", help=f"{text} {how}"
        )


def script(shell: str) -> str:
    import argcomplete

    return str(argcomplete.shellcode([PROGRAM], shell=shell))


def install(shell: str, home: Path) -> Path:
    """Write the script where typer writes app-new's (and hook it into the shell's rc file
    once); the file written."""
    if shell == "bash":
        path = home / ".bash_completions" / f"{PROGRAM}.sh"
        _add_line(home / ".bashrc", f"source '{path}'")
    elif shell == "zsh":
        path = home / ".zfunc" / f"_{PROGRAM}"
        _add_line(home / ".zshrc", "fpath+=~/.zfunc; autoload -Uz compinit; compinit")
    else:
        path = home / ".config" / "fish" / "completions" / f"{PROGRAM}.fish"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(script(shell), encoding="utf-8")
    return path


def _add_line(rc: Path, line: str) -> None:
    text = rc.read_text(encoding="utf-8") if rc.is_file() else ""
    if line not in text:
        rc.write_text(f"{text.rstrip()}\n{line}\n".lstrip("\n"), encoding="utf-8")


def detect_shell() -> str | None:
    """The shell app-run runs in: shellingham (typer's dependency) or else $SHELL."""
    try:
        import shellingham

        name = str(shellingham.detect_shell()[0])
    except Exception:  # noqa: BLE001 - not installed, or not told: $SHELL then
        name = Path(os.environ.get("SHELL", "")).name
    return name if name in SHELLS else None


def _shell(parser: argparse.ArgumentParser, given: str | None) -> str:
    shell = given or detect_shell()
    if shell is None:
        parser.error(f"cannot tell your shell: name it ({' | '.join(SHELLS)})")
    return str(shell)


class _Show(argparse.Action):
    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        from skill2app.runtime.cli.output import out

        out(script(_shell(parser, values)), end="")
        parser.exit(0)


class _Install(argparse.Action):
    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        from skill2app.runtime.cli.output import EXIT_IO, say

        shell = _shell(parser, values)
        try:
            path = install(shell, Path.home())
        except OSError as exc:
            say([f"Error: cannot install the completion: {exc} — use --show-completion instead"])
            parser.exit(EXIT_IO)
        say([f"{shell} completion installed in {path}", "Restart your shell to use it."])
        parser.exit(0)
