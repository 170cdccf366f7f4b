"""Shared fixtures.  Every test gets its own APP_RUN_HOME, so run records never leak out."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

from skill2app.converter.analyzers.caller import AGENT_VARIABLES

# Variables that change what app-run does; a developer's shell must not change a test.
APP_RUN_VARIABLES = (
    "APP_RUN_CONFIG",
    "APP_RUN_PROVIDER",
    "APP_RUN_ANSWERS",
    "APP_RUN_ROUTING",
    "APP_RUN_MODEL_LITE",
    "APP_RUN_MODEL_STANDARD",
    "APP_RUN_MODEL_REASONING",
)


@pytest.fixture(scope="session")
def encoder_copy(tmp_path_factory: pytest.TempPathFactory) -> Path | None:
    """One plain copy of the embedded router's sentence encoder for the whole run, which each
    test's APP_RUN_HOME links to: every home that routed wrote its own (80 MB each, some 10 GB
    a run).  None when the encoder package is not installed."""
    from skill2app.runtime.errors import AppRunError
    from skill2app.runtime.routing.models.sentence import SentenceEncoder, model_stamp

    try:
        stamp = model_stamp()
    except AppRunError:
        return None
    shared = tmp_path_factory.mktemp("models")
    SentenceEncoder(shared)  # writes shared/<stamp>, the copy app-run keeps in its cache
    return shared / stamp if (shared / stamp).is_dir() else None


@pytest.fixture(autouse=True)
def app_run_home(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    encoder_copy: Path | None,
) -> Path:
    """APP_RUN_HOME (run records), XDG_CONFIG_HOME (user config) and TMPDIR in fresh temporary
    dirs; the home's encoder copy is the run's shared one."""
    home = tmp_path_factory.mktemp("app-run-home")
    if encoder_copy is not None:
        models = home / "cache" / "models"
        models.mkdir(parents=True, mode=0o700)
        (models / encoder_copy.name).symlink_to(encoder_copy, target_is_directory=True)
    monkeypatch.setenv("APP_RUN_HOME", str(home))
    # run folders (APP_WORK_DIR) of runs a test leaves paused or kills go with the test's files
    scratch = str(tmp_path_factory.mktemp("tmp"))
    monkeypatch.setenv("TMPDIR", scratch)
    monkeypatch.setattr(tempfile, "tempdir", scratch)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg-config")))
    for name in APP_RUN_VARIABLES + AGENT_VARIABLES:  # an agent running the tests too
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def runtime_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """For tests that run pipelines: no Anthropic key, `python3` is this interpreter (fast, no
    pyenv shim), and APP_TEST_MARKERS is a directory the fixture steps write markers into."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    bindir = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", bindir + os.pathsep + os.environ.get("PATH", ""))
    markers = tmp_path / "markers"
    markers.mkdir()
    monkeypatch.setenv("APP_TEST_MARKERS", str(markers))
    return markers


@pytest.fixture
def need_sandbox() -> None:
    """Tests of what runs in bubblewrap: skipped where it is missing, failed in CI."""
    from skill2app.runtime.run import sandbox

    if sandbox.available():
        return
    if os.environ.get("CI"):
        pytest.fail("CI must test the sandbox for real: .ci/run installs bubblewrap")
    pytest.skip("no bubblewrap here (apt-get install bubblewrap)")
