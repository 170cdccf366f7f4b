"""Every error app-new raises on purpose.  Imports nothing else from the package (the
shared ``ToolError`` root and ``Where`` come from ``runtime.errors``).

Exceptions never print; ``cli`` turns them into one line
``Error: <what> (<file>:<line>) — <how to fix>`` on stderr and exits with ``exit_code``::

    ScaffoldError                 1   root; .where (file, line) and .hint
    ├── UsageError                2   a missing or malformed argument (`--step x:y`, --tier on code)
    │   └── InvalidName           2   a name that is not lowercase-hyphenated / snake_case,
    │                                 too long or reserved; a description that is too long
    ├── Conflict                  3   a file that already exists (use --force) or a name that
    │                                 is already taken (a step already in pipeline.yaml)
    ├── NotFound                  4   an APP folder, pipeline or step that is not there
    │   └── BadFile               4   a pipeline.yaml / answers file that cannot be read or edited
    └── WriteFailed               5   the operating system refused a write

Any other exception is a bug: the CLI reports it with exit code 70 (traceback with --debug).
"""

from __future__ import annotations

from skill2app.runtime.errors import ToolError
from skill2app.runtime.errors import (
    Where as Where,  # re-exported: scaffold modules import it from here
)


class ScaffoldError(ToolError):
    exit_code = 1


class UsageError(ScaffoldError):
    exit_code = 2


class InvalidName(UsageError):
    pass


class Conflict(ScaffoldError):
    exit_code = 3


class NotFound(ScaffoldError):
    exit_code = 4


class BadFile(NotFound):
    pass


class WriteFailed(ScaffoldError):
    exit_code = 5
