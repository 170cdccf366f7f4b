"""numpy with one BLAS thread, for routing.

Routing multiplies small matrices (one request against a table): OpenBLAS hands a product
above ~2**18 multiply-adds to its other threads, and at these sizes the hand-off costs more
than it saves — on a busy machine its threads spin and wait for a core: `app-run route` took
twice the wall time and CPU time with two threads than with one.  OpenBLAS reads its thread
count when it is loaded, so numpy is first imported here with ``OPENBLAS_NUM_THREADS=1`` (and
``OMP_NUM_THREADS=1``) set for that moment only: the environment that steps inherit is left as
it was.  A process that imported numpy before (a test runner) keeps its own setting.
"""

from __future__ import annotations

import os
import sys
from types import ModuleType

_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")


def numpy() -> ModuleType:
    """The numpy module, imported with one BLAS thread if this is its first import."""
    if "numpy" in sys.modules:
        return sys.modules["numpy"]
    saved = {name: os.environ.get(name) for name in _VARIABLES}
    try:
        for name in _VARIABLES:
            os.environ[name] = "1"
        import numpy as np
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return np
