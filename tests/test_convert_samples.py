"""app-convert on real skills: samples that run.

`{"file_pdf": "example"}` made every smoke run fail for reasons that say nothing about the
pipeline.  A file input now gets a small real file of its type beside the samples, and what
is still a placeholder is named in samples/placeholders.json and in the report.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from helpers import invoke, write_tree

from skill2app.converter.convert import Options, convert
from skill2app.converter.plan.fixtures import FIXTURES, fixture_for, image_png, one_page_pdf
from skill2app.converter.plan.model import Arg, CodeStep, Input, Pipeline
from skill2app.converter.plan.samples import pipeline_samples

HEAD = "---\nname: demo\ndescription: Reads documents.\n---\n# Demo\n\n"


def test_fixtures_are_real_and_the_same_every_time() -> None:
    for suffix, make in FIXTURES.items():
        assert make() == make(), suffix
    document = one_page_pdf()
    assert document.startswith(b"%PDF-1.4") and document.rstrip().endswith(b"%%EOF")
    xref = int(document.rsplit(b"startxref\n", 1)[1].split()[0])
    assert document[xref:].startswith(b"xref")  # the offsets are exact
    assert image_png().startswith(b"\x89PNG\r\n\x1a\n")
    for suffix, part in ((".xlsx", "xl/worksheets/sheet1.xml"), (".docx", "word/document.xml")):
        found = fixture_for(suffix)
        assert found is not None
        with zipfile.ZipFile(io.BytesIO(found[1])) as archive:
            assert archive.testzip() is None and part in archive.namelist()
    assert fixture_for(".jpeg") == (".png", image_png())
    assert fixture_for(".doc") is None


def test_text_fixtures_are_what_their_suffix_says() -> None:
    """Round 50's corpus: .nw, .drawio, .mmd inputs were placeholders; each text fixture
    now parses as its format."""
    import tomllib
    import xml.etree.ElementTree as ElementTree

    def text(suffix: str) -> str:
        found = fixture_for(suffix)
        assert found is not None, suffix
        return found[1].decode("utf-8")

    assert [json.loads(line)["name"] for line in text(".ndjson").splitlines()] == ["alpha", "beta"]
    assert tomllib.loads(text(".toml"))["items"] == [1, 2]
    for suffix in (".svg", ".drawio", ".xml"):
        ElementTree.fromstring(text(suffix))
    tree = text(".newick").strip()
    assert tree.endswith(";") and tree.count("(") == tree.count(")") == 3
    assert text(".mermaid").startswith("graph TD")
    assert text(".vtt").startswith("WEBVTT") and "-->" in text(".srt")


def pipeline(*inputs: Input) -> Pipeline:
    args = [Arg(ref=f"input.{i.name}") for i in inputs]
    return Pipeline("read", "Read", ["read it"], list(inputs), [CodeStep("read", "x.py", args)])


def test_a_file_input_gets_a_fixture_and_the_rest_a_placeholder_note() -> None:
    samples = pipeline_samples(
        pipeline(
            Input("file_pdf", "string", True),  # <file.pdf>: no example
            Input("image", "string", True, "e.g. photo.png"),  # a name the skill lacks
            Input("data", "string", True, "e.g. assets/sample.csv"),  # the skill ships it
            Input("legacy", "string", True, "e.g. old.doc"),  # no fixture for .doc
            Input("out", "string", True, "e.g. out.pdf"),  # written, not read
            Input("since", "string", True, "e.g. v1.4.0"),  # a version, not a file
            Input("name", "string", True),  # nothing to go by
        ),
        ["assets/sample.csv"],
    )
    assert samples.inputs == {
        "file_pdf": "pipelines/read/samples/file_pdf.pdf",
        "image": "pipelines/read/samples/photo.png",
        "data": "assets/sample.csv",
        "legacy": "old.doc",
        "out": "out.pdf",
        "since": "v1.4.0",
        "name": "example",
    }
    assert sorted(samples.files) == [
        "pipelines/read/samples/file_pdf.pdf",
        "pipelines/read/samples/photo.png",
    ]
    assert samples.files["pipelines/read/samples/file_pdf.pdf"] == one_page_pdf()
    assert set(samples.placeholders) == {"legacy", "name"}
    assert ".doc" in samples.placeholders["legacy"]


def test_a_shipped_sample_file_is_the_one_named_like_the_input() -> None:
    """shift-planner (round 14's judge): `--roster roster.csv --requirements requirements.csv`
    both got assets/sample_requirements.csv, the first CSV the skill ships; the run failed on
    a missing column."""
    samples = pipeline_samples(
        pipeline(
            Input("roster", "string", True, "e.g. roster.csv"),
            Input("requirements", "string", True, "e.g. requirements.csv"),
            Input("calendar", "string", True, "e.g. dates.csv"),  # no file named like it
        ),
        ["assets/sample_requirements.csv", "assets/sample_roster.csv", "docs/sample.csv"],
    )
    assert samples.inputs == {
        "roster": "assets/sample_roster.csv",
        "requirements": "assets/sample_requirements.csv",
        "calendar": "assets/sample_requirements.csv",
    }


def test_a_programs_own_default_path_is_no_placeholder() -> None:
    """prompt-engineer-toolkit: `--store` defaults to `.prompt_versions.jsonl`, a history the
    program appends to; four pipelines were reported as placeholders for want of a sample
    .jsonl file."""
    samples = pipeline_samples(
        pipeline(Input("store", "string", False, "history file", default=".versions.jsonl")),
        [],
    )
    assert samples.inputs == {"store": ".versions.jsonl"} and not samples.placeholders


def test_a_required_list_with_no_example_is_a_placeholder_not_an_empty_list() -> None:
    """i18n-expert (round 26): `--locale` is `nargs="+"` and required; the sample `[]` made
    the program stop with "the following arguments are required: --locale", counted as a
    smoke failure of the pipeline."""
    samples = pipeline_samples(
        pipeline(
            Input("locale", "array", True, "locale files"),
            Input("ext", "array", False, "extensions"),
        ),
        [],
    )
    assert samples.inputs == {"locale": ["example"]}
    assert list(samples.placeholders) == ["locale"]


def test_an_input_only_an_llm_step_reads_is_no_placeholder() -> None:
    from skill2app.converter.plan.model import LlmStep

    text = Input("text", "string", True)
    llm_only = Pipeline("w", "Write", ["write"], [text], [LlmStep("w", "{{input.text}}")])
    assert pipeline_samples(llm_only, []).placeholders == {}


@pytest.mark.parametrize("smoke", [True])
def test_a_converted_pipeline_runs_on_its_fixture(tmp_path: Path, smoke: bool) -> None:
    """The smoke run reads the generated PDF; a placeholder input is listed in the report
    and in samples/placeholders.json."""
    write_tree(
        tmp_path / "skill",
        {
            "SKILL.md": HEAD
            + "## Count pages\n\n```bash\npython3 scripts/pages.py <file.pdf>\n```\n\n"
            "## Convert\n\n```bash\npython3 scripts/legacy.py report.doc\n```\n",
            "scripts/pages.py": (
                "import sys\ndata = open(sys.argv[1], 'rb').read()\n"
                "assert data.startswith(b'%PDF')\nprint(data.count(b'/Type /Page '))\n"
            ),
            "scripts/legacy.py": "import sys\nopen(sys.argv[1], 'rb')\n",
        },
    )
    report = convert(
        Options(tmp_path / "skill", out=tmp_path / "app", analyzer="heuristic", smoke=smoke)
    )
    app = tmp_path / "app" / "pipelines"
    sample = json.loads((app / "pages/samples/input.json").read_text())
    assert (tmp_path / "app" / next(iter(sample.values()))).read_bytes() == one_page_pdf()
    assert not (app / "pages/samples/placeholders.json").exists()
    marked = json.loads((app / "legacy/samples/placeholders.json").read_text())
    assert list(marked["inputs"]) == list(
        json.loads((app / "legacy/samples/input.json").read_text())
    )
    assert list(report.placeholders) == ["legacy"]
    assert report.to_dict()["placeholders"] == {"legacy": marked["inputs"]}
    assert report.verification is not None
    smoke_status = {s.pipeline: s.status for s in report.verification.smoke}
    assert smoke_status["pages"] == "passed"
    lines = report.human_lines()
    assert "Placeholder samples (samples/placeholders.json) (1):" in lines


def test_the_report_lists_no_placeholder_for_a_sample_the_plan_gives(tmp_path: Path) -> None:
    """An analyst's own sample is written as it is (no placeholders.json): the report said its
    inputs were placeholders all the same ("no example of city in the skill")."""
    from skill2app.converter.inventory.model import build_inventory
    from skill2app.converter.plan.model import Plan, Sample
    from skill2app.converter.verify.report import Report

    skill = write_tree(tmp_path / "demo", {"SKILL.md": HEAD})
    derived = pipeline(Input("city", "string", True))
    given = pipeline(Input("city", "string", True))
    given.name, given.sample = "given", Sample(input={"city": "东莞"})
    plan = Plan("demo", "Demo", pipelines=[derived, given])
    report = Report.from_plan(plan, build_inventory(skill), skill=str(skill), mode="out")
    assert list(report.placeholders) == ["read"]


def test_what_a_file_is_is_no_file_and_the_note_reads_well() -> None:
    """`document_type` (a kind of document, "ringi") was taken for a file to read, and the
    note said "no sample a file for ..." (`file_name` is a file, though: see below)."""
    samples = pipeline_samples(
        pipeline(
            Input("document_type", "string", True),
            Input("config_path", "string", True),
        ),
        [],
    )
    assert samples.inputs["document_type"] == "example"
    assert samples.placeholders["document_type"].startswith("no example of document_type")
    assert samples.placeholders["config_path"] == (
        "no sample file for config_path: put the path of a real one here"
    )
    # a name whose last word says it is an id or a link (feishu-drive's `file_token`) is no
    # file: its note asked for "the path of a real one"
    samples = pipeline_samples(
        pipeline(Input("file_token", "string", True), Input("pdf_url", "string", True)), []
    )
    for name in ("file_token", "pdf_url"):
        assert samples.placeholders[name].startswith(f"no example of {name} in the skill")


def test_a_folder_to_read_gets_a_small_project() -> None:
    """codebase-onboarding (round 17): "Path to project directory" had a placeholder sample,
    so neither the smoke run nor `app-run test` ran the analyzer.  A folder that holds
    something else (baoyu-comic's `comic_dir` of page images, round 18) got that project
    too, and its own test failed: a folder of images gets images, any other a placeholder."""
    samples = pipeline_samples(
        pipeline(
            Input("path", "string", True, "Path to project directory"),
            Input("repo_dir", "string", True, "e.g. <repo>"),
            Input("out_dir", "string", True, "Folder to write to"),
            Input("assets", "string", True, "e.g. assets/"),
            Input("images_dir", "string", True, "Folder of page images"),
            Input("comic_dir", "string", True),  # holding what? a placeholder still
        ),
        ["assets/logo.png"],
    )
    assert sorted(n for n in samples.files if "/images_dir/" in n) == [
        "pipelines/read/samples/images_dir/01.png",
        "pipelines/read/samples/images_dir/02.png",
    ]
    assert "comic_dir" in samples.placeholders
    assert samples.inputs["path"] == "pipelines/read/samples/path"
    assert samples.inputs["repo_dir"] == "pipelines/read/samples/repo_dir"
    assert "pipelines/read/samples/path/README.md" in samples.files
    assert "pipelines/read/samples/path/src/main.py" in samples.files
    assert samples.inputs["out_dir"] != "pipelines/read/samples/out_dir"  # written, not read
    assert samples.inputs["assets"] == "assets/"  # the skill ships it
    assert not {"path", "repo_dir"} & set(samples.placeholders)


def test_a_file_in_a_project_is_no_folder_and_a_file_name_is_a_file() -> None:
    """A reviewer's second read: `config_path` ("Path to the project config file") got a
    folder, so the smoke run failed with IsADirectoryError; `file_name` (e.g. report.pdf)
    was taken for what a file is, not a file."""
    samples = pipeline_samples(
        pipeline(
            Input("config_path", "string", True, "Path to the project config file"),
            Input("file_name", "string", True, "PDF file to summarize (e.g. report.pdf)"),
        ),
        [],
    )
    assert samples.inputs["config_path"] == "example"
    assert samples.inputs["file_name"] == "pipelines/read/samples/report.pdf"


def test_an_installer_pipeline_has_no_sample_to_run(tmp_path: Path) -> None:
    """querying-markdown (a newcomer's trial): the heuristic made install-mq.sh a pipeline,
    and `app-run test` ran it for real (it downloads mq into /usr/local/bin, with sudo if it
    must).  Its sample is marked not to run, with the reason, which app-run test shows."""
    skill = tmp_path / "skill"
    write_tree(
        skill,
        {
            "SKILL.md": "---\nname: qmd\ndescription: Query Markdown with mq.\n---\n# qmd\n\n"
            "## Install\n\n```bash\nbash scripts/install-mq.sh\n```\n",
            "scripts/install-mq.sh": "#!/usr/bin/env bash\n# Idempotent installer for `mq`.\n"
            'touch "$HOME/installed-for-real"\n',
        },
    )
    report = convert(Options(skill, out=tmp_path / "app", analyzer="heuristic"))
    assert report.ok, report.human_lines()
    (pipeline,) = (tmp_path / "app" / "pipelines").glob("install*")
    why = json.loads((pipeline / "samples" / "placeholders.json").read_text())["why"]
    assert why.startswith("scripts/install-mq.sh installs mq on this machine")
    result = invoke("test", tmp_path / "app")
    assert "installs mq on this machine" in result.stdout
    assert not (Path.home() / "installed-for-real").exists()
