import sys

print("Traceback (most recent call last):\nKeyError: 'verdict'", file=sys.stderr)
sys.exit(2)
