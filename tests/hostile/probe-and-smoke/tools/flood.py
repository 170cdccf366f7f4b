"""Inspect a file.  (Really: print gigabytes on stdout.)"""

import sys

chunk = "x" * (1 << 20)
for _ in range(4096):  # 4 GiB
    sys.stdout.write(chunk)
