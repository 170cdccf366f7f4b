"""Exit statuses a skill documents as results, not failures.

A checker that exits 1 when it finds something ("Exit 0 = ready, 1 = something missing",
"exits non-zero when failures remain", "# exit 2 if over budget", "Exit 3 = no
contributions for this product → skip it") answers the question it was asked; a step that
took that status for a crash would fail the pipeline exactly when the program did its job.
This reads what the program's header, its help, its code's comments on exits and the lines
at its documented commands say of its statuses, and keeps those whose meaning is a finding,
never an error ("1 = bad or missing flag", "3 = API failed"); and what a Python program's code
gives as its verdict (``sys.exit(0 if ok else 1)``: ``programs/verdicts.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from skill2app.converter.inventory.invocations import Invocation
from skill2app.converter.inventory.model import Inventory
from skill2app.converter.inventory.programs.interface import Command
from skill2app.converter.inventory.programs.program import Program

# Where a text starts speaking of statuses: "Exit codes:", "exits", "exit status", "退出码",
# "終了コード".
_EXIT_WORD = re.compile(
    r"\bexit(?:s|ing)?(?:\s+(?:codes?|status(?:es)?|with))?\b|\breturn\s+codes?\b|"
    r"退出码|返回码|退出代码|終了コード|終了ステータス",
    re.I,
)
# One status and its meaning: "1 = something missing", "2 if over budget", "non-zero when
# failures remain", "3 = no contributions ...", "1 (drift)"; a list of them is split at
# commas, semicolons, bars and " / " ("0 = PASS / 1 = FAIL").
_STATUS = re.compile(
    r"(?<![\w.-])(non-?zero|[0-9]{1,3})\s*(?:=|:|→|->|—|–|\(|\bmeans\b|\bwhen\b|\bif\b|"
    r"\bon\b|表示|时|则)\s*([^,;\n|()，；（）]{1,80})",
    re.I,
)
# A verdict a checker gives as its answer: whatever follows it ("FAIL (errors present)") is
# what it found, not an error of the program.
_VERDICT = re.compile(
    r"^(?:(?i:at least one|one or more|any)\s+)?(?:(?:hard|HARD|硬)\s*)?"
    r"(?:FAIL(?:ED|S|URE)?|NG|NOT OK|DRIFT|DIRTY|不合格|違反|违规)"
    r"(?![\w-])|^(?i:hard|硬)\s*(?i:fail(?:ed|s|ure)?)(?![\w-])"
)  # "1 = 硬 fail" (a lint's verdict, llm-wiki-setup)
# ... unless what follows it says the program broke ("FAILURE (could not connect)").
_BROKE = re.compile(
    r"\b(?:could not|cannot|can't|unable|connect\w*|timeout|timed out|usage|invalid|"
    r"arguments?|not found|no such|permission|denied|crash\w*|exceptions?)\b|失败|错误",
    re.I,
)
_RESULT = re.compile(
    r"\b(?:found|finds?|findings?|failures? remain|fail(?:s|ed|ing)? checks?|"
    r"(?:checks?|tests?) (?:fail\w*|remain)|missing|issues?|violations?|"
    r"differ(?:s|ences?)?|changes?|changed|drift|stale|not ready|over budget|exceed(?:s|ed)?|"
    r"remain|unhealthy|outdated|dirty|warnings?|no contributions?|nothing to|skip|gaps?|"
    r"polluters?|leaks?|secrets? found)\b|发现|存在问题|不一致|未通过",
    re.I,
)
_ERROR = re.compile(
    r"\b(?:errors?|invalid|usage|bad|unknown|arguments?|flags?|options?|credentials?|auth\w*|"
    r"crash\w*|exceptions?|unable|cannot|can't|could not|not installed|timeouts?|timed out|"
    r"api|write failed|failed to|not found|no such|permission|denied|interrupted|"
    r"on failure|files?|inputs?|paths?|required|config\w*)\b|"
    r"错误|参数|异常|失败",
    re.I,
)
_NOT_ERROR = re.compile(r"\b(?:not|never|isn't|is not)\s+(?:an?\s+)?(?:errors?|failures?)\b", re.I)
MAX_TEXT = 20_000  # characters of one text read for statuses
NEAR = 8  # lines after a documented command that may still speak of its statuses


# "non-zero exit on violations", "Returns non-zero in --strict mode on violations": the
# status said before its exit word.
_NONZERO_FIRST = re.compile(
    r"\b(?:non-?zero\s+exit(?:\s+(?:code|status))?|returns?\s+(?:a\s+)?non-?zero)\b"
    r"[^.;\n]{0,40}?\b(?:on|when|if)\s+([^,;\n|()，；（）.]{1,80})",
    re.I,
)


_LACKS = re.compile(
    r"\bdependenc\w*|\bnot installed\b|\b(?:is|are) (?:missing|unavailable|not available)\b|"
    r"\bnot on PATH\b|未安装|缺少依赖",
    re.I,
)


def result_statuses(texts: Iterable[str]) -> dict[int, str]:
    """Non-zero exit statuses the texts give a finding as their meaning → that meaning;
    "non-zero" counts as 1."""
    found: dict[int, str] = {}
    for text in texts:
        for line in _sentences(text[:MAX_TEXT]):
            for first in _NONZERO_FIRST.finditer(line):
                said = _NOT_ERROR.sub("", first.group(1).strip())
                lacking = _LACKS.search(said)  # "when ffmpeg is missing": the machine's fault
                if _RESULT.search(said) and not (_ERROR.search(said) or lacking):
                    found.setdefault(1, first.group(1).strip())
            start = _EXIT_WORD.search(line)
            if start is None:
                continue
            for match in _STATUS.finditer(line, start.start()):
                word, meaning = match.group(1).lower(), match.group(2).strip()
                status = 1 if word.startswith("non") else int(word)
                said = _NOT_ERROR.sub("", meaning)  # "findings exist — not an error"
                after = re.split(r"[;,|；，]", line[match.end() :], maxsplit=1)[0][:80]
                verdict = bool(_VERDICT.match(meaning)) and not _BROKE.search(meaning + after)
                if 0 < status < 256 and (
                    verdict or (_RESULT.search(said) and not _ERROR.search(said))
                ):
                    found.setdefault(status, meaning)
    return found


def _sentences(text: str) -> list[str]:
    """The lines of ``text`` without Markdown emphasis and code marks (```1` = FAIL``), a line
    that ends inside a sentence joined with the next ("exits **0 clean / 1 on" + "drift**"),
    and " / " said as a list's separator."""
    lines: list[str] = []
    carry = ""
    for raw in text.split("\n"):
        line = re.sub(r"(?<!`)`(?!`)|\*\*|__", "", raw).replace(" / ", "; ")
        line = f"{carry} {line.strip()}" if carry else line
        carry = ""
        if re.search(r"\b(?:on|when|if|=|means)\s*$", line) and len(line) < 400:
            carry = line  # the meaning is on the next line
            continue
        lines.append(line)
    return [*lines, carry] if carry else lines


def near_commands(
    invocations: list[Invocation],
    documents: dict[str, tuple[str, int]],
    others: set[tuple[str, int]],
) -> list[str]:
    """The lines at, right after and right before each documented command, within its
    section and up to the next command of another program or action (``others``: their
    (file, line)): where "# exit 2 if over budget" or "Exit 3 = ..." speaks of it.
    ``documents``: path → its text and the file line that text starts at."""
    texts = []
    for inv in invocations:
        text, first = documents.get(inv.file, ("", 1))
        lines = text.split("\n")
        start = inv.line - first
        if not 0 <= start < len(lines):
            continue
        end = start + 1
        while end < min(start + NEAR, len(lines)) and (inv.file, end + first) not in others:
            end += 1
        begin = start  # and the prose before it, back to its section's title
        while begin > max(start - NEAR, 0) and (inv.file, begin - 1 + first) not in others:
            if lines[begin - 1].startswith("#"):
                break
            begin -= 1
        texts.append("\n".join(lines[begin:end]))
    return texts


def ok_exit_codes(
    inventory: Inventory, program: Program, command: Command | None, invocations: list[Invocation]
) -> list[int]:
    """The statuses a step running ``program`` (its ``command``: the subcommand, or the
    program's own interface) as ``invocations`` show takes as results (with 0), or [] when
    the skill documents none: from the program's header and help, and the lines at those
    commands."""
    documents = {d.path: (d.text, d.first_line) for d in inventory.documents}
    shown = {(inv.file, inv.line) for inv in invocations}
    others = {
        (inv.file, inv.line) for p in inventory.programs for inv in p.invocations
    } - shown  # another program's, or another action of this one
    subcommands = program.cli.subcommands if program.cli else {}
    mine = next((name for name, c in subcommands.items() if c is command), "")
    doc = "\n".join(  # "  estimate   Print the cost. Exit 2 if over budget.": estimate's
        line
        for line in program.doc.split("\n")
        if (line.split() or [""])[0] not in set(subcommands) - {mine}
    )
    helps = [doc, program.exit_notes, program.cli.description if program.cli else ""]
    if command is not None and command is not program.cli:
        helps.append(command.description)
    statuses = result_statuses([*helps, *near_commands(invocations, documents, others)])
    if not subcommands:  # what its code gives as a verdict (verdicts.py): one command's
        statuses = {**program.verdicts, **statuses}
    elif command is not None:  # a dispatcher's subcommand: what its module's code gives
        statuses = {**command.verdicts, **statuses}
    return sorted({0, *statuses}) if statuses else []
