"""Sample fixtures: real files of each kind, made by code, the same bytes on every run, and
written beside a pipeline's samples when its sample input names them."""

from __future__ import annotations

import io
import re
import struct
import zipfile
import zlib
from xml.etree import ElementTree

import pytest

from skill2app.converter.plan.fixtures import FIXTURES, with_fixtures


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_a_fixture_is_the_same_bytes_every_time(name: str) -> None:
    assert FIXTURES[name]() == FIXTURES[name]()


@pytest.mark.parametrize("name", ["one-page.pdf", "form.pdf"])
def test_a_pdf_fixture_has_a_correct_xref_table(name: str) -> None:
    data = FIXTURES[name]()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    start = int(re.search(rb"startxref\n(\d+)", data).group(1))  # type: ignore[union-attr]
    table = data[start:].split(b"trailer")[0].splitlines()[3:]
    for number, entry in enumerate(table, start=1):
        offset = int(entry.split()[0])
        assert data[offset:].startswith(f"{number} 0 obj".encode()), (name, number)


def test_the_form_has_two_text_fields_and_a_checkbox() -> None:
    data = FIXTURES["form.pdf"]().decode("latin-1")
    assert re.findall(r"/FT /(\w+) /T \((\w+)\)", data) == [
        ("Tx", "name"), ("Tx", "email"), ("Btn", "agree")
    ]  # fmt: skip
    assert "/AcroForm << /Fields [6 0 R 7 0 R 8 0 R]" in data


@pytest.mark.parametrize("name", ["table.xlsx", "document.docx"])
def test_an_office_fixture_is_a_zip_of_well_formed_xml(name: str) -> None:
    with zipfile.ZipFile(io.BytesIO(FIXTURES[name]())) as archive:
        assert "[Content_Types].xml" in archive.namelist()
        for member in archive.namelist():
            ElementTree.fromstring(archive.read(member))


def test_the_png_decodes() -> None:
    data = FIXTURES["image.png"]()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    size = struct.unpack(">I", data[33:37])[0]
    pixels = zlib.decompress(data[41 : 41 + size])
    assert (width, height, len(pixels)) == (16, 16, 16 * (1 + 16 * 3))


def test_sample_values_naming_fixtures_point_into_the_pipeline() -> None:
    sample = {"files": ["samples/one-page.pdf", "samples/one-page.pdf"], "form": "samples/form.pdf",
              "other": "samples/unknown.pdf", "n": 3}  # fmt: skip
    got, names = with_fixtures(sample, "merge")
    assert names == ["one-page.pdf", "form.pdf"]
    assert got == {
        "files": ["pipelines/merge/samples/one-page.pdf"] * 2,
        "form": "pipelines/merge/samples/form.pdf",
        "other": "samples/unknown.pdf",
        "n": 3,
    }


def test_the_plans_own_files_and_folders_are_pointed_to_in_the_app() -> None:
    own = {"worklog.txt", "demo-skill/SKILL.md", "demo-skill/scripts/run.py"}
    sample = {"log": "samples/worklog.txt", "skill": "samples/demo-skill", "all": "samples/.",
              "deep": "samples/demo-skill/scripts/", "nope": "samples/other"}  # fmt: skip
    got, names = with_fixtures(sample, "review", own)
    assert names == []
    assert got == {
        "log": "pipelines/review/samples/worklog.txt",
        "skill": "pipelines/review/samples/demo-skill",
        "all": "pipelines/review/samples",
        "deep": "pipelines/review/samples/demo-skill/scripts",
        "nope": "samples/other",
    }
