#!/usr/bin/env bash
# Destructor: remove this run's work dir and append one line to the APP's run log.
#
# Runs after the business pipeline whatever its outcome; app-run tells it how that went in
# APP_BUSINESS_STATUS (succeeded | failed | interrupted) and APP_BUSINESS_ERROR.
# Paths follow tools/workdir.py:
#   ${TMPDIR:-/tmp}/app-run-code-review/<APP_RUN_ID>/   removed here
#   ${TMPDIR:-/tmp}/app-run-code-review/runs.log        <time> <run id> <pipeline> <status> <workdir> <error>
# stdin (unused): {"input": {...}, "steps": {}} — stdout: {"output": {...}}
set -euo pipefail
cat > /dev/null

json_string() {  # a JSON string literal for $1
  local s=${1//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\t'/\\t}
  s=${s//$'\n'/\\n}
  printf '"%s"' "$s"
}

run_id=${APP_RUN_ID:-}
if [[ ! $run_id =~ ^[A-Za-z0-9._-]+$ || $run_id == . || $run_id == .. ]]; then
  echo "APP_RUN_ID '$run_id' is missing or unusable: refusing to remove anything" >&2
  exit 1
fi
tmp=${TMPDIR:-/tmp}
base=${tmp%/}/app-run-code-review
work=$base/$run_id

if [ -d "$work" ]; then
  rm -rf -- "$work"
  workdir=removed
else
  workdir=missing
fi

status=${APP_BUSINESS_STATUS:-unknown}
error=${APP_BUSINESS_ERROR:-}
error=${error//$'\n'/ }
error=${error//$'\t'/ }
mkdir -p "$base"
printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$run_id" \
  "${APP_BUSINESS_PIPELINE:-?}" "$status" "$workdir" "$error" >> "$base/runs.log"

printf '{"output": {"work_dir": %s, "work_dir_state": "%s", "business_status": %s, "log": %s}}\n' \
  "$(json_string "$work")" "$workdir" "$(json_string "$status")" "$(json_string "$base/runs.log")"
