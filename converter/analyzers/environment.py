"""The variables a program's documented commands set before it, as the step's ``env``.

``DOUBAN_USER=<user_id> python3 scripts/douban-frodo-export.py`` configures the program
through its environment, not its arguments (douban-skill, round 11: the heuristic read
``<user_id>`` as a redirection and gave no way to set the variable).  Each such variable
becomes an entry of the code step's ``env``:

- a value to fill in (``<user_id>``, ``$ID``, ``your_id``) or values that differ between the
  commands: an input (named by the placeholder, else by the variable), required when every
  command sets it, with a value the documents show as its example;
- the same literal in every command (``PYTHONUNBUFFERED=1``): that value, fixed; a literal
  only some commands set (``NO_PUSHOVER=1 pushover-notify ...``, a dry run) is an optional
  input;
- a secret (``API_KEY=...``): never an input nor a literal; the user's environment gives it;
- what decides how programs are found or loaded (``PYTHONPATH=.``, ``NODE_OPTIONS=...``): left
  out, as the plan may not set it (``plan.model.RESERVED_ENV``).
"""

from __future__ import annotations

import re

from skill2app.converter.analyzers.text import free_name, snake
from skill2app.converter.inventory.invocations import Invocation, is_placeholder
from skill2app.converter.plan.model import RESERVED_ENV, EnvVar, Input
from skill2app.runtime.app.secrets import is_secret_name

_NAMED = re.compile(r"^<([A-Za-z_][\w -]*)>$|^\$\{?([A-Za-z_]\w*)\}?$")


def env_of(invocations: list[Invocation], taken: set[str]) -> tuple[list[EnvVar], list[Input]]:
    """The step's ``env`` and the inputs it reads (their names are added to ``taken``)."""
    names = list(dict.fromkeys(n for inv in invocations for n in inv.values))
    env: list[EnvVar] = []
    inputs: list[Input] = []
    for variable in names:
        if is_secret_name(variable) or RESERVED_ENV.match(variable):
            continue  # the user's environment gives a secret; PYTHONPATH=. is the shell's
        shown = [inv.values[variable] for inv in invocations if variable in inv.values]
        literal = [v for v in shown if v and not is_placeholder(v) and not _NAMED.match(v)]
        every = len(shown) == len(invocations)
        if every and len(literal) == len(shown) and len(set(literal)) == 1:
            env.append(EnvVar(variable, literal[0]))
            continue
        name = _input_name(shown, variable, taken)
        taken.add(name)
        what = f"{variable} for the program" + (f" (e.g. {literal[0]})" if literal else "")
        inputs.append(Input(name, "string", every, what))
        env.append(EnvVar(variable, ref=f"input.{name}"))
    return env, inputs


def _input_name(shown: list[str], variable: str, taken: set[str]) -> str:
    """The placeholder's own name (``<user_id>`` → user_id), else the variable's."""
    named = next((m for v in shown if (m := _NAMED.match(v))), None)
    base = snake(next(g for g in named.groups() if g), 4) if named else ""
    base = base or snake(variable.lower(), 4) or "value"
    return free_name(base, taken)
