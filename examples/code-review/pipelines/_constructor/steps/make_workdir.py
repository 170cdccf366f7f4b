"""Constructor step 3: create this run's work dir and stage the diff in it.

Every later step reads the diff from ``<work dir>/input.diff`` — one snapshot, even if the
original file changes during the run.  (A networked version would `gh pr diff` into it here.)
The work dir path comes from ``APP_RUN_ID`` (tools/workdir.py); the destructor removes it.
If this step fails it removes what it made: after a constructor failure no destructor runs.

stdout: ``{"output": {"work_dir": "...", "diff": "<work dir>/input.diff"}}``
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, os.environ["APP_TOOLS_DIR"])
from workdir import work_dir  # noqa: E402


def main() -> None:
    payload = json.load(sys.stdin)
    source = Path(payload["steps"]["check_diff"]["output"]["diff_file"])
    work = work_dir()
    work.parent.mkdir(parents=True, exist_ok=True)
    work.mkdir(mode=0o700)  # run ids are unique: an existing dir is someone else's
    try:
        staged = work / "input.diff"
        shutil.copyfile(source, staged)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    print(json.dumps({"output": {"work_dir": str(work), "diff": str(staged)}}))


if __name__ == "__main__":
    main()
