"""The checks the constructor embeds: the plan's requirements, each scoped to the pipelines
whose programs (or written steps) need it, with what to install for a module published under
another name."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from skill2app.converter.inventory.imports import LocalFiles
from skill2app.converter.inventory.packages import PIP_NAMES, package_key
from skill2app.converter.plan.model import CodeStep, Plan

if TYPE_CHECKING:
    from skill2app.converter.inventory.model import Inventory


def constructor_checks(plan: Plan, inventory: Inventory) -> list[dict[str, Any]]:
    """The plan's checks as the constructor embeds them.  A check the skill's programs need is
    scoped to the pipelines running those programs (``pipelines``: the constructor skips it
    for the others; a mention in SKILL.md alone runs no pipeline), and a Python module
    published under another name says what to install.  Which programs need it comes from
    the check's ``where`` and from the inventory's own spots for the same requirement (a
    program's interpreter is its need: ``scripts/x.js:1``), so a plan that lists only some
    spots does not lose a program.  A written step importing one of the skill's own modules
    (``from core.gif_builder import ...``) needs what that module needs, and one naming a
    program of the skill as a file (``'chat.js'``) what that program needs.  A need only of
    code no pipeline runs (a module nothing imports, a program no step runs) is no
    pipeline's (``pipelines: []``): the constructor checks it in Skill mode only.  An env
    var is also the need of every pipeline whose written steps read it, a binary of every
    pipeline whose written steps run it.  A check whose plan names its ``pipelines`` is scoped
    to those alone; a variable a pipeline's step gives its program (``env``) is not that
    pipeline's need, nor a tool its program installs (``Program.installs``)."""
    users: dict[str, set[str]] = {}
    written: dict[str, set[str]] = {}  # package key -> pipelines whose written steps import it
    for pipeline in plan.pipelines:
        for step in pipeline.steps:
            if isinstance(step, CodeStep) and step.write is None:
                users.setdefault(step.program, set()).add(pipeline.name)
            elif isinstance(step, CodeStep) and step.write is not None:
                for module in step.write.imports():
                    written.setdefault(package_key(module), set()).add(pipeline.name)
                for file in _own_modules(step.write.modules(), inventory):
                    users.setdefault(file, set()).add(pipeline.name)  # its needs are the step's
                for file in _programs_named(step.write.source, inventory):
                    users.setdefault(file, set()).add(pipeline.name)  # it runs that program
    installers: dict[str, set[str]] = {}  # tool -> programs installing it
    for program in inventory.programs:
        for tool in program.installs:
            installers.setdefault(tool, set()).add(program.path)
    known = {_key(r.kind, r.name): r.where for r in inventory.requirements}
    beside = {_key(r.kind, r.name): r.beside for r in inventory.requirements if r.beside}
    code = {f.path for f in inventory.files if f.role in ("program", "module")}
    checks = []
    for check in plan.constructor.checks:
        data = check.to_dict()
        spots = [*check.where, *known.get(_key(check.kind, check.name), [])]
        files = {spot.rpartition(":")[0] or spot for spot in spots}
        installing = installers.get(check.name.lower(), set()) if check.kind == "binary" else set()
        # SKILL.md's own mentions run no pipeline; an installer does not need what it installs
        programs = [f for f in files if f in users and f not in installing]
        scoped: set[str] = set().union(*(users[f] for f in programs)) if programs else set()
        if check.kind == "python-package":
            scoped |= written.get(package_key(check.name), set())
        if check.kind == "env":  # a written step reading it: os.environ["NOTION_TOKEN"]
            scoped |= _reading(plan, check.name)
        if check.kind == "binary":  # a written step running it: ["buf", "curl", ...]
            scoped |= _running(plan, check.name)
        if check.pipelines is not None:  # the analyst said which
            data["pipelines"] = sorted(set(check.pipelines))
        elif scoped or (files and files <= code):  # code no pipeline runs needs it: none
            data["pipelines"] = sorted(scoped)
        # a pipeline whose step gives the program the variable, or installs the tool, does
        # not need it (install-mq.sh: mq); the analyst's own scoping of an installer stands
        exempt = _setting(plan, check.name) if check.kind == "env" else set()
        if check.pipelines is None:
            exempt |= {name for f in installing for name in users.get(f, ())}
        if exempt:
            named = data.get("pipelines", [p.name for p in plan.pipelines])
            data["pipelines"] = sorted(set(named) - exempt)
        if check.kind == "python-package" and check.name in PIP_NAMES:
            data["install"] = PIP_NAMES[check.name]
        if _key(check.kind, check.name) in beside:  # a sibling's module, or a package
            data["beside"] = beside[_key(check.kind, check.name)]
        checks.append(data)
    return checks


def _reading(plan: Plan, variable: str) -> set[str]:
    """The pipelines whose written steps name the environment variable ``variable``."""
    word = re.compile(rf"(?<![\w$]){re.escape(variable)}(?!\w)")
    return {
        pipeline.name
        for pipeline in plan.pipelines
        for step in pipeline.steps
        if isinstance(step, CodeStep) and step.write and word.search(step.write.source)
    }


def _setting(plan: Plan, variable: str) -> set[str]:
    """The pipelines whose program steps always give their program ``variable`` (``env``: a
    literal, or a required input; an optional one may leave it to the environment)."""
    found = set()
    for pipeline in plan.pipelines:
        required = {item.name for item in pipeline.input if item.required}
        for step in pipeline.steps:
            if not isinstance(step, CodeStep):
                continue
            for var in step.env:
                given = var.ref.removeprefix("input.") in required if var.ref else True
                if var.name == variable and given:
                    found.add(pipeline.name)
    return found


def _running(plan: Plan, program: str) -> set[str]:
    """The pipelines whose written steps run ``program``: its name alone as the first string
    of an argument list (``["buf", "curl"]``, ``spawn('buf', ...)``), a command string
    starting with it handed to a runner (``os.system("buf curl ...")``), or (bash) a command
    position holding it.  Looking it up (``shutil.which("pandoc")``, ``command -v pandoc``)
    or installing it (``brew install pandoc``) is no run: a step that installs a missing
    program must not be stopped for it."""
    name = re.escape(program)
    runner = r"(?:run|call|check_call|check_output|Popen|system|popen|exec\w*|spawn\w*)"
    quoted = re.compile(rf"""[\[(]\s*(["'`]){name}\1|\b{runner}\(\s*(["'`]){name}\s""")
    command = re.compile(
        rf"(?:^|[|;&(]|\$\(|\b(?:exec|then|do|else)\s)\s*{name}(?=[\s;|&)]|$)", re.M
    )
    looked_up = re.compile(r"(?:which|command -v|type -p|exists|isfile|install)\W*$")
    found = set()
    for pipeline in plan.pipelines:
        for step in pipeline.steps:
            if not (isinstance(step, CodeStep) and step.write):
                continue
            source = step.write.source
            pattern = command if step.write.language == "bash" else quoted
            if any(
                not looked_up.search(source[max(0, m.start() - 24) : m.start() + 1])
                for m in pattern.finditer(source)
            ):
                found.add(pipeline.name)
    return found


def _own_modules(modules: set[str], inventory: Inventory) -> set[str]:
    """The skill's own files among ``modules`` (``core.gif_builder`` → core/gif_builder.py),
    resolved from the skill folder, where a written step finds them."""
    local = LocalFiles(f.path for f in inventory.files)
    return {found for module in modules if (found := local.python_module(module, [""]))}


def _programs_named(source: str, inventory: Inventory) -> set[str]:
    """The skill's programs a written step's source names as a file ("path.join(ROOT,
    'chat.js')", ``"scripts/x.py"``): the step runs them, and needs what they need (round 35's
    feishu-chat: chat.js requires ../feishu-auth/token-utils.js, checked for no pipeline)."""
    bases = [p.path.rsplit("/", 1)[-1] for p in inventory.programs]
    found = set()
    for program, base in zip(inventory.programs, bases, strict=True):
        parts = [re.escape(part) for part in program.path.split("/")]
        whole = r"[\"'`,\s]+".join(parts)  # "scripts/x.py" or ("scripts", "x.py")
        if re.search(rf"[\"'`/]{whole}[\"'`]", source):
            found.add(program.path)
        elif bases.count(base) == 1 and re.search(rf"[\"'`]{re.escape(base)}[\"'`]", source):
            found.add(program.path)  # its name alone: the one program of that name
    return found


def _key(kind: str, name: str) -> tuple[str, str]:
    """A requirement's identity: a Python package as installed (PyYAML) or imported (yaml)."""
    return (kind, package_key(name) if kind == "python-package" else name)
