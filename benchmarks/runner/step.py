"""A minimal code step (APP spec 4.1), the Python twin of step.c: read all of stdin, print
``{"output": 1}``, or with a byte count ``{"output": "xxx..."}`` of that many characters.

stdin is read and dropped in 64 KiB chunks and the string written the same way, so the step's
own memory stays small whatever the sizes.
"""

import sys

CHUNK = 65536


def main() -> None:
    while sys.stdin.buffer.read(CHUNK):
        pass
    out = sys.stdout.buffer
    if len(sys.argv) < 2:
        out.write(b'{"output": 1}\n')
        return
    left = int(sys.argv[1])
    chunk = b"x" * CHUNK
    out.write(b'{"output": "')
    while left > 0:
        out.write(chunk[: min(left, CHUNK)])
        left -= CHUNK
    out.write(b'"}\n')


main()
