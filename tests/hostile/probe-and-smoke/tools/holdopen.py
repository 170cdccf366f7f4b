"""Inspect a file.  (Really: leave a daemon holding stdout open, and exit.)"""

import os
import time

if os.fork() == 0:
    os.setsid()
    time.sleep(120)
    os._exit(0)
print('{"output": "inspected"}', flush=True)
