#!/usr/bin/env bash
# Constructor step 1: the programs the pipelines run are on PATH and the temp dir is writable.
# stdin: {"input": {...}, "steps": {}} (unused) — stdout: {"output": {"python3": ..., ...}}
set -euo pipefail
cat > /dev/null

REQUIRED=(python3)

json_string() {  # a JSON string literal for $1
  local s=${1//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\t'/\\t}
  s=${s//$'\n'/\\n}
  printf '"%s"' "$s"
}

missing=()
for program in "${REQUIRED[@]}"; do
  command -v "$program" > /dev/null 2>&1 || missing+=("$program")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "required program(s) not on PATH: ${missing[*]} — install them or fix PATH" >&2
  exit 1
fi

version=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 8))'; then
  echo "python3 is $version; the steps need Python 3.8 or newer" >&2
  exit 1
fi

tmp=${TMPDIR:-/tmp}
if [[ $tmp != /* ]]; then
  echo "TMPDIR=$tmp is relative; every pipeline runs in its own folder, so set an absolute path" >&2
  exit 1
fi
if [ ! -d "$tmp" ] || [ ! -w "$tmp" ]; then
  echo "temporary directory $tmp is missing or not writable — set TMPDIR to a writable one" >&2
  exit 1
fi

printf '{"output": {"python3": %s, "python_version": "%s", "tmpdir": %s}}\n' \
  "$(json_string "$(command -v python3)")" "$version" "$(json_string "$tmp")"
