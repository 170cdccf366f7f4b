"""The programs the method pipeline writes (``method.py``): its written steps.

``reader``: reads the files the request is about, for the model (``guide_reader``: the
skill's own guides a step names, from the APP folder): a regular file's text up to
``READ_BYTES`` (a PDF's through pypdf or pdftotext, an Office document's words from its XML,
at most four times that unpacked; other binary files are not read), a folder's first 500 file
names breadth first (hidden folders and links not followed); one unreadable entry is reported,
never stops the others.

``saver``: saves the files the model answers with under the folder the user names (the
working folder by default), links resolved: never outside it, never over a file that exists
unless asked to, never a path twice; what it keeps back is in its output with the reason and
the content.
"""

from __future__ import annotations

import re
from typing import Any

from skill2app.converter.plan.model import CodeStep, Input, Written

READ_BYTES = 200_000  # of each file, for the prompt
# "write a failing test", "生成页面": the skill makes files, which the model writes.
MAKES_FILES = re.compile(
    r"\b(?:write|create|generate|produce|draft|save|build|make|add)s?\b[^.\n]{0,60}?"
    r"\b(?:files?|tests?|pages?|documents?|reports?|html|markdown|notes|scripts?|changelog|"
    r"diagrams?|specs?)\b|(?:生成|写入|保存|创建|编写|写)[^。\n]{0,20}?(?:文件|页面|网页|报告|文档|测试)|"
    r"(?:作成|生成|保存|書き)[^。\n]{0,20}?(?:ファイル|ページ|レポート|テスト|文書)",
    re.I,
)
_PATH_PATTERN = r"^(?![/\\])(?![A-Za-z]:)(?!.*(?:^|[/\\])\.\.(?:[/\\]|$)).+$"
FILES_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "summary": {"type": "string", "minLength": 1},
        "files": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "path": {"type": "string", "minLength": 1, "pattern": _PATH_PATTERN},
                    "content": {"type": "string"},
                },
                "required": ["path", "content"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["summary", "files"],
    "additionalProperties": False,
}
ANSWER = {
    "en": "Answer with `summary`: what you did and found, for the user, and `files`: each file "
    "you make or change, its path relative to the working folder and its whole content (an "
    "empty list when the request needs no file).",
    "zh": "回答 `summary`（给用户的说明：做了什么、发现了什么）和 `files`：你生成或修改的每个文件，"
    "路径相对于工作目录，附完整内容（请求不需要文件时为空列表）。",
}
_READ = r"""import json
import os
import re
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

LIMIT = @LIMIT@


def as_text(path, head):
    # The text of a file: a PDF's or an Office document's words, else the file decoded;
    # None for any other binary file.
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        try:
            from pypdf import PdfReader

            return "\n".join(page.extract_text() or "" for page in PdfReader(str(path)).pages)
        except Exception:
            pass
        try:
            done = subprocess.run(
                ["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True,
                timeout=60,
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout if done.returncode == 0 else None
    if suffix in (".docx", ".pptx", ".xlsx"):
        wanted = ("word/document", "ppt/slides/slide", "xl/sharedStrings")
        chunks, size = [], 0
        try:
            with zipfile.ZipFile(path) as archive:
                for part in sorted(n for n in archive.namelist() if n.startswith(wanted)):
                    with archive.open(part) as member:  # never more than 4 * LIMIT unpacked
                        chunk = member.read(4 * LIMIT - size)
                    chunks.append(chunk.decode("utf-8", "replace"))
                    size += len(chunk)
                    if size >= 4 * LIMIT:
                        break
        except Exception:  # a damaged, encrypted or odd archive: not read
            return None
        xml = " ".join(chunks)
        return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", xml)).strip()
    if b"\x00" in head:
        return None
    return head.decode("utf-8", errors="replace")


INPUT = json.load(sys.stdin)["input"]
caller = Path(os.environ.get("@ROOT@") or ".")
FOLDER_ENTRIES = 500


def listing(folder):
    # Up to FOLDER_ENTRIES file names under a folder, breadth first, hidden folders and
    # links not followed.
    found, todo = [], [folder]
    while todo and len(found) < FOLDER_ENTRIES:
        current = todo.pop(0)
        try:
            entries = sorted(os.scandir(current), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                todo.append(entry.path)
            elif entry.is_file(follow_symlinks=False):
                found.append(str(Path(entry.path).relative_to(folder)))
                if len(found) >= FOLDER_ENTRIES:
                    break
    return found


read = []
for name in @NAMES@:
    try:
        path = caller / str(name)
        if @INSIDE@ and caller.resolve() not in path.resolve().parents:
            read.append({"path": name, "error": "outside the APP"})
            continue
        if path.is_dir():
            read.append({"path": name, "folder": listing(path)})
            continue
        if not stat.S_ISREG(path.stat().st_mode):
            read.append({"path": name, "error": "not a regular file"})
            continue
        with path.open("rb") as handle:
            data = handle.read(LIMIT + 1)
        text = as_text(path, data[:LIMIT])
    except Exception as exc:  # one unreadable entry never stops the others
        read.append({"path": str(name), "error": str(exc)})
        continue
    if text is None:
        read.append({"path": name, "binary": True, "bytes": path.stat().st_size})
        continue
    document = path.suffix.lower() in (".pdf", ".docx", ".pptx", ".xlsx")
    cut = len(text) > LIMIT if document else len(data) > LIMIT
    read.append({"path": name, "content": text[:LIMIT], "truncated": cut})
print(json.dumps({"output": {"files": read}}, ensure_ascii=False))
""".replace("@LIMIT@", str(READ_BYTES))
_SAVE = r"""import json
import os
import sys
from pathlib import Path

PAYLOAD = json.load(sys.stdin)
INPUT = PAYLOAD["input"]
ANSWER = PAYLOAD["steps"]["@STEP@"]["output"]
caller = Path(os.environ.get("APP_CALLER_CWD") or ".").resolve()
folder = (caller / (INPUT.get("@FOLDER@") or ".")).resolve()
replace = bool(INPUT.get("@REPLACE@"))
written, kept, seen = [], [], set()


def keep(item, reason):
    kept.append({"path": str(item.get("path")), "reason": reason, "content": item.get("content")})


for item in ANSWER.get("files") or []:
    try:
        path = (folder / item["path"]).resolve()
        if folder not in path.parents:
            keep(item, "outside " + str(folder))
        elif path in seen:
            keep(item, "named twice in the answer: the first one was saved")
        elif path.exists() and not (replace and path.is_file()):
            keep(item, "exists (set @REPLACE@ to replace it)" if path.is_file() else "a folder")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(item["content"], encoding="utf-8")
            written.append(str(path))
            seen.add(path)
    except (OSError, ValueError, RuntimeError, TypeError, KeyError) as exc:
        keep(item, "not saved: " + str(exc))
output = {"summary": ANSWER["summary"], "written": written, "kept": kept}
print(json.dumps({"output": output}, ensure_ascii=False))
"""


def reader(files: str) -> str:
    """The read step's program, reading the input ``files``."""
    program = _READ.replace("@NAMES@", f'INPUT.get("{files}") or []')
    return program.replace("@ROOT@", "APP_CALLER_CWD").replace("@INSIDE@", "False")


def guide_reader(paths: list[str]) -> str:
    """A read step's program for files of the skill itself (``references/GUIDE.md``), read
    from the APP folder, never outside it."""
    program = _READ.replace("@NAMES@", repr(list(paths)))
    return program.replace("@ROOT@", "APP_ROOT").replace("@INSIDE@", "True")


def saver(step: str, folder: str, replace: str) -> str:
    """The save step's program: the answer of llm step ``step``, under the input ``folder``,
    replacing files when the input ``replace`` is true."""
    return _SAVE.replace("@STEP@", step).replace("@FOLDER@", folder).replace("@REPLACE@", replace)


def save_step(name: str, step: str, folder: str, replace: str) -> CodeStep:
    """The written step saving the files llm step ``step`` answers with (``saver``)."""
    return CodeStep(
        name,
        "",
        write=Written("python", saver(step, folder, replace)),
        output={"summary": "string", "written": "array", "kept": "array"},
    )


def save_inputs(folder: str, replace: str) -> list[Input]:
    """The inputs a save step (``save_step``) reads: the folder, the working one by default,
    and whether to replace files that exist, off by default."""
    return [
        Input(folder, "string", False, "Folder the files are saved in", None, "."),
        Input(replace, "boolean", False, "Replace files that exist", None, False),
    ]
