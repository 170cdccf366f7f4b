#!/usr/bin/env bash
# Print the team agenda for today or for the next seven days as plain text.
#
# usage: agenda.sh --range today|week [--store FILE]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
range="today"
store="${TEAM_CALENDAR_FILE:-}"

while [ $# -gt 0 ]; do
  case "$1" in
    -r|--range) range="$2"; shift 2 ;;
    --store) store="$2"; shift 2 ;;
    -h|--help) sed -n '2,4s/^# \{0,1\}//p' "$0"; exit 0 ;;
    *) echo "error: unknown argument $1" >&2; exit 2 ;;
  esac
done

command -v node >/dev/null || { echo "error: node is not installed" >&2; exit 3; }
[ -n "$store" ] || { echo "error: set TEAM_CALENDAR_FILE or pass --store FILE" >&2; exit 2; }

day() {  # day OFFSET -> YYYY-MM-DD, GNU or BSD date
  date -d "+$1 days" +%F 2>/dev/null || date -v "+$1d" +%F
}

case "$range" in
  today) from="$(day 0)"; to="$from" ;;
  week) from="$(day 0)"; to="$(day 6)" ;;
  *) echo "error: --range must be today or week" >&2; exit 2 ;;
esac

echo "Agenda $from .. $to"
node "$here/calendar.js" --action list_events --from "$from" --to "$to" \
  --store "$store" --format text
