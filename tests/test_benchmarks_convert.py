"""benchmarks/convert: the corpus lists a set by the `set:` key alone and extracts skills from
a mirror; the inventory figures count what the expectation files say."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from helpers import write_tree

HERE = Path(__file__).resolve().parents[1] / "benchmarks" / "convert"


def load(name: str) -> ModuleType:
    sys.path.insert(0, str(HERE))
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def corpus() -> ModuleType:
    return load("corpus")


def mirror(root: Path) -> str:
    """A git repository holding one skill at skills/demo; its commit."""
    repo = root / "owner+repo" / "repo"
    write_tree(repo, {"skills/demo/SKILL.md": "---\nname: demo\ndescription: d\n---\n"})
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git[:3], "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "skill"], check=True)
    done = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_a_set_is_listed_by_its_key_and_extracted_from_the_mirror(
    corpus: ModuleType, tmp_path: Path
) -> None:
    commit = mirror(tmp_path / "mirrors")
    expectations = tmp_path / "expectations"
    write_tree(
        expectations,
        {
            "c/demo.yaml": f"skill: demo\nsource: owner/repo@{commit}:skills/demo\nset: dev\n",
            "c/held.yaml": f"skill: held\nsource: owner/repo@{commit}:skills/demo\nset: test\n",
        },
    )
    dev = corpus.expectations(("dev",), root=expectations)
    assert [(e.id, e.set, e.path) for e in dev] == [("c/demo", "dev", "skills/demo")]
    folder = corpus.extract(dev[0], tmp_path / "out", mirrors=tmp_path / "mirrors")
    assert (folder / "SKILL.md").read_text().startswith("---\nname: demo")
    again = corpus.extract(dev[0], tmp_path / "out", mirrors=tmp_path / "mirrors")  # --keep
    assert again == folder and not (folder / "demo").exists()  # replaced, never nested
    with pytest.raises(corpus.CorpusError, match="no mirror"):
        corpus.extract(dev[0], tmp_path / "out2", mirrors=tmp_path / "nowhere")
    write_tree(expectations, {"c/bad.yaml": "skill: bad\nset: dev\n"})
    with pytest.raises(corpus.CorpusError, match="source"):
        corpus.expectations(("dev",), root=expectations)


def test_the_figures_count_what_the_expectation_says(corpus: ModuleType) -> None:
    bench = load("inventory")
    expected = {
        "requirements": {"binaries": ["gh"], "python_packages": ["PyYAML"]},
        "not_requirements": [{"name": "helpers"}, {"name": "gtimeout"}],
    }
    checks = [
        {"kind": "binary", "name": "gh", "required": True},
        {"kind": "python-package", "name": "yaml", "required": True},  # PyYAML, as imported
        {"kind": "python-package", "name": "helpers", "required": True},
        {"kind": "binary", "name": "gtimeout", "required": False},
        {"kind": "env", "name": "TOKEN", "required": True},
    ]
    figures = bench.requirement_figures(checks, expected)
    assert figures["false_blocking"] == ["python-package:helpers"]
    assert figures["false_warning"] == ["binary:gtimeout"]
    assert figures["unexpected_blocking"] == ["env:TOKEN"]
    assert (figures["found"], figures["expected"]) == (2, 2)
    assert bench._type_ok({"type": "path"}, "string")
    assert bench._type_ok({"type": "boolean", "boolean": True}, "boolean")
    assert not bench._type_ok({"type": "boolean", "boolean": False}, "boolean")  # takes a value
    assert bench._type_ok({"type": "integer"}, "array")  # repeatable (action=append)
