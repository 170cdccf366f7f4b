"""A stand-in's body (``standins.py``): record the command line it was given, print nothing.

Run as a script, outside the package (copied into app-convert's stand-in folder), with the
standard library only: ``python -S recorder.py NAME LOG KEPT ARG...``.  It reads what it is
given on stdin (up to 64 KiB, while more comes within half a second) so that a writer never
fails on a closed pipe, and appends one JSON line to LOG: the program's NAME, its arguments,
its working folder and the first KEPT characters of what it read.
"""

import json
import os
import select
import sys


def main() -> None:
    name, log, kept = sys.argv[1], sys.argv[2], int(sys.argv[3])
    read = b""
    try:
        if not os.isatty(0):
            while len(read) < 65536 and select.select([0], [], [], 0.5)[0]:
                chunk = os.read(0, 65536)
                if not chunk:
                    break
                read += chunk
    except (OSError, ValueError):
        pass
    call = {
        "program": name,
        "argv": sys.argv[4:],
        "cwd": os.getcwd(),
        "stdin": read[:kept].decode("utf-8", "replace"),
    }
    with open(log, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(call, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
