"""Small real sample files app-convert can create beside a pipeline's samples.

A plan's sample input may name ``samples/<name>`` for one of ``FIXTURES``; rendering then
writes that file into the pipeline's ``samples/`` folder, so the smoke run and ``app-run test``
have real data of the right kind: a one-page PDF, a fillable PDF form, a CSV, a tiny Excel
workbook, a Word document, a PNG, a text and a JSON file.  Every file is made by code here,
without third-party packages, byte for byte the same on every run (golden files compare them).
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
import zlib
from collections.abc import Callable
from typing import Any

ZIP_TIME = (2020, 1, 1, 0, 0, 0)


def one_page_pdf() -> bytes:
    """A one-page Letter PDF with a title and two lines of text (Helvetica)."""
    text = (
        "BT /F1 18 Tf 72 720 Td (Sample document) Tj ET\n"
        "BT /F1 11 Tf 72 690 Td (This one-page PDF was made by app-convert for smoke runs.) Tj "
        "ET\nBT /F1 11 Tf 72 672 Td (Invoice 42: 3 items, total 120.50 EUR.) Tj ET\n"
    )
    return _pdf(
        [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
            "/Resources << /Font << /F1 5 0 R >> >> >>",
            _stream(text),
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            "<< /Title (Sample document) /Author (app-convert) /Subject (Smoke runs) "
            "/Creator (app-convert fixtures) >>",
        ],
        info=6,
    )


def form_pdf() -> bytes:
    """A one-page fillable PDF form: text fields ``name`` and ``email``, checkbox ``agree``
    (checked value ``/Yes``)."""
    labels = (
        "BT /F1 12 Tf 72 720 Td (Name:) Tj ET\nBT /F1 12 Tf 72 690 Td (E-mail:) Tj ET\n"
        "BT /F1 12 Tf 100 660 Td (I agree to the terms) Tj ET\n"
    )
    return _pdf(
        [
            "<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [6 0 R 7 0 R 8 0 R] "
            "/DA (/Helv 0 Tf 0 g) /DR << /Font << /Helv 5 0 R >> >> >> >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
            "/Resources << /Font << /F1 5 0 R >> >> /Annots [6 0 R 7 0 R 8 0 R] >>",
            _stream(labels),
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
            "<< /Type /Annot /Subtype /Widget /FT /Tx /T (name) /Rect [130 712 400 732] "
            "/P 3 0 R /F 4 /DA (/Helv 12 Tf 0 g) /V () >>",
            "<< /Type /Annot /Subtype /Widget /FT /Tx /T (email) /Rect [130 682 400 702] "
            "/P 3 0 R /F 4 /DA (/Helv 12 Tf 0 g) /V () >>",
            "<< /Type /Annot /Subtype /Widget /FT /Btn /T (agree) /Rect [72 656 90 674] "
            "/P 3 0 R /F 4 /V /Off /AS /Off /MK << /CA (4) >> "
            "/AP << /N << /Yes 9 0 R /Off 10 0 R >> >> >>",
            _stream("0 0 1 rg 2 2 14 14 re f\n", "/Type /XObject /Subtype /Form /BBox [0 0 18 18]"),
            _stream("", "/Type /XObject /Subtype /Form /BBox [0 0 18 18]"),
        ]
    )


def _stream(content: str, extra: str = "") -> str:
    head = f"<< {extra} /Length {len(content.encode('latin-1'))} >>" if extra else None
    head = head or f"<< /Length {len(content.encode('latin-1'))} >>"
    return f"{head}\nstream\n{content}endstream"


def _pdf(objects: list[str], info: int = 0) -> bytes:
    """A PDF file of ``objects`` (object i+1 is objects[i]) with a correct xref table;
    ``info``: the number of the document information object (title, author), if any."""
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1"))
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for offset in offsets:
        out.write(f"{offset:010d} 00000 n \n".encode())
    extra = f" /Info {info} 0 R" if info else ""
    trailer = (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R{extra} >>\nstartxref\n{xref}\n%%EOF\n"
    )
    out.write(trailer.encode())
    return out.getvalue()


def table_csv() -> bytes:
    rows = ["region,product,units,price", "EU,widget,12,2.50", "EU,gadget,3,9.90",
            "US,widget,7,2.75", "APAC,gizmo,5,4.00"]  # fmt: skip
    return ("\n".join(rows) + "\n").encode()


def text_txt() -> bytes:
    lines = [
        "Meeting notes, 3 June",
        "",
        "The team agreed to ship the export feature on Friday.",
        "Ada will write the release notes; Bo will update the docs.",
        "Open question: do we support CSV files over 1 GB?",
    ]
    return ("\n".join(lines) + "\n").encode()


def data_json() -> bytes:
    data = {"user": {"name": "Ada", "email": "ada@example.com"}, "items": [1, 2, 3]}
    return (json.dumps(data, indent=2) + "\n").encode()


def image_png() -> bytes:
    """A 16x16 RGB PNG: a blue square on white."""
    width = height = 16
    raw = b""
    for y in range(height):
        row = b"\x00"  # filter: none
        for x in range(width):
            inside = 4 <= x < 12 and 4 <= y < 12
            row += b"\x20\x60\xe0" if inside else b"\xff\xff\xff"
        raw += row

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def _zip(files: dict[str, str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, text in files.items():
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, text)
    return out.getvalue()


_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="{target}"/></Relationships>'
)


def table_xlsx() -> bytes:
    """A workbook with one sheet, ``Sales``: a header row and four rows of numbers, and a
    total formula."""
    rows: list[list[str | float]] = [["region", "units", "price"], ["EU", 12, 2.5],
                                     ["EU", 3, 9.9], ["US", 7, 2.75], ["APAC", 5, 4]]  # fmt: skip
    cells = []
    for r, row in enumerate(rows, start=1):
        parts = []
        for c, value in enumerate(row):
            ref = f"{'ABC'[c]}{r}"
            if isinstance(value, str):
                parts.append(f'<c r="{ref}" t="inlineStr"><is><t>{value}</t></is></c>')
            else:
                parts.append(f'<c r="{ref}"><v>{value}</v></c>')
        cells.append(f'<row r="{r}">{"".join(parts)}</row>')
    cells.append('<row r="6"><c r="A6" t="inlineStr"><is><t>total</t></is></c>'
                 '<c r="B6"><f>SUM(B2:B5)</f><v>27</v></c></row>')  # fmt: skip
    ns = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
    rel_ns = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
    office = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    return _zip(
        {
            "[Content_Types].xml": (
                '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
                'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
                '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxml'
                'formats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/'
                'worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-office'
                'document.spreadsheetml.worksheet+xml"/></Types>'
            ),
            "_rels/.rels": _RELS.format(target="xl/workbook.xml"),
            "xl/workbook.xml": (
                f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook {ns} '
                f'{rel_ns}><sheets><sheet name="Sales" sheetId="1" r:id="rId1"/></sheets>'
                "</workbook>"
            ),
            "xl/_rels/workbook.xml.rels": (
                '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships '
                'xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                f'<Relationship Id="rId1" Type="{office}/worksheet" '
                'Target="worksheets/sheet1.xml"/></Relationships>'
            ),
            "xl/worksheets/sheet1.xml": (
                f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet {ns}>'
                f"<sheetData>{''.join(cells)}</sheetData></worksheet>"
            ),
        }
    )


def document_docx() -> bytes:
    """A Word document: a heading and two paragraphs."""
    w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    paragraphs = [
        ("Heading1", "Project update"),
        ("", "The export feature ships on Friday."),
        ("", "Ada writes the release notes; Bo updates the documentation."),
    ]
    body = "".join(
        "<w:p>"
        + (f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else "")
        + f"<w:r><w:t>{text}</w:t></w:r></w:p>"
        for style, text in paragraphs
    )
    return _zip(
        {
            "[Content_Types].xml": (
                '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
                'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
                '<Override PartName="/word/document.xml" ContentType="application/vnd.openxml'
                'formats-officedocument.wordprocessingml.document.main+xml"/></Types>'
            ),
            "_rels/.rels": _RELS.format(target="word/document.xml"),
            "word/document.xml": (
                f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document {w}>'
                f"<w:body>{body}</w:body></w:document>"
            ),
        }
    )


FIXTURES: dict[str, Callable[[], bytes]] = {
    "one-page.pdf": one_page_pdf,
    "form.pdf": form_pdf,
    "table.csv": table_csv,
    "table.xlsx": table_xlsx,
    "document.docx": document_docx,
    "image.png": image_png,
    "text.txt": text_txt,
    "data.json": data_json,
}
PREFIX = "samples/"


def with_fixtures(
    sample: dict[str, Any], pipeline: str, own: set[str] | frozenset[str] = frozenset()
) -> tuple[dict[str, Any], list[str]]:
    """``sample`` with every ``samples/<fixture>`` value (or ``samples/<name>`` of one of the
    plan's ``own`` sample files) made relative to the APP (``pipelines/<pipeline>/samples/…``:
    samples are read from the APP folder, by the smoke run and by ``app-run test``), and the
    fixtures it names, in order, once each (own files are not listed)."""
    names: list[str] = []
    folders = {"/".join(n.split("/")[:i]) for n in own for i in range(1, n.count("/") + 1)}

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, str) and value.rstrip("/") in ("samples", "samples/."):
            return f"pipelines/{pipeline}/samples"  # the samples folder itself
        name = value[len(PREFIX) :] if isinstance(value, str) and value.startswith(PREFIX) else ""
        if name and (name in own or name.rstrip("/") in folders):
            return f"pipelines/{pipeline}/{PREFIX}{name.rstrip('/')}"
        if name in FIXTURES:
            if name not in names:
                names.append(name)
            return f"pipelines/{pipeline}/{PREFIX}{name}"
        return value

    return walk(sample), names


# -- by file type: what the heuristic's samples use for a file input with no real example -----


def _text(content: str) -> Callable[[], bytes]:
    return lambda: content.encode("utf-8")


BY_SUFFIX: dict[str, Callable[[], bytes]] = {
    ".pdf": one_page_pdf,
    ".xlsx": table_xlsx,
    ".docx": document_docx,
    ".png": image_png,
    ".csv": table_csv,
    ".txt": text_txt,
    ".json": data_json,
    ".tsv": _text("name\tvalue\nalpha\t1\nbeta\t2\n"),
    ".log": _text("2024-01-01 10:00:00 INFO started\n2024-01-01 10:00:01 INFO done\n"),
    ".md": _text("# Sample\n\nA sample Markdown file.\n"),
    ".html": _text("<!doctype html>\n<title>Sample</title>\n<p>Sample page.</p>\n"),
    ".xml": _text('<?xml version="1.0"?>\n<sample><item>1</item></sample>\n'),
    ".yaml": _text("name: sample\nitems: [1, 2]\n"),
    ".jsonl": _text('{"name": "alpha", "value": 1}\n{"name": "beta", "value": 2}\n'),
    ".toml": _text('name = "sample"\nitems = [1, 2]\n'),
    ".sql": _text("SELECT 1 AS value;\n"),
    ".svg": _text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16">'
        '<rect width="16" height="16" fill="#36c"/></svg>\n'
    ),
    ".nw": _text("((A:0.1,B:0.2):0.3,(C:0.3,D:0.4):0.5);\n"),  # a Newick tree
    ".mmd": _text("graph TD\n  A[Start] --> B[Done]\n"),  # a Mermaid diagram
    ".drawio": _text(
        '<mxfile><diagram name="Page-1"><mxGraphModel><root><mxCell id="0"/>'
        '<mxCell id="1" parent="0"/></root></mxGraphModel></diagram></mxfile>\n'
    ),
    ".srt": _text("1\n00:00:00,000 --> 00:00:01,000\nHello.\n"),
    ".vtt": _text("WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nHello.\n"),
}
ALIASES = {".xls": ".xlsx", ".xlsm": ".xlsx", ".jpg": ".png", ".jpeg": ".png", ".yml": ".yaml",
           ".markdown": ".md", ".htm": ".html", ".text": ".txt", ".ndjson": ".jsonl",
           ".newick": ".nw", ".nwk": ".nw", ".mermaid": ".mmd"}  # fmt: skip


def fixture_for(suffix: str) -> tuple[str, bytes] | None:
    """(the suffix the fixture is written with, its bytes) for a file suffix; None when
    there is no fixture of that type (``.jpg`` gets a PNG: most readers take either)."""
    suffix = ALIASES.get(suffix.lower(), suffix.lower())
    make = BY_SUFFIX.get(suffix)
    return (suffix, make()) if make is not None else None
