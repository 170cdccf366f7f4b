"""Add two numbers."""

import argparse

parser = argparse.ArgumentParser(description="Add two numbers.")
parser.add_argument("--a", type=int)
parser.add_argument("--b", type=int)
args = parser.parse_args()
print(args.a + args.b)
