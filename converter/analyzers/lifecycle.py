"""The lifecycle a heuristic plan proposes: the constructor's checks (what the skill depends on)
and the destructor's actions (the cleanup SKILL.md asks for after a run)."""

from __future__ import annotations

import re

from skill2app.converter.analyzers.text import unique
from skill2app.converter.inventory.model import Inventory
from skill2app.converter.inventory.packages import package_key
from skill2app.converter.inventory.requirements import where_key
from skill2app.converter.plan.model import (
    Action,
    Check,
    CodeStep,
    Constructor,
    Destructor,
    Plan,
)

_CLEANUP = re.compile(
    r"(?<![\w/.-])(?:clean ?up|remove (?:the )?(?:temp|temporary)\w*|delete (?:the )?"
    r"(?:temp|temporary)\w*|release (?:the )?lock|rm -rf)(?![\w.-])|清理|删除临时|释放锁",
    re.I,
)
# "clean up" is a destructor action only about what a run leaves behind, or afterwards.
_LEFTOVERS = re.compile(
    r"\b(?:after(?:wards?)?|when (?:done|finished)|at the end|temp(?:orary)?|scratch|tmp|"
    r"intermediate|leftover|lock)\b|/tmp|之后|完成后|结束后|临时",
    re.I,
)


def constructor(inventory: Inventory, plan: Plan | None = None) -> Constructor:
    """The checks of what the skill depends on.  With ``plan``, a need of the skill's
    programs that no pipeline runs is left out (a need its documents also name stays, as
    a warning: the model may use it in Skill mode)."""
    checks = []
    used = _programs_run(plan) if plan is not None else None
    written = _written_sources(plan) if plan is not None else ""
    code = {f.path for f in inventory.files if f.role in ("program", "module")}
    for req in inventory.requirements:
        files = sorted({where_key(w)[0] for w in req.where})
        required = req.required and req.kind != "auth"
        if used is not None and any(f in code for f in files) and not set(files) & used:
            if all(f in code for f in files):
                continue  # only programs no pipeline runs need it
            required = False
        if used is not None and req.kind in _PACKAGES and not any(f in code for f in files):
            # a package only the documents install (`npm install @x/sdk` into the project
            # the skill scaffolds) blocks nothing no step imports: a warning
            required = required and _imports(written, req.name, req.kind)
        checks.append(
            Check(req.kind, req.name, required, f"seen in {', '.join(files)}", _spots(req.where))
        )
    if not checks:
        return Constructor(
            False, "the skill names no binary, variable, package, file or login it depends on"
        )
    kinds = ", ".join(unique([c.kind for c in checks]))
    return Constructor(True, f"check what the skill depends on before every run ({kinds})", checks)


def _programs_run(plan: Plan) -> set[str]:
    return {s.program for p in plan.pipelines for s in p.steps if isinstance(s, CodeStep)}


_PACKAGES = ("python-package", "node-package")


def _written_sources(plan: Plan) -> str:
    """The source of every step the plan writes itself (snippets, glue), one text."""
    return "\n".join(
        s.write.source
        for p in plan.pipelines
        for s in p.steps
        if isinstance(s, CodeStep) and s.write is not None
    )


def _imports(source: str, package: str, kind: str) -> bool:
    """Whether ``source`` imports ``package`` (Python: the module it gives, ``Pillow`` →
    ``PIL``)."""
    if kind == "node-package":
        quoted = re.escape(package)
        pattern = rf"""(?:require\(|from\s+|import\s+)['"]{quoted}(?:/|['"])"""
        return bool(re.search(pattern, source))
    module = re.escape(package_key(package))
    pattern = rf"""^\s*(?:import|from)\s+{module}\b|find_spec\(['"]{module}['"]\)"""
    return bool(re.search(pattern, source, re.M | re.I))


def _spots(where: list[str], limit: int = 5) -> list[str]:
    """Up to ``limit`` spots, sorted, the first of each file among them: a program's own
    spot (``scripts/x.js:1``) is never crowded out by SKILL.md's mentions."""
    spots = sorted(set(where), key=where_key)
    firsts = list({where_key(s)[0]: s for s in reversed(spots)}.values())
    rest = [s for s in spots if s not in firsts]
    return sorted((firsts + rest)[: max(limit, len(firsts))], key=where_key)


def destructor(inventory: Inventory) -> Destructor:
    doc = inventory.skill
    actions = []
    fenced = False
    for offset, line in enumerate(doc.body.split("\n")):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        # Prose only: a heading ("## Content Cleanup") names a feature, a command runs one.
        found = None if fenced or line.lstrip().startswith("#") else _CLEANUP.search(line)
        if found and (_LEFTOVERS.search(line) or not re.match(r"clean ?up", found[0], re.I)):
            where = f"{doc.path}:{doc.body_line + offset}"
            actions.append(Action("custom", " ".join(line.strip("-*# ").split()), [], where))
    if not actions:
        return Destructor(False, "the skill asks for no cleanup after a run")
    return Destructor(True, "the skill asks for cleanup after a run", actions)
