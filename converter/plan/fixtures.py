"""Small real files for sample inputs: a one-page PDF, a tiny xlsx and docx, a PNG, a CSV,
a text, JSON, Markdown and HTML file.

Written by code with the standard library only, byte for byte the same on every run (zip
entries carry a fixed date), so a converted APP's samples are reproducible and a golden test
can compare them.  ``fixture_for(".pdf")`` gives the bytes of the file for a suffix, or None
when there is no fixture of that type.
"""

from __future__ import annotations

import io
import struct
import zipfile
import zlib
from collections.abc import Callable

TEXT = "Sample text for a converted pipeline.\nA second line.\n"
_ZIP_DATE = (2024, 1, 1, 0, 0, 0)


def pdf() -> bytes:
    """A one-page PDF (US Letter) with one line of text, cross-reference offsets exact."""
    stream = b"BT /F1 24 Tf 72 700 Td (Sample PDF page) Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.write(b"".join(b"%010d 00000 n \n" % offset for offset in offsets))
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\n" % (len(objects) + 1))
    out.write(b"startxref\n%d\n%%%%EOF\n" % xref)
    return out.getvalue()


def _zip(entries: dict[str, str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in entries.items():
            info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, text.encode("utf-8"))
    return out.getvalue()


_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="{target}"/></Relationships>'
)


def xlsx() -> bytes:
    """A workbook of one sheet: a header row (name, value) and two rows of numbers."""
    main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    rows = [("name", "value"), ("alpha", 1), ("beta", 2)]
    cells = []
    for r, row in enumerate(rows, start=1):
        values = []
        for c, value in enumerate(row):
            ref = f"{'AB'[c]}{r}"
            if isinstance(value, str):
                values.append(f'<c r="{ref}" t="inlineStr"><is><t>{value}</t></is></c>')
            else:
                values.append(f'<c r="{ref}"><v>{value}</v></c>')
        cells.append(f'<row r="{r}">{"".join(values)}</row>')
    return _zip(
        {
            "[Content_Types].xml": (
                '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
                'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
                '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxml'
                'formats-officedocument.spreadsheetml.sheet.main+xml"/>'
                '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.'
                'openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>'
            ),
            "_rels/.rels": _RELS.format(target="xl/workbook.xml"),
            "xl/workbook.xml": (
                f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook '
                f'xmlns="{main}" xmlns:r="{rel}"><sheets><sheet name="Sheet1" sheetId="1" '
                f'r:id="rId1"/></sheets></workbook>'
            ),
            "xl/_rels/workbook.xml.rels": (
                '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
                'relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.'
                'org/officeDocument/2006/relationships/worksheet" Target="worksheets/'
                'sheet1.xml"/></Relationships>'
            ),
            "xl/worksheets/sheet1.xml": (
                f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet '
                f'xmlns="{main}"><sheetData>{"".join(cells)}</sheetData></worksheet>'
            ),
        }
    )


def docx() -> bytes:
    """A Word document of one paragraph."""
    main = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
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
                f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document '
                f'xmlns:w="{main}"><w:body><w:p><w:r><w:t>Sample document paragraph.</w:t>'
                f"</w:r></w:p></w:body></w:document>"
            ),
        }
    )


def png() -> bytes:
    """An 8 x 8 RGB image in two colours."""
    width = height = 8
    rows = b"".join(
        b"\x00" + b"".join(b"\x33\x66\x99" if (x + y) % 2 else b"\xff\xff\xff" for x in range(8))
        for y in range(height)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, 9))
        + chunk(b"IEND", b"")
    )


def _text(content: str) -> Callable[[], bytes]:
    return lambda: content.encode("utf-8")


FIXTURES: dict[str, Callable[[], bytes]] = {
    ".pdf": pdf,
    ".xlsx": xlsx,
    ".docx": docx,
    ".png": png,
    ".csv": _text("name,value\nalpha,1\nbeta,2\n"),
    ".tsv": _text("name\tvalue\nalpha\t1\nbeta\t2\n"),
    ".txt": _text(TEXT),
    ".log": _text("2024-01-01 10:00:00 INFO started\n2024-01-01 10:00:01 INFO done\n"),
    ".json": _text('{"name": "sample", "items": [1, 2]}\n'),
    ".md": _text("# Sample\n\nA sample Markdown file.\n"),
    ".html": _text("<!doctype html>\n<title>Sample</title>\n<p>Sample page.</p>\n"),
    ".xml": _text('<?xml version="1.0"?>\n<sample><item>1</item></sample>\n'),
    ".yaml": _text("name: sample\nitems: [1, 2]\n"),
}
ALIASES = {".xls": ".xlsx", ".xlsm": ".xlsx", ".jpg": ".png", ".jpeg": ".png", ".yml": ".yaml",
           ".markdown": ".md", ".htm": ".html", ".text": ".txt"}  # fmt: skip


def fixture_for(suffix: str) -> tuple[str, bytes] | None:
    """(the suffix the fixture is written with, its bytes) for a file suffix; None when
    there is no fixture of that type (``.jpg`` gets a PNG: most readers take either)."""
    suffix = ALIASES.get(suffix.lower(), suffix.lower())
    make = FIXTURES.get(suffix)
    return (suffix, make()) if make is not None else None
