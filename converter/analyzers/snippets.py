"""Tasks SKILL.md shows as Python snippets, made pipelines by the heuristic analyzer.

A skill often shows its main tasks as code rather than scripts (pdf: "Merge PDFs" is a pypdf
snippet).  A Python block of SKILL.md that reads at least one file named by a literal
(``PdfReader("input.pdf")``, ``["doc1.pdf", "doc2.pdf"]``) becomes a pipeline of one written
step: those literals become inputs (a list of files an array), a file it writes becomes an
optional ``output`` input defaulting to the literal, imports the block lacks are taken from
the other blocks (the split example uses the merge example's imports), and the snippet runs as
written, in the folder app-run was started from, its printed text and the files it wrote
becoming the step's output.  A block that cannot run alone (names no block defines), that
reads nothing, that handles secrets (a password written into the code), or that stores the
example's literal values into what it opened (``sheet["A1"] = "New Value"``) is left out.
"""

from __future__ import annotations

import ast
import builtins
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from skill2app.converter.analyzers.document import ancestors
from skill2app.converter.analyzers.text import (
    humanize,
    keys,
    overlap,
    slug,
    snake,
    step_name,
    unique,
)
from skill2app.converter.analyzers.triggers import is_negative, title_text
from skill2app.converter.analyzers.verbs import imperative
from skill2app.converter.analyzers.when_clauses import use_when_phrases
from skill2app.converter.plan.model import CodeStep, Input, Pipeline, Sample, Written

if TYPE_CHECKING:
    from skill2app.converter.inventory.markdown import CodeBlock
    from skill2app.converter.inventory.model import Inventory

PATH = re.compile(
    r"^[\w./-]*[\w-]\.(pdf|csv|tsv|xlsx|xls|docx|pptx|txt|md|json|png|jpe?g|gif|webp|html|xml|"
    r"mp4|mov|mkv|avi|webm|m4v|mp3|wav|m4a|aac|flac|ogg|opus|srt|vtt)$",
    re.I,
)
WRITES = {"save", "to_excel", "to_csv", "to_json", "write", "savefig", "Canvas",
          "SimpleDocTemplate", "dump"}  # fmt: skip
SECRET = re.compile(r"password|passwd|secret|token|api_?key", re.I)
# A value the example leaves for the reader to fill in: "<endpoint>", "your-bucket", "YOUR_ID".
STAND_IN = re.compile(r"^<[A-Za-z_][\w -]*>$|^(?i:your)[-_]|^YOUR_|(?:^|/)path/to/")
GENERIC = re.compile(  # sections that show the library, not a task of the user's
    r"^(quick ?start|getting started|overview|introduction|usage|basics?|examples?|setup|"
    r"installation|install|requirements|prerequisites|tl;?dr|syntax|common patterns|"
    r"cheat ?sheet)\b",
    re.I,
)
FIXTURE = {"pdf": "one-page.pdf", "csv": "table.csv", "xlsx": "table.xlsx", "xls": "table.xlsx",
           "docx": "document.docx", "png": "image.png", "jpg": "image.png",
           "jpeg": "image.png", "txt": "text.txt", "json": "data.json"}  # fmt: skip
SECOND = {"pdf": "form.pdf"}
KIND = {"txt": "text", "md": "markdown", "xlsx": "excel", "xls": "excel", "docx": "word",
        "pptx": "slides", "png": "image", "jpg": "image", "jpeg": "image",
        "gif": "image", "webp": "image", "mp4": "video", "mov": "video", "mkv": "video",
        "avi": "video", "webm": "video", "m4v": "video", "mp3": "audio", "wav": "audio",
        "m4a": "audio", "aac": "audio", "flac": "audio", "ogg": "audio", "opus": "audio",
        "srt": "subtitles", "vtt": "subtitles"}  # fmt: skip
KNOWN = set(dir(builtins)) | {"__name__", "__file__"}


class FileLiteral(Protocol):
    """A file an example names (a snippet's ``Found``, a command's ``commands.Literal``)."""

    @property
    def name(self) -> str: ...  # the input it becomes

    @property
    def value(self) -> str | list[str]: ...

    @property
    def writes(self) -> bool: ...


@dataclass
class Found:
    """A file literal of a snippet and what it becomes."""

    node: ast.AST
    name: str  # the input it becomes
    value: str | list[str]
    writes: bool


@dataclass
class Snippet:
    block: CodeBlock
    tree: ast.Module
    files: list[Found] = field(default_factory=list)
    imports: list[str] = field(default_factory=list)  # import lines taken from other blocks


def snippet_pipelines(inventory: Inventory, taken: set[str]) -> list[Pipeline]:
    """One pipeline per runnable SKILL.md Python snippet that reads a file."""
    doc = inventory.skill
    blocks = [b for b in doc.code_blocks if b.language in ("python", "py", "python3")]
    known = _imports(blocks)
    found: list[Pipeline] = []
    shapes: dict[tuple[str, frozenset[str], tuple[str, ...]], Pipeline] = {}
    for block in blocks:
        snippet = _snippet(block, known)
        if snippet is None or block.section < 0:
            continue
        title = doc.sections[block.section].title
        if GENERIC.match(title.strip()) or is_negative(title):  # "When NOT to Use"
            continue
        if any(
            ADVICE.match(title_text(doc.sections[at].title) or doc.sections[at].title)
            for at in ancestors(doc, block.section)
            if doc.sections[at].level > 1  # the skill's own title is no advice
        ):
            continue  # "## Best Practices" > "### Handle Errors Gracefully": how, not a task
        title = title_text(title) or title  # "Step 2: Read and Apply ..." → "Read and Apply ..."
        name = slug(title, 5)
        if not name or name in taken:
            continue
        same = shapes.get(shape := _shape(snippet, title))
        if same is not None:  # the same action, calls and kinds of file: the same task
            same.triggers = unique([*same.triggers, *_triggers(inventory, title, snippet)], 10)
            continue
        taken.add(name)
        found.append(shapes.setdefault(shape, _pipeline(inventory, snippet, name, title)))
    return found


# Sections that advise on doing the tasks well, not tasks of their own.
ADVICE = re.compile(
    r"^\s*(?:best practices?|tips(?: and tricks)?|troubleshooting|performance(?: tips)?|"
    r"common (?:pitfalls|mistakes|errors)|pitfalls|faq|error handling|quick ?start|"
    r"getting started)\s*$",
    re.I,
)


def _shape(snippet: Snippet, title: str) -> tuple[str, frozenset[str], tuple[str, ...]]:
    """What a snippet does, to tell two examples of one task apart from two tasks: the action
    its title names ("Extract Tables", "Extract Data from Excel": extract; "Merge" and
    "Extract the First Page" differ though both call PdfWriter), the functions and methods it
    calls (``print``, ``open`` and the like aside) and the kinds of file it reads and
    writes."""
    words = imperative(title).split()
    action = words[0].lower() if words else ""
    calls = frozenset(
        name
        for node in ast.walk(snippet.tree)
        if isinstance(node, ast.Call)
        and (name := getattr(node.func, "attr", getattr(node.func, "id", "")))
        and name not in KNOWN
    )
    kinds = tuple(sorted(f"{'w' if f.writes else 'r'}:{_suffixes(f.value)}" for f in snippet.files))
    return action, calls, kinds


def _suffixes(value: str | list[str]) -> str:
    values = value if isinstance(value, list) else [value]
    return ",".join(sorted({v.rsplit(".", 1)[-1].lower() for v in values}))


def _imports(blocks: list[CodeBlock]) -> dict[str, str]:
    """Every name an import line of the blocks binds -> that import line."""
    bound: dict[str, str] = {}
    for block in blocks:
        try:
            tree = ast.parse(block.text)
        except (SyntaxError, ValueError, RecursionError):
            continue
        for node in tree.body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                for alias in node.names:
                    name = (alias.asname or alias.name).split(".")[0]
                    bound.setdefault(name, ast.unparse(node))
    return bound


def _snippet(block: CodeBlock, known: dict[str, str]) -> Snippet | None:
    if SECRET.search(block.text):
        return None
    try:
        tree = ast.parse(block.text)
    except (SyntaxError, ValueError, RecursionError):
        return None
    if any(
        isinstance(value, ast.Constant) and isinstance(value.value, str)
        and STAND_IN.search(value.value) and not PATH.match(value.value)
        for value in _given_values(tree)
    ):  # fmt: skip
        return None  # a value the reader fills in ("<document_intelligence_endpoint>")
    if _example_edits(tree):
        return None  # it writes the example's own values into the user's document
    snippet = Snippet(block, tree)
    snippet.files = _files(tree)
    if not any(not f.writes for f in snippet.files):
        return None  # it reads no file the user names: nothing to run it on
    missing = _undefined(tree)
    if any(name not in known for name in missing):
        return None  # it needs code SKILL.md does not show
    snippet.imports = unique([known[name] for name in sorted(missing)])
    return snippet


def _given_values(tree: ast.Module) -> list[ast.expr]:
    """The values a snippet gives a call or a name (``MarkItDown(docintel_endpoint="<...>")``,
    ``bucket = "your-bucket"``), not the text it prints or builds."""
    found: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func) not in ("print", "log"):
            found += [*node.args, *(k.value for k in node.keywords)]
        elif isinstance(node, ast.Assign):
            found.append(node.value)
    return found


def _example_edits(tree: ast.Module) -> bool:
    """Whether the block stores literal values into something it opened (``sheet["A1"] =
    "New Value"``): an illustration of an API, which run on a user's file would write the
    example's values into it. Computed values (``df["total"] = df.a + df.b``) are a task."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            literal = node.value.value
            if isinstance(literal, str | int | float) and not isinstance(literal, bool):
                if any(isinstance(target, ast.Subscript) for target in node.targets):
                    return True
    return False


def _files(tree: ast.Module) -> list[Found]:
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found: list[Found] = []
    names: list[str] = []
    for node in ast.walk(tree):
        value = _file_value(node)
        if value is None or isinstance(parents.get(node), ast.List):
            continue
        writes = _writes(node, parents)
        again = next((f for f in found if f.value == value and not f.writes and not writes), None)
        if again is not None and not isinstance(parents.get(node), ast.Assign):
            # "photo.jpg" read by four calls of one example is one file: one input (it was
            # photo_file, photo_file_3, photo_file_4 in image-to-svg)
            found.append(Found(node, again.name, value, writes))
            continue
        name = _input_name(node, value, parents, writes, names)
        names.append(name)
        found.append(Found(node, name, value, writes))
    return found


def distinct(files: Sequence[FileLiteral]) -> list[FileLiteral]:
    """The first of each input ``files`` name (one file an example reads twice is one)."""
    firsts: dict[str, FileLiteral] = {}
    for item in files:
        firsts.setdefault(item.name, item)
    return list(firsts.values())


def _file_value(node: ast.AST) -> str | list[str] | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and PATH.match(node.value):
        return node.value
    if isinstance(node, ast.List) and node.elts:
        values = [e.value for e in node.elts if isinstance(e, ast.Constant)]
        if len(values) == len(node.elts) and all(isinstance(v, str) and PATH.match(v)
                                                 for v in values):  # fmt: skip
            return [str(v) for v in values]
    return None


def _writes(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    call = parents.get(node)
    if not isinstance(call, ast.Call):
        return False
    callee = (
        call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    )
    if callee == "open":
        modes = [a.value for a in call.args[1:2] if isinstance(a, ast.Constant)]
        modes += [k.value.value for k in call.keywords
                  if k.arg == "mode" and isinstance(k.value, ast.Constant)]  # fmt: skip
        return any(isinstance(m, str) and set(m) & set("wax") for m in modes)
    return callee in WRITES


def _input_name(
    node: ast.AST, value: str | list[str], parents: dict[ast.AST, ast.AST], writes: bool,
    taken: list[str],
) -> str:  # fmt: skip
    parent = parents.get(node)
    if isinstance(parent, ast.Assign) and isinstance(parent.targets[0], ast.Name):
        base = parent.targets[0].id
    elif isinstance(parent, ast.For) and isinstance(parent.target, ast.Name):
        base = parent.target.id + "s"  # for pdf_file in [...]: pdf_files
    elif writes:
        base = "output_path"
    else:
        first = value[0] if isinstance(value, list) else value
        suffix = first.rsplit(".", 1)[1].lower()
        kind = KIND.get(suffix, suffix)
        base = f"{kind}_files" if isinstance(value, list) else f"{kind}_file"
    name = snake(base, 4) or "input_file"
    if name in taken:  # two files of one kind: named by their example names
        first = value[0] if isinstance(value, list) else value
        name = snake(first.rsplit("/", 1)[-1].rsplit(".", 1)[0] + "_file", 4)
    return name if name not in taken else f"{name}_{len(taken) + 1}"


def _undefined(tree: ast.Module) -> set[str]:
    """Names the snippet reads but neither binds nor imports (nor are builtins)."""
    bound: set[str] = set()
    loaded: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            bound |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
            bound |= (
                {a.arg for a in node.args.args} if not isinstance(node, ast.ClassDef) else set()
            )
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return loaded - bound - KNOWN


class _Replace(ast.NodeTransformer):
    def __init__(self, files: list[Found]) -> None:
        self.names = {id(f.node): f.name for f in files}

    def visit(self, node: ast.AST) -> ast.AST:
        name = self.names.get(id(node))
        if name is not None:
            return ast.copy_location(ast.Name(id=name, ctx=ast.Load()), node)
        return super().visit(node)


def program_source(snippet: Snippet) -> str:
    """The written step: the snippet as it is, on the inputs, in the caller's folder."""
    body = _Replace(snippet.files).visit(snippet.tree)
    ast.fix_missing_locations(body)
    code = ast.unparse(body)
    lines = [
        "import contextlib",
        "import io",
        "import json",
        "import os",
        "import sys",
        "",
        *snippet.imports,
        "",
        *reading(snippet.files),
        "printed = io.StringIO()",
        "with contextlib.redirect_stdout(printed):",
        *("    " + line if line else "" for line in code.splitlines()),
        *answering(snippet.files, "printed.getvalue()"),
    ]
    return "\n".join(lines) + "\n"


def reading(files: Sequence[FileLiteral]) -> list[str]:
    """A written step's first lines: its input read, the caller's folder entered, each file
    taken from the input (a file it writes defaulting to the example's name).  A file to read
    that the caller's folder lacks and the APP folder has (``references/formats.md``: the
    skill's own) is read from the APP folder, never from outside it (``in_app``)."""
    inputs = []
    for item in distinct(files):
        if item.writes:
            inputs.append(f"{item.name} = INPUT.get({item.name!r}) or {item.value!r}")
        else:  # a file of the skill's own (references/x.md) is read from the APP folder
            inputs.append(f"{item.name} = in_app(INPUT.get({item.name!r}))")
    found = [
        "HERE = os.path.abspath(__file__)",
        'APP = os.path.realpath(os.environ.get("APP_ROOT") or HERE.rsplit(os.sep, 4)[0])',
        "",
        "",
        "def in_app(path):",
        '    """A path found only in the APP folder (the skill\'s own files) means that file."""',
        "    if isinstance(path, str) and path and not os.path.exists(path):",
        '        caller = os.environ.get("APP_CALLER_CWD") or os.getcwd()',
        "        rel = os.path.relpath(path, caller) if os.path.isabs(path) else path",
        "        there = os.path.normpath(os.path.join(APP, rel))",
        "        inside = os.path.commonpath([APP, there]) == APP",
        "        if inside and os.path.exists(there):",
        "            return there",
        "    return path",
        "",
        "",
    ]
    reads = any(not item.writes for item in files)
    return [
        *(found if reads else []),
        'INPUT = json.load(sys.stdin)["input"]',
        'os.chdir(os.environ.get("APP_CALLER_CWD") or ".")  # paths mean what the user meant',
        *inputs,
    ]


def answering(files: Sequence[FileLiteral], printed: str) -> list[str]:
    """A written step's last lines: what it printed (the expression ``printed``) and the
    files it wrote, as its output."""
    written = [f.name for f in distinct(files) if f.writes]
    return [
        f"written = [p for p in [{', '.join(written)}] if os.path.exists(p)]",
        f'output = {{"printed": {printed}, "written": written}}',
        'print(json.dumps({"output": output}, ensure_ascii=False))',
    ]


def _pipeline(inventory: Inventory, snippet: Snippet, name: str, title: str) -> Pipeline:
    block = snippet.block
    library = _library(snippet.tree)
    with_library = library and library.lower() not in title.lower()
    description = f"{title} with {library}" if with_library else title
    inputs = [file_input(item) for item in distinct(snippet.files)]
    step = CodeStep(
        step_name(snake(name, 4) or "run"),
        "",
        write=Written("python", program_source(snippet)),
        output={"printed": "string", "written": "array"},
    )
    sample = {item.name: file_sample(item) for item in snippet.files if not item.writes}
    return Pipeline(
        name=name,
        description=description,
        triggers=_triggers(inventory, title, snippet),
        input=inputs,
        steps=[step],
        source=f"{inventory.skill.path}:{block.line}",
        sample=Sample(input=sample),
    )


def file_input(item: FileLiteral) -> Input:
    """The pipeline input a file of the example becomes."""
    shown = ", ".join(item.value) if isinstance(item.value, list) else item.value
    if item.writes:
        return Input(item.name, "string", False, f"File to write (e.g. {shown})", None, item.value)
    kind = "array" if isinstance(item.value, list) else "string"
    what = "Files to read, in order" if kind == "array" else "File to read"
    return Input(item.name, kind, True, f"{what} (e.g. {shown})")


def file_sample(item: FileLiteral) -> str | list[str]:
    """Its sample: a fixture of its kind (``samples/one-page.pdf``), else the example's name."""
    values = item.value if isinstance(item.value, list) else [item.value]
    picked = []
    for index, value in enumerate(values):
        suffix = value.rsplit(".", 1)[1].lower()
        name = (SECOND.get(suffix) if index % 2 else None) or FIXTURE.get(suffix)
        picked.append(f"samples/{name}" if name else value)
    return picked if isinstance(item.value, list) else picked[0]


def _library(tree: ast.Module) -> str:
    stdlib = set(getattr(sys, "stdlib_module_names", ()))
    for node in tree.body:
        module = ""
        if isinstance(node, ast.Import):
            module = node.names[0].name
        elif isinstance(node, ast.ImportFrom) and node.module:
            module = node.module
        top = module.split(".")[0]
        if top and top not in stdlib:
            return top
    return ""


def _triggers(inventory: Inventory, title: str, snippet: Snippet) -> list[str]:
    """The section title as people say it, with the files the example names, and the
    description's "use when" situations about the same thing."""
    lowered = imperative(title)
    examples = [f for f in snippet.files if not f.writes]
    named = examples[0].value if examples else ""
    shown = " and ".join(named) if isinstance(named, list) else named
    phrases = [lowered, f"{lowered} {shown}".strip(), *situations(inventory, title)]
    return unique([p for p in phrases if p], limit=8)


def situations(inventory: Inventory, title: str) -> list[str]:
    """The description's "use when" situations about the task ``title`` says."""
    # what every task of the skill shares ("PDF" in a PDF skill) tells none of them apart
    name = humanize(inventory.skill.frontmatter.name)
    topic = keys(title) - keys(name) - keys(re.sub(r"(\w)\b", r"\1s", name))
    return [
        p for p in use_when_phrases(inventory.skill.frontmatter.description)
        if overlap(p, topic) > 0
    ]  # fmt: skip
