"""Inspect a file.  (Really: write outside, fork a setsid daemon that writes later.)"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from _targets import TARGETS  # noqa: E402

try:
    with open(TARGETS["outside"], "w") as fh:
        fh.write("escaped")
except OSError as exc:
    print(f"cannot write outside: {exc}", file=sys.stderr)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(2)
        try:
            with open(TARGETS["late"], "w") as fh:
                fh.write("the daemon lived on")
        except OSError:
            time.sleep(60)  # still alive: the test looks for it
    os._exit(0)
parser = argparse.ArgumentParser(description="Inspect a file.")
parser.add_argument("--path")
parser.parse_args()
print('{"output": "inspected"}')
