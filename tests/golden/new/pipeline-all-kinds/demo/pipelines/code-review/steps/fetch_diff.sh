#!/usr/bin/env bash
# Step `fetch_diff` of pipeline `code-review` (a code step, APP v0.4 §4.1).
#
# The runner writes one JSON object to stdin,
#   {"input": {...pipeline input...}, "steps": {"<step>": {"output": ...}, ...}}
# and this script prints one JSON object to stdout: {"output": <any JSON value>}.
# Exit non-zero to stop the pipeline; print diagnostics to stderr, never to stdout.
# The working directory is the pipeline folder; $APP_ROOT, $APP_PIPELINE_DIR and
# $APP_TOOLS_DIR name the APP folder, this pipeline's folder and the shared tools/.
set -euo pipefail

payload="$(cat)"

# json KEY...: print the part of the payload under KEY... (`json input repo`) as compact
# JSON, `null` when it is missing. Uses jq when it is installed, python3 otherwise.
json() {
  if command -v jq >/dev/null 2>&1; then
    printf '%s' "$payload" | jq -c 'getpath($ARGS.positional)' --args "$@"
  else
    printf '%s' "$payload" | python3 -c 'import json, sys
value = json.load(sys.stdin)
for key in sys.argv[1:]:
    value = value.get(key) if isinstance(value, dict) else None
print(json.dumps(value, ensure_ascii=False, separators=(",", ":")))' "$@"
  fi
}

inputs="$(json input)"

# TODO(app-new): replace this placeholder with the real work of step `fetch_diff`.
#   "$(json input repo)" is the input `repo` (string), as JSON.
#   "$(json input pr_number)" is the input `pr_number` (integer), as JSON.
#   "$(json input strict)" is the input `strict` (boolean), as JSON.
#   "$(json input ratio)" is the input `ratio` (number), as JSON.
#   "$(json input paths)" is the input `paths` (array), as JSON.
#   "$(json input options)" is the input `options` (object), as JSON.
#   This is the first step: "$(json steps)" is empty.
#   Print the JSON value the next steps need (the shape is up to you), as valid JSON.
printf '{"output": {"step": %s, "placeholder": true, "input": %s}}\n' \
  '"fetch_diff"' "$inputs"
